"""CountedSwitch: overlapping blocks in two threads make the change once and undo it after the last one."""

from __future__ import annotations

import sys
import threading

from hexeval_engine.runtime.counted_switch import CountedSwitch
from hexeval_engine.explainers.base import silenced


def test_overlapping_blocks_in_two_threads_share_one_change():
    events = []
    switch = CountedSwitch(lambda: events.append("start") or "token", lambda state, who: events.append(("stop", state, who)))
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with switch("first"):
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second():
        first_in.wait(5)
        with switch("second"):
            second_in.set()
            first_out.wait(5)
            assert events == ["start"]  # the first block closed; the change stays while this one is open

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    [t.start() for t in threads]
    [t.join(10) for t in threads]
    assert events == ["start", ("stop", "token", "second")]


def test_silenced_restores_the_real_streams_even_after_an_error():
    out, err = sys.stdout, sys.stderr
    try:
        with silenced("test"):
            print("hidden")
            assert sys.stdout is not out
            raise ValueError("boom")
    except ValueError:
        pass
    assert sys.stdout is out and sys.stderr is err
