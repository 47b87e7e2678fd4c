"""A dask worker plugin that kills its own worker process the first time it starts an explanation chunk (once per
marker file): a worker that dies mid-run, mid-task, as an out-of-memory kill or a lost machine would."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from distributed import WorkerPlugin


class DieOnFirstChunk(WorkerPlugin):
    """Kill this worker's process (SIGKILL) as it starts its first explanation chunk, unless ``marker`` exists (it is
    created first, so only one worker of the cluster dies, once)."""

    name = "die-on-first-chunk"

    def __init__(self, marker: str):
        self.marker = marker

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kwargs):
        name = key[0] if isinstance(key, tuple) else str(key)
        if finish != "executing" or not str(name).startswith("_explain_chunk"):
            return
        try:
            fd = os.open(self.marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)


def killed_pid(marker) -> int | None:
    """The process id of the worker that killed itself, or None when none did."""
    path = Path(marker)
    return int(path.read_text()) if path.exists() and path.read_text() else None
