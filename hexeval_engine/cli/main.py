"""The ``hexeval`` command (also ``python -m hexeval_engine``).

Exit codes: 0 done/valid, 1 failed/invalid (the message says why), 2 usage error.
"""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import signal
import sys
from contextlib import contextmanager

from ..errors import HexevalError
from ..runtime.forkserver_start import start_forkserver

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_EXIT_UNFLUSHED = 120  # CPython's exit status when flushing the output fails at exit


def build_parser() -> argparse.ArgumentParser:
    # the commands import the engine (~3 s): loaded here, after main() has started the helper's forkserver
    from . import commands, evaluation_commands, study_commands

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
    p.add_argument("--config", help="evaluation config YAML (with --usecase it overlays the use case's config: "
                   "settings it leaves out keep the use case's values)")


def main(argv: list[str] | None = None) -> int:
    if _command(sys.argv[1:] if argv is None else argv) == "evaluate":
        # Its imports overlap the engine's below (see forkserver_start). Spawning takes ~10 ms; with SIGINT
        # ignored meanwhile the forkserver inherits that through exec, so a Ctrl-C while it imports its
        # preload prints no traceback from it (it ignores SIGINT afterwards anyway, as do the helpers it forks:
        # the command stops its helper itself).
        with _sigint_ignored():
            start_forkserver(background=False)
    from .inputs import UsageError  # imports the engine: after the forkserver's start

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # from here a command cleans up after itself
    try:
        return args.func(args)
    except UsageError as err:
        print(f"hexeval {args.command}: usage error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except HexevalError as err:
        print(f"hexeval {args.command}: {err}" + _resume_hint(err), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt as err:
        print("hexeval: interrupted; nothing partial was saved as a run." + _resume_hint(err), file=sys.stderr)
        return 130


def _resume_hint(err: BaseException) -> str:
    """For an evaluation that stopped after finishing some pieces: how to continue it."""
    run = getattr(err, "resumable_run", None)
    if not run:
        return ""
    return (f" Its finished pieces are kept: continue it with `hexeval evaluate --resume {run}` (with the same "
            "--output), or remove it with `hexeval runs clean`.")


def _interrupted_while_starting(signum, frame) -> None:
    """SIGINT before a command runs (the engine's imports take seconds): nothing was started, so exit at once.

    Exits with 130 (128 + SIGINT, as a shell reports it) and one line, without a traceback and without the
    interpreter's teardown of half-imported libraries. The forkserver, if started, is still importing its
    preload (with SIGINT ignored) and would hold the terminal's output open until done: it is ended too.
    """
    try:
        _end_forkserver()
        os.write(2, b"hexeval: interrupted while starting; nothing was done.\n")
    finally:
        os._exit(130)


def _end_forkserver() -> None:
    """SIGTERM to the forkserver this process started, if any (it has forked nothing yet at start-up)."""
    from multiprocessing import forkserver  # already imported by forkserver_start

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if isinstance(pid, int) and pid > 0:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:  # it has ended already
            pass


@contextmanager
def _sigint_ignored():
    """SIGINT ignored for the ``with`` block (the main thread only may change it; elsewhere nothing changes)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread (main() called from a worker thread)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _command(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option), without parsing the rest."""
    return next((word for word in argv if not word.startswith("-")), None)


def run() -> None:
    """The ``hexeval`` command (console script and ``python -m hexeval_engine``): :func:`main`, then exit.

    The exit skips the interpreter's teardown, which frees every object of the engine's libraries one by one:
    0.8 s after a bundled evaluation on a 2-core machine, more than a tenth of the command
    (``benchmarks/cli_cold.py``). Everything a normal exit does for HEXEval still happens first: the exit
    functions run (the helper process is stopped, logs flushed, temporary folders removed) and the output
    streams are flushed. Runs are complete before :func:`main` returns (written under a temporary name, then
    renamed), so nothing saved depends on the teardown.

    Ctrl-C before the command itself runs (while the engine is imported) exits at once with 130 and one line
    (:func:`_interrupted_while_starting`); once it runs, the command's own handling applies.
    """
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when started with SIGINT ignored
        signal.signal(signal.SIGINT, _interrupted_while_starting)
    code = main()
    atexit._run_exitfuncs()  # what a normal exit runs first; os._exit below would skip it
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader left (`hexeval runs list | head`) or the stream is closed:
            code = code or _EXIT_UNFLUSHED  # as the interpreter's own exit reports it
    os._exit(code)


if __name__ == "__main__":
    run()
