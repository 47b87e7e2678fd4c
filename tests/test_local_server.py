"""The one helper that starts a local server for the browser tests and benchmarks: ready, reachable, stopped."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

import pytest

from local_server import free_port, local_server


def test_a_server_answers_inside_the_block_and_is_gone_after(tmp_path):
    (tmp_path / "hello.txt").write_text("hello")
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)]
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with local_server(command, ready_path="/hello.txt", port=port, log=tmp_path / "server.log") as url:
        assert url == f"http://127.0.0.1:{port}"
        with opener.open(f"{url}/hello.txt", timeout=5) as resp:
            assert resp.read() == b"hello"
    with pytest.raises(urllib.error.URLError):
        opener.open(f"{url}/hello.txt", timeout=2)


def test_a_server_that_dies_is_reported_with_the_end_of_its_log(tmp_path):
    command = [sys.executable, "-c", "import sys; print('cannot bind: port taken'); sys.exit(3)"]
    with pytest.raises(RuntimeError, match=r"(?s)exited with code 3 .*cannot bind: port taken"):
        with local_server(command, ready_path="/", port=free_port(), log=tmp_path / "server.log", what="the toy"):
            pytest.fail("the block must not run")
