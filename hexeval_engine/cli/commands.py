"""The ``hexeval prepare`` and ``hexeval validate`` commands (argument parsing lives in main.py)."""

from __future__ import annotations

import argparse

from ..config import load_config
from ..data.usecase_data import load_data_for_config
from ..models.compatibility import validate_model_data_compatibility
from ..models.model_loading import load_model
from ..models.prepare import prepare_usecase
from ..usecases import get_usecase, list_usecases
from .inputs import UsageError, check_inputs, resolve_inputs
from .output import print_quality, print_validation

__all__ = ["UsageError", "check_inputs", "prepare", "resolve_inputs", "validate"]


def prepare(args: argparse.Namespace) -> int:
    targets = [get_usecase(args.usecase)] if args.usecase else list_usecases()
    for uc in targets:
        print(prepare_usecase(uc, force=args.force))
    return 0


def validate(args: argparse.Namespace) -> int:
    uc, model_path, data_path, target, config_path = resolve_inputs(args)
    overlaid = uc is not None and args.config  # --config with --usecase overlays the use case's config
    config = load_config(config_path, base=uc.config_path if overlaid else None)
    data = load_data_for_config(data_path, config, target)
    print_quality(data)
    # The CLI reads the operator's own files, so pickles are allowed here (never for dashboard uploads).
    model = load_model(model_path, allow_pickle=True, data=data)
    result = validate_model_data_compatibility(model, data)
    print_validation(model, result)
    return 0 if result["status"] == "valid" else 1

