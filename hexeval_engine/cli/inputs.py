"""What the ``hexeval`` commands that read a model and a CSV were given: a use case, or MODEL and DATA."""

from __future__ import annotations

import argparse

from ..models.prepare import prepare_usecase
from ..usecases import get_usecase, list_usecases


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
