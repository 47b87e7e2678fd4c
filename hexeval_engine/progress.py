"""Progress reporting through a callback (``on_progress(done, total, message)``) and per-stage timing."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator, Protocol


class ProgressCallback(Protocol):
    def __call__(self, done: int, total: int, message: str) -> None: ...


def noop(done: int, total: int, message: str) -> None:
    """The default callback: report nothing."""


def report(callback: Callable | None) -> Callable:
    return callback or noop


def sub_progress(callback: Callable | None, offset: int, span: int, total: int, stage: str) -> Callable:
    """Map a stage's own (done, total) onto a slice [offset, offset+span] of an overall total."""
    cb = report(callback)

    def inner(done: int, stage_total: int, message: str) -> None:
        frac = done / stage_total if stage_total else 1.0
        cb(offset + int(round(frac * span)), total, f"{stage}: {message}")

    return inner


class StageClock:
    """Wall-clock seconds per pipeline stage: ``with clock("technical"): ...`` records that stage (a stage timed in
    several blocks: their sum).

    The clock starts when it is made; :meth:`finish` adds ``total`` (seconds since then) and returns
    every stage's time. A stage that raises records nothing (the run fails anyway).
    """

    def __init__(self) -> None:
        self._start = time.perf_counter()
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, stage: str, *, from_start: bool = False) -> Iterator[None]:
        """Time the block as ``stage``; ``from_start`` counts from the clock's start (the first stage)."""
        began = self._start if from_start else time.perf_counter()
        yield
        self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - began  # a stage timed in parts

    def finish(self) -> dict[str, float]:
        """Every stage's seconds and ``total`` since the clock started."""
        self.seconds["total"] = time.perf_counter() - self._start
        return self.seconds
