"""The ``hexeval prepare`` and ``hexeval validate`` commands (argument parsing lives in main.py)."""

from __future__ import annotations

import argparse

from ..inputs import load_inputs
from ..models.prepare import prepare_usecase
from ..usecases import get_usecase, list_usecases
from .inputs import UsageError, check_inputs
from .output import print_quality, print_validation

__all__ = ["UsageError", "check_inputs", "prepare", "validate"]


def prepare(args: argparse.Namespace) -> int:
    targets = [get_usecase(args.usecase)] if args.usecase else list_usecases()
    for uc in targets:
        print(prepare_usecase(uc, force=args.force))
    return 0


def validate(args: argparse.Namespace) -> int:
    check_inputs(args)
    # The CLI reads the operator's own files, so pickles are allowed here (never for dashboard uploads).
    inputs = load_inputs(args.model, args.data, args.target, args.config, usecase=args.usecase, allow_pickle=True)
    if inputs.data is not None:
        print_quality(inputs.data)
    if inputs.column_note:
        print(f"Note: {inputs.column_note}")
    if inputs.problems:
        raise inputs.problems[0]
    print_validation(inputs.model, inputs.validation)
    return 0 if inputs.ok else 1
