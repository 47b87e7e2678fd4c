"""The helper process's forkserver, startable before anything heavy is imported (issue 22: a cold CLI run).

Public interface
----------------
``PRELOAD``                       modules the forkserver imports once, so every helper starts with them loaded
``usable_cores() -> int``         CPU cores this process may run on (its affinity mask)
``start_forkserver(*, background=True) -> bool``  start the forkserver with ``PRELOAD`` unless it runs;
                                  ``False`` (nothing started) on a machine with fewer than 2 usable cores

Why here. The helper (:mod:`hexeval_engine.runtime.helper_pool`) is forked by a ``forkserver`` whose
preload imports the explainer stack: about 2 s. A dashboard starts it once at start-up; a ``hexeval
evaluate`` command is a new process every time, and it used to start the forkserver only when the run
began, so the run explained everything in its own process (credit risk: 10 s from the shell). Started by
the CLI before it imports the engine (another ~3 s: scikit-learn, pandas, skops, shap), the forkserver's
imports run on the second core meanwhile and the run finds its helper ready. This module imports only the
standard library, so importing it costs nothing; the helper module itself imports the engine.
"""

from __future__ import annotations

import logging
import os
import threading
from multiprocessing import forkserver, get_context

#: Modules the forkserver imports once, so every helper starts with them loaded.
PRELOAD = ["hexeval_engine.explainers.registry", "hexeval_engine.explainers.render", "hexeval_engine.metrics.compute",
           "shap", "lime.lime_tabular", "anchor.anchor_tabular", "dice_ml", "xgboost", "sklearn.ensemble"]

log = logging.getLogger(__name__)


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask, not the machine's core count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity call: every core counts
        return os.cpu_count() or 1


def ensure_forkserver() -> None:
    """Start the forkserver with :data:`PRELOAD` and wait until it runs (a no-op when it runs already).

    Raises what :mod:`multiprocessing` raises when it cannot (no forkserver on this platform, no processes
    left): ``OSError``, ``ValueError`` or ``RuntimeError``. Two threads may call it at once: the standard
    library's lock makes the second wait for the first's server.
    """
    get_context("forkserver").set_forkserver_preload(PRELOAD)
    forkserver.ensure_running()


def start_forkserver(*, background: bool = True) -> bool:
    """Start the forkserver (``background``: from a daemon thread, so the caller does not wait for its imports).

    Returns whether a start was attempted: ``False`` with fewer than 2 usable cores, where no helper is used.
    A failure is not raised here: the helper's own start (``helper_pool.start_helper``) meets it again and
    logs it, and the run explains in-process.
    """
    if usable_cores() < 2:
        return False
    if background:
        threading.Thread(target=_quietly, name="hexeval-forkserver-start", daemon=True).start()
    else:
        _quietly()
    return True


def _quietly() -> None:
    try:
        ensure_forkserver()
    except (OSError, ValueError, RuntimeError) as err:  # the helper's own start meets it again and says so
        log.info("The helper's forkserver could not start early (%s: %s).", type(err).__name__, err)
