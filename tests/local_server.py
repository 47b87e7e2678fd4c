"""One way to start a local server process for a test or a benchmark, wait until it answers, and stop it.

The browser tests start ``streamlit run app.py`` (and ``study_app.py``) through :func:`streamlit_server`;
``benchmarks/llm_real_server.py`` starts llama-cpp-python's server through :func:`local_server`. Both
listen on a free port of 127.0.0.1 only, log to a file, and are stopped (terminate, then kill) when the
``with`` block ends, whatever happened inside it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_tail(log: Path, chars: int = 1500) -> str:
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError as err:
        return f"(its log {log} cannot be read: {err})"


def _wait_until_answers(url: str, proc: subprocess.Popen, *, what: str, log: Path, timeout: float) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with code {proc.returncode} before answering {url}; "
                               f"the end of its log:\n{log_tail(log)}")
        try:
            with opener.open(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.3)  # not listening yet
    raise TimeoutError(f"{what} did not answer {url} within {timeout:.0f} s; the end of its log:\n{log_tail(log)}")


@contextmanager
def local_server(command: list[str], *, ready_path: str, port: int, log: Path, env: dict | None = None,
                 cwd: Path = ROOT, timeout: float = 60.0, what: str = "the server"):
    """Run ``command`` (which must listen on ``port``), yield its base URL once ``ready_path`` answers 200.

    Parameters
    ----------
    command : list of str
        The server's command line.
    ready_path : str
        A path (``/_stcore/health``, ``/v1/models``) that answers 200 once the server is ready.
    port : int
        The port the command listens on (see :func:`free_port`).
    log : Path
        The server's output (stdout and stderr) is appended here; its end is quoted when it fails.
    env : dict, optional
        Variables added to this process's environment.
    cwd : Path
        The working directory (default: the project root).
    timeout : float
        Seconds to wait for ``ready_path``.
    what : str
        How error messages name the server.

    Yields
    ------
    str
        ``http://127.0.0.1:<port>``.
    """
    with open(log, "ab") as out:
        proc = subprocess.Popen(command, cwd=cwd, env=os.environ | (env or {}), stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_answers(url + ready_path, proc, what=what, log=log, timeout=timeout)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def streamlit_server(log: Path, *, script: str = "app.py", env: dict | None = None, args: tuple = ()):
    """``streamlit run <script>`` headless on a free port of 127.0.0.1; yields its URL once healthy.

    Parameters
    ----------
    log : Path
        The server's output is appended here.
    script : str
        ``app.py`` (the dashboard) or ``study_app.py``.
    env : dict, optional
        Variables for the server (``HEXEVAL_OUTPUTS``, ``HEXEVAL_STUDY_RUN`` …).
    args : tuple of str
        Further ``streamlit run`` options.
    """
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), "--server.address",
               "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false", *args]
    with local_server(command, ready_path="/_stcore/health", port=port, log=log, env=env,
                      what=f"streamlit run {script}") as url:
        yield url


@contextmanager
def streamlit_app(outputs: Path, log: Path):
    """The dashboard (``app.py``) with ``outputs`` as its runs root; yields its URL once healthy."""
    with streamlit_server(log, env={"HEXEVAL_OUTPUTS": str(outputs)}) as url:
        yield url
