"""Run rating calls on a few threads so that an interrupt stops them at once.

``concurrent.futures.ThreadPoolExecutor`` is the wrong tool for network calls that must be
stoppable: leaving its ``with`` block (Ctrl-C raises ``KeyboardInterrupt`` in the waiting thread,
the dashboard's Stop raises Streamlit's ``StopException``) waits for every *queued* task, and the
interpreter joins its worker threads at exit — against a hanging server, minutes to hours.

:func:`run_all` instead hands items to daemon threads from a queue. The caller's thread waits in
short slices (calling ``on_wait`` between them, which lets the dashboard notice a Stop even while
no answer arrives). When anything interrupts that wait, the ``stop`` event is set: queued items
are dropped unstarted, calls in flight are abandoned (their threads die with the process or end
after the request's own timeout), and the interrupt propagates at once.
"""

from __future__ import annotations

import queue
import threading
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

POLL_SECONDS = 0.25
"""How long the caller's thread waits for an answer before calling ``on_wait`` (and checking for an interrupt)."""


def run_all(fn: Callable[[T, threading.Event], R], items: Sequence[T], *, workers: int,
            on_result: Callable[[int, int], None] | None = None,
            on_wait: Callable[[int], None] | None = None) -> list[R]:
    """``[fn(item, stop) for item in items]`` computed on up to ``workers`` daemon threads.

    Parameters
    ----------
    fn : callable
        Called as ``fn(item, stop)``; ``stop`` is set once the caller was interrupted, so a long
        call may check it and give up early.
    items : sequence
        The work, started in order.
    workers : int
        Threads (at least one).
    on_result : callable, optional
        ``on_result(done, index)`` in the caller's thread after each result, ``done`` counting from 1.
    on_wait : callable, optional
        ``on_wait(done)`` in the caller's thread every :data:`POLL_SECONDS` without a new result.

    Returns
    -------
    list
        Results in the order of ``items``.

    Raises
    ------
    BaseException
        Whatever ``fn``, ``on_result`` or ``on_wait`` raised, or an interrupt of the wait — after
        the queued items have been dropped.
    """
    results: list = [None] * len(items)
    if not items:
        return results
    todo: queue.SimpleQueue = queue.SimpleQueue()
    for pair in enumerate(items):
        todo.put(pair)
    finished: queue.Queue = queue.Queue()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            try:
                index, item = todo.get_nowait()
            except queue.Empty:
                return
            try:
                finished.put((index, fn(item, stop), None))
            except BaseException as err:  # handed to the caller's thread, which re-raises it
                finished.put((index, None, err))

    for n in range(max(1, min(workers, len(items)))):
        threading.Thread(target=work, daemon=True, name=f"hexeval-rater-{n}").start()
    try:
        for done in range(1, len(items) + 1):
            index, value, error = _next(finished, on_wait, done - 1)
            if error is not None:
                raise error
            results[index] = value
            if on_result is not None:
                on_result(done, index)
    finally:
        stop.set()
    return results


def _next(finished: queue.Queue, on_wait, done: int):
    while True:
        try:
            return finished.get(timeout=POLL_SECONDS)
        except queue.Empty:
            if on_wait is not None:
                on_wait(done)
