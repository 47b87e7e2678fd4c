"""Load once, in a long-lived process, what the first evaluation in it would otherwise load on the way.

Public interface
----------------
``warm_engine()``  import the engine modules a run loads on first use (the built-in explainers, the explainers'
lock-step driver), read the library versions and the engine's source hash every run keys its stored pieces with
(read once per process), list the installed plugins' entry points, and let scikit-learn load what its first look
at a DataFrame loads. It computes nothing and changes no result. Plugins are not loaded here: an operator's plugin package
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
    from .checkpoints import code_digest  # here, not at the top: importing this module stays cheap
    from ..explainers.plugins import read_entry_points  # here, not at the top: importing this module stays cheap

    builtin_specs()  # imports each built-in explainer's module
    library_versions()
    read_entry_points()  # the installed plugins' names (importing one is left to the first run that uses it)
    code_digest()  # the engine's source hash every stored piece is keyed with (~30 ms)
    _first_check_array()
    seconds = time.perf_counter() - start
    log.debug("Engine warmed up in %.2f s.", seconds)
    return seconds


def _first_check_array() -> None:
    """scikit-learn's first look at a DataFrame (``check_array``) imports its DataFrame-interchange modules
    (narwhals, ~25 ms), and its first look at an array lists the installed narwhals plugins (~10 ms, read from the
    packages' metadata once per process): every run's model calls and data split make both."""
    import numpy as np  # here, not at the top: importing this module stays cheap
    import pandas as pd  # here, not at the top: importing this module stays cheap
    from sklearn.utils.validation import check_array  # here, not at the top: importing this module stays cheap

    check_array(pd.DataFrame({"x": [0.0, 1.0]}))
    check_array(np.zeros((2, 1)))


def _warm_logged() -> None:
    try:
        warm_engine()
    except Exception:  # logged, not raised: nobody waits on this thread, and the run that needs the module reports it
        log.exception("Loading the engine's modules ahead of the first run failed; the first run loads them itself.")
