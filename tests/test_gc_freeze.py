"""A run keeps the garbage collector's full passes off the objects alive before it, and gives them back after.

The oracle is the interpreter's own count of frozen objects (``gc.get_freeze_count``), read inside the run (the
progress callback) and after it.
"""

from __future__ import annotations

import gc
import threading

import pytest

from hexeval_engine import evaluate
from hexeval_engine.runtime.gc_freeze import old_objects_frozen
from small_runs import QUICK


@pytest.fixture
def unfrozen():
    """Start and end with nothing frozen, whatever a failing test left behind."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def _frozen_during_run() -> tuple[list, int]:
    seen = []
    result = evaluate(usecase="heart", config_overrides=QUICK, save=False,
                      on_progress=lambda done, total, message: seen.append(gc.get_freeze_count()))
    assert result.technical.metrics is not None
    return seen, gc.get_freeze_count()


def test_a_run_freezes_what_was_alive_and_unfreezes_it_after(unfrozen):
    alive_before = len(gc.get_objects())
    seen, after = _frozen_during_run()
    assert seen and min(seen) >= alive_before // 2  # the objects alive at the start (not just a few) were frozen
    assert after == 0  # all of them are back in the collector's generations


def test_a_process_that_froze_objects_itself_keeps_its_choice(unfrozen):
    gc.freeze()
    own = gc.get_freeze_count()
    seen, after = _frozen_during_run()
    # the run neither froze more nor unfroze the caller's objects (a frozen object that dies still leaves the count)
    assert max(seen) <= own and min(seen) > 0.9 * own
    assert 0.9 * own < after <= own


def test_overlapping_runs_unfreeze_only_when_the_last_ends(unfrozen):
    first_open, release = threading.Event(), threading.Event()
    counts = {}

    def first():
        with old_objects_frozen():
            first_open.set()
            release.wait(10)
            counts["first, before it ends"] = gc.get_freeze_count()

    thread = threading.Thread(target=first)
    thread.start()
    assert first_open.wait(10)
    with old_objects_frozen():
        counts["second, inside"] = gc.get_freeze_count()
        release.set()
        thread.join(10)
        counts["second, after the first ended"] = gc.get_freeze_count()
    assert counts["second, inside"] > 0 and counts["first, before it ends"] > 0
    assert counts["second, after the first ended"] > 0  # the first block's end did not unfreeze the second's objects
    assert gc.get_freeze_count() == 0
