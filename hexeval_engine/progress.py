"""Progress reporting through a callback: ``on_progress(done, total, message)``."""

from __future__ import annotations

from typing import Callable, Protocol


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
