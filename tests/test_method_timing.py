"""MethodClock: every second is charged once, to the innermost account."""

from __future__ import annotations

import pytest

from hexeval_engine.technical import timing as method_timing
from hexeval_engine.technical.timing import MethodClock


class _FakeTime:
    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def test_nested_charges_pause_the_outer_account(monkeypatch):
    fake = _FakeTime()
    monkeypatch.setattr(method_timing.time, "perf_counter", fake.perf_counter)
    clock = MethodClock()
    with clock.charge("shared"):
        fake.now += 1.0
        with clock.charge("SHAP"):
            fake.now += 2.0
        fake.now += 0.5
        with clock.charge("LIME"):
            fake.now += 4.0
            with clock.charge("SHAP"):
                fake.now += 0.25
            fake.now += 1.0
    with clock.charge("LIME"):
        fake.now += 3.0
    assert clock.seconds == pytest.approx({"shared": 1.5, "SHAP": 2.25, "LIME": 8.0})
    assert sum(clock.seconds.values()) == pytest.approx(fake.now)


def test_a_failing_block_is_still_charged(monkeypatch):
    fake = _FakeTime()
    monkeypatch.setattr(method_timing.time, "perf_counter", fake.perf_counter)
    clock = MethodClock()
    with pytest.raises(RuntimeError):
        with clock.charge("DiCE"):
            fake.now += 2.0
            raise RuntimeError("boom")
    assert clock.seconds == {"DiCE": 2.0}
