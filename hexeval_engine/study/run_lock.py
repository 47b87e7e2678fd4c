"""One writer at a time per run folder: an exclusive ``flock`` on the folder's own descriptor.

Amending a run rewrites ``run.json`` (read, add an entry, write); two participants answering at the
same moment must take turns, or one amendment entry is lost and the answer file it listed would look
edited. The lock is on the folder itself, so no extra file appears in the run.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path

from ..errors import RunError
from ..paths import shown


@contextmanager
def run_lock(run_dir):
    """Hold an exclusive lock on ``run_dir`` for the ``with`` block (blocks until it is free)."""
    run_dir = Path(run_dir)
    try:
        fd = os.open(run_dir, os.O_RDONLY)
    except OSError as err:
        raise RunError(f"Run {shown(run_dir.name)} cannot be opened ({(err.strerror or type(err).__name__).lower()}). "
                       "Pick a run listed by `hexeval runs list`.") from err
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
