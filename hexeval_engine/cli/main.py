"""The ``hexeval`` command (also ``python -m hexeval_engine``).

Exit codes: 0 done/valid, 1 failed/invalid (the message says why), 2 usage error.
"""

from __future__ import annotations

import argparse
import logging
import sys

from ..errors import HexevalError
from . import commands, evaluation_commands, study_commands
from .inputs import UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hexeval", description="Which explanation method should each stakeholder see?")
    parser.add_argument("-v", "--verbose", action="store_true", help="log engine details to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("prepare", help="train the bundled use cases' models (skips up-to-date ones)")
    p.add_argument("--usecase", help="only this use case")
    p.add_argument("--force", action="store_true", help="retrain even when up to date")
    p.set_defaults(func=commands.prepare)

    p = sub.add_parser("validate", help="check that a model and a CSV can be evaluated together")
    _add_inputs(p)
    p.set_defaults(func=commands.validate)

    evaluation_commands.register(sub, _add_inputs)
    study_commands.register(sub)
    return parser


def _add_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", nargs="?", help="model file (.skops, .json/.ubj, or your own .pkl/.joblib)")
    p.add_argument("data", nargs="?", help="CSV file with the features and the target")
    p.add_argument("--usecase", help="a bundled use case instead of MODEL DATA (heart, credit_risk)")
    p.add_argument("--target", help="target column (required with MODEL DATA unless unambiguous)")
    p.add_argument("--config", help="evaluation config YAML")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except UsageError as err:
        print(f"hexeval {args.command}: usage error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except HexevalError as err:
        print(f"hexeval {args.command}: {err}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("hexeval: interrupted; nothing partial was saved.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
