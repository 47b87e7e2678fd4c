"""Anchor's request cap, and the randomisation check's re-run bounded by the real search's own requests."""

from __future__ import annotations

import numpy as np
import pandas as pd

from hexeval_engine.explainers import anchor_explainer as ae
from hexeval_engine.explainers.anchor_sampling import AnchorSampler
from hexeval_engine.explainers.anchor_search import anchor_beam
from hexeval_engine.explainers.base import explained_classes, instance_seed
from hexeval_engine.technical import sanity
from hexeval_engine.technical.run import TechnicalResult

SETTINGS = dict(delta=ae.DELTA, epsilon=ae.TAU, batch_size=ae.BATCH_SIZE, desired_confidence=0.95,
                beam_size=ae.BEAM_SIZE, min_samples_start=ae.MIN_SAMPLES_START, max_anchor_size=ae.MAX_ANCHOR_SIZE)


def _coin_labels(seed):
    """Labels that ignore the rows (a model without signal) and count how often they are asked for."""
    rng = np.random.default_rng(seed)
    asked = []

    def label(raw):
        asked.append(len(raw))
        return (rng.random(len(raw)) < 0.6).astype(int)
    return label, asked


def _search(explainer, row, cap, seed=11):
    label, asked = _coin_labels(seed)
    np.random.seed(seed)
    found = anchor_beam(AnchorSampler(explainer._anchor, row), label, max_requests=cap, **SETTINGS)
    return found, asked


def test_a_cap_above_the_search_changes_nothing_and_a_lower_cap_stops_it(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    explainer = ae.AnchorExplainer(model, data, config)
    M, _ = explainer.space.encode(data.X_test.iloc[[0]][list(data.feature_names)])
    free, asked = _search(explainer, M[0], None)
    assert len(asked) == free["model_requests"] > 3 and not free["stopped_at_request_cap"]
    same, _ = _search(explainer, M[0], free["model_requests"])
    assert not same["stopped_at_request_cap"]
    for key in ("feature", "precision", "coverage", "all_precision", "model_requests"):
        assert same[key] == free[key]
    cap = free["model_requests"] // 2
    stopped, asked = _search(explainer, M[0], cap)
    assert stopped["stopped_at_request_cap"] and stopped["model_requests"] == cap == len(asked)
    assert 1 <= len(stopped["feature"]) <= ae.MAX_ANCHOR_SIZE  # the rule found so far, not an empty answer
    assert all(0 <= p <= 1 for p in stopped["precision"])
    nothing, asked = _search(explainer, M[0], 0)
    assert nothing["stopped_at_request_cap"] and nothing["feature"] == [] and asked == []


def _technical(model, data, config, ids):
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = explained_classes(model, X)
    seeds = [instance_seed(config.evaluation.random_state, i, "Anchor") for i in ids]
    real = ae.AnchorExplainer(model, data, config).explain(X, ids, classes, probabilities, seeds)
    empty = pd.DataFrame()
    return TechnicalResult(metrics=empty, metrics_long=empty, per_instance=empty, explanations=real,
                           instance_ids=list(ids), shared_instance_ids=list(ids))


def test_the_randomisation_check_bounds_anchor_by_the_real_search_and_says_so(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    config = config.model_copy(deep=True)
    config.evaluation.sanity.randomisation_cases = 3
    ids = [0, 1, 2]
    technical = _technical(model, data, config, ids)
    real_requests = [e.extra["model_requests"] for e in technical.explanations]
    # oracle: the randomised model's uncapped searches, and which of them need more requests than the real ones
    randomised, _ = sanity._randomised_model(model, data, config)
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = explained_classes(randomised, X)
    seeds = [instance_seed(config.evaluation.random_state, i, "Anchor") for i in ids]
    free = ae.AnchorExplainer(randomised, data, config).explain(X, ids, classes, probabilities, seeds)
    caps = [max(2 * r, 16) for r in real_requests]  # oracle of the documented bound: twice, at least 16
    over = sum(f.extra["model_requests"] > c for f, c in zip(free, caps))
    assert over > 0  # the bound bites on these cases (heart: the real searches need 1 to 5 requests)

    out = sanity.randomisation_check(model, data, config, technical)

    anchor = out["methods"]["Anchor"]
    assert anchor["n"] == 3 and anchor["stopped_at_real_budget"] == over
    assert out["notes"] == [sanity.stopped_note(over, 3)]
    assert f"in {over} of 3 cases" in out["notes"][0] and "rule found so far" in out["notes"][0]
    assert 0 <= anchor["similarity"] <= 1  # the stopped re-runs' rules are compared, not left out


def test_no_recorded_requests_means_no_cap():
    assert sanity.request_cap(None) is None

    class Bare:
        extra = {}
    assert sanity.request_cap(Bare()) is None

    class Done:
        extra = {"model_requests": 7}
    assert sanity.request_cap(Done()) == 16  # 2 × 7 is below the floor

    class Long:
        extra = {"model_requests": 30}
    assert sanity.request_cap(Long()) == 60


def test_the_results_page_shows_the_stopped_re_runs():
    from streamlit.testing.v1 import AppTest  # the dashboard stack loads only for this test

    def page():
        from types import SimpleNamespace

        from hexeval_ui.evidence_view import render_baseline_evidence

        note = ("Anchor's search on the randomised model stopped at the real search's budget (twice the model "
                "requests the real search of the same case made, at least 16) in 2 of 3 cases; the rule found so far is "
                "compared. This says nothing against the real explanation.")
        checks = {"randomisation": {"status": "done", "n_cases": 3, "notes": [note], "not_checked": [],
                                    "methods": {"Anchor": {"similarity": 0.2, "ci_low": 0.0, "ci_high": 0.5, "n": 3,
                                                           "ignores_model": False, "stopped_at_real_budget": 2}}}}
        render_baseline_evidence(SimpleNamespace(recommendations={}, manifest={"sanity_checks": checks}))

    at = AppTest.from_function(page).run()
    captions = [c.value for c in at.caption]
    assert any("stopped at the real search's budget" in c and "in 2 of 3 cases" in c for c in captions), captions
