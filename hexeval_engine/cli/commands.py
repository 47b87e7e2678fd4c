"""Implementations of the ``hexeval`` sub-commands (argument parsing lives in main.py)."""

from __future__ import annotations

import argparse

from ..config import load_config
from ..data.usecase_data import load_data_for_config
from ..models.compatibility import validate_model_data_compatibility
from ..models.model_loading import load_model
from ..models.prepare import prepare_usecase
from ..usecases import get_usecase, list_usecases
from .output import print_quality, print_validation


class UsageError(Exception):
    """Bad combination of command-line arguments (exit status 2)."""


def check_inputs(args: argparse.Namespace) -> None:
    """Raise UsageError unless the arguments name a use case or both MODEL and DATA (not both kinds)."""
    if args.usecase and (args.model or args.data):
        raise UsageError("give either --usecase NAME or MODEL DATA, not both")
    if not args.usecase and not (args.model and args.data):
        raise UsageError("give --usecase NAME (one of: " + ", ".join(u.name for u in list_usecases())
                         + ") or both MODEL and DATA paths")


def resolve_inputs(args: argparse.Namespace):
    """Return (usecase or None, model path, data path, target, config path) from CLI arguments."""
    check_inputs(args)
    if args.usecase:
        uc = get_usecase(args.usecase)
        if not uc.is_prepared:
            prepare_usecase(uc)
        return uc, uc.model_path, uc.data_path, args.target or uc.target, args.config or uc.config_path
    return None, args.model, args.data, args.target, args.config


def prepare(args: argparse.Namespace) -> int:
    targets = [get_usecase(args.usecase)] if args.usecase else list_usecases()
    for uc in targets:
        print(prepare_usecase(uc, force=args.force))
    return 0


def validate(args: argparse.Namespace) -> int:
    _, model_path, data_path, target, config_path = resolve_inputs(args)
    config = load_config(config_path)
    data = load_data_for_config(data_path, config, target)
    print_quality(data)
    # The CLI reads the operator's own files, so pickles are allowed here (never for dashboard uploads).
    model = load_model(model_path, allow_pickle=True, data=data)
    result = validate_model_data_compatibility(model, data)
    print_validation(model, result)
    return 0 if result["status"] == "valid" else 1


def register_evaluation_commands(sub, add_inputs) -> None:
    """Hook for the evaluate/runs/report commands (see evaluation_commands.py)."""
    from .evaluation_commands import register

    register(sub, add_inputs)
