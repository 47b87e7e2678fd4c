"""Load once, in a long-lived process, what the first evaluation in it would otherwise load on the way.

Public interface
----------------
``warm_engine()``  import the engine modules a run loads on first use (the built-in explainers, the explainers'
lock-step driver) and read the library versions every run keys its stored pieces with and records (read once per
process). It computes nothing and changes no result. Plugins are not loaded here: an operator's plugin package
is imported by the first run that uses it, as before.

The dashboard calls it at start-up from a background thread (``hexeval_ui.engine.warm_helper``), next to the
helper process's start, so the first click on Run or Resume does not pay it; a CLI process pays it inside its one
run, as before. ``benchmarks/targets._import_stack`` (the dashboard's start-up, before any timing) calls it too.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time

log = logging.getLogger(__name__)

#: Engine modules a run imports on first use that :func:`warm_engine` imports (the explainers come with their specs).
MODULES = ("hexeval_engine.runtime.lockstep", "hexeval_engine.technical.sanity")


def warm_engine(*, background: bool = False) -> float | None:
    """Import :data:`MODULES` and every built-in explainer and read the library versions; returns the seconds it
    took. ``background``: do it in a daemon thread and return ``None`` at once (a failure there is logged; the
    first run then meets it and reports it as usual)."""
    if background:
        threading.Thread(target=_warm_logged, name="hexeval-warm-up", daemon=True).start()
        return None
    start = time.perf_counter()
    for name in MODULES:
        importlib.import_module(name)
    from ..explainers.registry import builtin_specs  # here, not at the top: importing this module stays cheap
    from .manifest import library_versions  # here, not at the top: importing this module stays cheap

    builtin_specs()  # imports each built-in explainer's module
    library_versions()
    seconds = time.perf_counter() - start
    log.debug("Engine warmed up in %.2f s.", seconds)
    return seconds


def _warm_logged() -> None:
    try:
        warm_engine()
    except Exception:  # logged, not raised: nobody waits on this thread, and the run that needs the module reports it
        log.exception("Loading the engine's modules ahead of the first run failed; the first run loads them itself.")
