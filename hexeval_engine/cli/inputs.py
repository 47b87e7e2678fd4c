"""What the ``hexeval`` commands that read a model and a CSV were given: a use case, or MODEL and DATA."""

from __future__ import annotations

import argparse

from ..usecases import list_usecases


class UsageError(Exception):
    """Bad combination of command-line arguments (exit status 2)."""


def check_inputs(args: argparse.Namespace) -> None:
    """Raise UsageError unless the arguments name a use case or both MODEL and DATA (not both kinds)."""
    if args.usecase and (args.model or args.data):
        raise UsageError("give either --usecase NAME or MODEL DATA, not both")
    if not args.usecase and not (args.model and args.data):
        raise UsageError("give --usecase NAME (one of: " + ", ".join(u.name for u in list_usecases())
                         + ") or both MODEL and DATA paths")

