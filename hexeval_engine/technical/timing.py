"""Seconds of work per explanation method, charged where the work happens.

Public interface
----------------
``MethodClock()``                 ``with clock.charge("LIME"): ...`` adds the block's seconds to ``LIME``
``clock.seconds -> dict``         seconds per account, in first-charged order

Charges nest: while an inner block runs, the outer account is paused, so every second is counted
once, in the innermost account. The accounts therefore add up to the wall time of the outermost
blocks, which is what lets users read per-method seconds as "what this method cost": the
technical evaluation charges each method's explanations, its stability runs and its metrics to
that method, and work no single method owns (predicting the sample, making noisy copies,
aggregating) to ``shared``.
"""

from __future__ import annotations

import time
from contextlib import contextmanager


class MethodClock:
    """Accounts of seconds; ``charge(name)`` is a context manager (not thread-safe: one runner thread)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._stack: list[list] = []  # [account, start of its current uninterrupted stretch]

    @contextmanager
    def charge(self, account: str):
        now = time.perf_counter()
        if self._stack:
            outer = self._stack[-1]
            self._add(outer[0], now - outer[1])
        self._stack.append([account, now])
        try:
            yield
        finally:
            end = time.perf_counter()
            name, started = self._stack.pop()
            self._add(name, end - started)
            if self._stack:
                self._stack[-1][1] = end

    def _add(self, account: str, seconds: float) -> None:
        self.seconds[account] = self.seconds.get(account, 0.0) + seconds
