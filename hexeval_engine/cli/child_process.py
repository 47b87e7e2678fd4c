"""Run a server as a child process that lives and dies with the command (``hexeval study serve``).

The command forwards SIGTERM, SIGINT and SIGHUP to the child and waits for it, so stopping the
command (a service manager's SIGTERM, Ctrl-C, a closed terminal) stops the server too instead of
leaving it serving, orphaned. A child that has not stopped :data:`GRACE_SECONDS` after the first
forwarded signal is killed.
"""

from __future__ import annotations

import signal
import subprocess
import time

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
GRACE_SECONDS = 10.0


def run_forwarding_signals(command: list[str], *, env: dict | None = None) -> int:
    """Run ``command`` to its end with signals forwarded; its exit status (128 + signal when a signal ended it).

    Parameters
    ----------
    command : list of str
        The child's command line.
    env : dict, optional
        Its environment.
    """
    child = subprocess.Popen(command, env=env)
    received: list[int] = []
    first: list[float] = []

    def forward(signum, _frame) -> None:
        received.append(signum)
        first.append(time.monotonic())
        if child.poll() is None:
            child.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in FORWARDED}
    try:
        while True:
            try:
                code = child.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                if first and time.monotonic() - first[0] > GRACE_SECONDS:
                    child.kill()  # asked to stop GRACE_SECONDS ago and still running
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if child.poll() is None:  # the command itself is ending for another reason: never leave the child
            child.kill()
            child.wait()
    if received and code <= 0:
        return 128 + int(received[0])
    return 128 - code if code < 0 else code
