"""Every family can win on its evidence: synthetic worlds with a known answer (issue 19).

Pooled over 5 seeds x 6 cases (n = 30 paired cases per world; fewer when a method fails on a case).
"""

from __future__ import annotations

import pandas as pd
import pytest
from fair_world_fixtures import technical_scores

from hexeval_engine.paired_stats import paired_difference

SEEDS = range(5)


@pytest.fixture(scope="module")
def pooled():
    return {name: pd.concat([technical_scores(name, s, cases=6) for s in SEEDS], ignore_index=True)
            for name in ("rule", "linear", "single")}


def _diff(table, a, b):
    return paired_difference(table[a].to_numpy(), table[b].to_numpy(), n_resamples=1000, seed=0)


def test_rule_world_anchor_not_below_shap(pooled):
    d = _diff(pooled["rule"], "Anchor", "SHAP")
    assert d.n >= 25
    assert d.ci_high >= 0, d  # the interval includes 0 or favours Anchor


def test_linear_world_attributions_above_anchor(pooled):
    for method in ("SHAP", "LIME"):
        d = _diff(pooled["linear"], method, "Anchor")
        assert d.mean > 0, (method, d)


@pytest.mark.parametrize("name", ["rule", "linear", "single"])
def test_random_below_every_real_method(pooled, name):
    for method in ("SHAP", "LIME", "Anchor", "DiCE"):
        d = _diff(pooled[name], method, "Random")
        assert d.ci_low > 0, (name, method, d)
