"""A process-wide change shared by overlapping ``with`` blocks in any threads.

``contextlib`` managers that swap process state (``redirect_stdout``, a thread-pool limit) are not safe
when two threads overlap: the second restores what the first installed, or the first restores while the
second still needs the change. A :class:`CountedSwitch` makes the change when the first block opens and
undoes it when the last one closes, under one lock.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable


class CountedSwitch:
    """``with switch(*args):`` — ``start()`` runs when the first open block begins, ``stop(state, *args)`` when the
    last one ends (``state`` is what ``start`` returned; ``args`` are the closing block's own).

    Parameters
    ----------
    start : callable
        Makes the change; returns what ``stop`` needs to undo it.
    stop : callable
        ``stop(state, *args)`` undoes it.
    """

    def __init__(self, start: Callable[[], Any], stop: Callable[..., None]):
        self._start, self._stop = start, stop
        self._lock = threading.Lock()
        self._depth = 0
        self._state = None

    @contextmanager
    def __call__(self, *args):
        with self._lock:
            if self._depth == 0:
                self._state = self._start()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    state, self._state = self._state, None
                    self._stop(state, *args)
