"""DiCE's random search without per-cell pandas writes returns the library's counterfactuals exactly.

Each comparison runs the library's ``generate_counterfactuals`` and
:func:`hexeval_engine.explainers.dice_random.random_search` from the same global RNG state on the
same query and model, and checks the frames (values, order, dtypes) and the RNG states afterwards
(the same draws were consumed).
"""

from __future__ import annotations

import logging
import random
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.config.loader import deep_merge, validate_config
from hexeval_engine.explainers import dice_explainer, dice_random
from hexeval_engine.runtime.explain import explain_instances
from hexeval_engine.explainers.base import explained_classes, silenced
from hexeval_engine.explainers.dice_explainer import DiceExplainer, _categoricals_as_text


def _config(config, dice: dict, actionability: dict | None = None):
    raw = deep_merge(config.model_dump(mode="json", exclude={"source"}), {"evaluation": {"explainers": {"dice": dice}}})
    if actionability is not None:
        raw["actionability"] = actionability
    return validate_config(raw)


#: Heart with a patient's levers widened (every feature actionable but age, sex and the vessel count), so the
#: library comparison has counterfactuals to compare; all three constrained kinds are still exercised.
WIDER_HEART = {"default": "actionable", "features": {"age": "increase_only", "sex": "immutable", "ca": "not_actionable"}}


def _bundle(usecase_bundle, name: str):
    uc, config, data, model = usecase_bundle(name)
    return uc, (_config(config, {}, WIDER_HEART) if name == "heart" else config), data, model


def _only(feature: str) -> dict:
    """An actionability section that leaves only ``feature`` free to vary."""
    return {"default": "immutable", "features": {feature: "actionable"}}


def _queries(explainer, data, rows):
    M, _ = explainer.space.encode(data.X_test.iloc[rows])
    return _categoricals_as_text(explainer.space.decode(M), data.categorical_features)


def _run(explainer, query, seed, *, library, predict=None):
    """(frame or the error's text, numpy RNG state, Python RNG state) from a fixed starting state."""
    np.random.seed(12345)
    random.seed(12345)
    try:
        with silenced("dice_ml"):
            out = explainer._search(query, seed, predict or explainer.predictor.positive, library=library)
    except Exception as err:  # the library's "no counterfactuals found" is part of what is compared
        out = f"{type(err).__name__}: {err}"
    state = np.random.get_state()
    return out, (state[1].tolist(), state[2], state[3], state[4]), random.getstate()


def _assert_same(explainer, query, seed, predict=None):
    ours, ours_np, ours_py = _run(explainer, query, seed, library=False, predict=predict)
    theirs, theirs_np, theirs_py = _run(explainer, query, seed, library=True, predict=predict)
    if isinstance(theirs, str) or isinstance(ours, str):
        assert ours == theirs
    else:
        pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    assert ours_np == theirs_np and ours_py == theirs_py
    return theirs


@pytest.mark.parametrize("name", ["heart", "credit_risk"])
def test_same_counterfactuals_as_the_library_with_immutable_features_and_ranges(usecase_bundle, name):
    _, config, data, model = _bundle(usecase_bundle, name)
    settings = config.evaluation.explainers.dice
    kinds = set(config.actionability.features.values())
    assert {"immutable", "not_actionable", "increase_only"} <= kinds and settings.feature_ranges  # constraints exercised
    explainer = DiceExplainer(model, data, config)
    assert dice_random.unsupported_reason(_library_explainer(explainer)) is None
    queries = _queries(explainer, data, [0, 1, 2, 3, 4, 5])
    sizes = []
    for i in range(len(queries)):
        for seed in (1, 2024, 987654321):
            frame = _assert_same(explainer, queries.iloc[[i]].reset_index(drop=True), seed)
            assert not isinstance(frame, str), frame
            sizes.append(len(frame))
    assert set(sizes) == {settings.num_counterfactuals}


def test_same_frame_when_fewer_than_asked_and_same_error_when_none(usecase_bundle):
    """Heart with only the chest-pain type free: case 0 has 3 of 10 counterfactuals, case 2 none."""
    _, config, data, model = _bundle(usecase_bundle, "heart")
    explainer = DiceExplainer(model, data, _config(config, {"num_counterfactuals": 10, "feature_ranges": {}}, _only("cp")))
    queries = _queries(explainer, data, [0, 2])
    fewer = _assert_same(explainer, queries.iloc[[0]].reset_index(drop=True), 3)
    assert isinstance(fewer, pd.DataFrame) and 0 < len(fewer) < 10
    assert (fewer.drop(columns="cp") == queries.iloc[[0] * len(fewer)].drop(columns="cp").to_numpy()).all().all()
    none = _assert_same(explainer, queries.iloc[[1]].reset_index(drop=True), 3)
    assert isinstance(none, str) and "No counterfactuals found" in none


def test_probabilities_exactly_at_the_stopping_threshold_count_as_the_library_counts_them(usecase_bundle):
    """A model whose probabilities are multiples of 0.1: many candidates sit exactly on DiCE's 0.5 threshold."""
    _, config, data, model = _bundle(usecase_bundle, "heart")
    explainer = DiceExplainer(model, data, config)
    queries = _queries(explainer, data, [0, 1, 2, 3])
    on_threshold = []

    def coarse(M):
        p = np.round(explainer.predictor.positive(M), 1)
        on_threshold.append(int((p == 0.5).sum()))
        return p

    for i in range(len(queries)):
        _assert_same(explainer, queries.iloc[[i]].reset_index(drop=True), 11, predict=coarse)
    assert sum(on_threshold) > 0


def test_wider_search_with_many_counterfactuals_and_a_narrow_range(usecase_bundle):
    """Credit risk asking for 20 counterfactuals (the pool is sampled from a larger set) with a narrow income range."""
    _, config, data, model = usecase_bundle("credit_risk")
    ranges = {"person_income": [20000, 60000], "loan_amnt": [1000, 5000]}
    explainer = DiceExplainer(model, data, _config(config, {"num_counterfactuals": 20, "feature_ranges": ranges}))
    queries = _queries(explainer, data, [7, 8])
    for i in range(len(queries)):
        query = queries.iloc[[i]].reset_index(drop=True)
        frame = _assert_same(explainer, query, 5)
        assert isinstance(frame, pd.DataFrame) and len(frame) == 20
        for feature, (low, high) in ranges.items():
            own = float(query[feature].iat[0])
            assert frame[feature].between(min(low, own), max(high, own)).all()


def test_explanations_unchanged_through_the_pooled_searches(usecase_bundle):
    """Whole DiCE explanations (pooled lockstep searches, sparsity step) equal those of the library's search."""
    _, config, data, model = usecase_bundle("credit_risk")

    def signature():
        out = explain_instances(model, data, config, [0, 1, 2, 3], ["DiCE"])
        return [(e.instance_id, e.error, [(cf.row, cf.probability) for cf in e.counterfactuals or []]) for e in out]

    original = DiceExplainer._search

    def library_only(self, query, seed, predict, library=False):
        return original(self, query, seed, predict, library=True)

    ours = signature()
    with mock.patch.object(DiceExplainer, "_search", library_only):
        theirs = signature()
    assert ours == theirs and all(cfs for _, _, cfs in ours)


def test_an_unknown_dice_version_runs_the_library_search_and_says_why_once(usecase_bundle, caplog):
    _, config, data, model = _bundle(usecase_bundle, "heart")
    explainer = DiceExplainer(model, data, config)
    query = _queries(explainer, data, [0]).reset_index(drop=True)
    with mock.patch.object(dice_random, "random_search", side_effect=AssertionError("must not run")), \
            mock.patch.object(dice_random, "KNOWN_VERSIONS", ("0.0",)), \
            mock.patch.object(dice_explainer, "_LOGGED", set()), \
            caplog.at_level(logging.INFO, logger="hexeval_engine.explainers.dice_explainer"):
        for _ in range(2):
            frame, _, _ = _run(explainer, query, 3, library=False)
            assert isinstance(frame, pd.DataFrame) and len(frame)
    said = [r.getMessage() for r in caplog.records if "own random search" in r.getMessage()]
    assert len(said) == 1 and "0.0" in said[0]


def _library_explainer(explainer):
    import dice_ml

    return dice_ml.Dice(explainer._data, explainer._model, method="random")


def test_a_case_without_counterfactual_is_said_in_words_without_a_traceback(usecase_bundle, caplog):
    """Heart case 2 with only the chest-pain type free has no counterfactual: a sentence, not an exception's name."""
    _, config, data, model = _bundle(usecase_bundle, "heart")
    explainer = DiceExplainer(model, data, _config(config, {"feature_ranges": {}}, _only("cp")))
    X = data.X_test.iloc[[0, 2]][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = explained_classes(model, X)
    with caplog.at_level("INFO"):
        found, nothing = explainer.explain(X, [0, 2], classes, probabilities, [3, 3])
    assert found.ok and found.counterfactuals
    # finding nothing is the explanation (no allowed change flips it), not a failure: the case stays shared
    assert nothing.ok and nothing.counterfactuals == []
    assert nothing.extra["no_counterfactual"] == (
        "DiCE found no counterfactual: none of the changes it tried (1 feature free to vary, "
        "within their allowed ranges) flips the model's prediction for this case.")
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


@pytest.mark.parametrize("precision", [0, 1, 2, 3, 5, 8])
@pytest.mark.parametrize("low, high", [(0, 1), (-3.7, 2.2), (-1e6, 1e6), (0.0001, 0.0009), (100, 100.5), (-5, -5)])
def test_random_draws_are_rounded_as_the_library_rounds_them(precision, low, high):
    """The library's per-value rounding of its draws (on 300 columns x 1,000 draws, 1.7 s per search) done on the
    whole array: the same values and signs, and the same numpy RNG state after (the same draws consumed)."""
    from dice_ml.explainer_interfaces.dice_random import DiceRandom

    if precision == 0:
        low, high = int(np.floor(low)), int(np.floor(high))
    for seed in (None, 0, 7, 2**31 - 1):
        np.random.seed(99)
        theirs = DiceRandom.get_continuous_samples(None, low, high, precision, size=5000, seed=seed)
        theirs_state = np.random.get_state()[1].tolist()
        np.random.seed(99)
        ours = dice_random.continuous_samples(low, high, precision, size=5000, seed=seed)
        assert np.random.get_state()[1].tolist() == theirs_state
        assert len(ours) == len(theirs) == 5000
        assert all(type(v) is float for v in ours)
        assert ours == [float(v) for v in theirs]
        assert np.array_equal(np.signbit(ours), np.signbit(np.asarray(theirs, dtype=float)))


def test_the_data_interfaces_precisions_are_worked_out_once_and_each_caller_gets_its_own_copy(usecase_bundle):
    import dice_ml

    _, config, data, model = usecase_bundle("credit_risk")
    explainer = DiceExplainer(model, data, config)
    fresh = dice_ml.Data(dataframe=explainer._data.data_df.copy(), continuous_features=list(data.numeric_features),
                         outcome_name=data.target)  # the library's own answer, from a data interface of its own
    with mock.patch.object(type(fresh), "get_decimal_precisions", autospec=True,
                           side_effect=type(fresh).get_decimal_precisions) as worked_out:
        remembered = dice_explainer.KnownPrecisions(fresh.get_decimal_precisions)
        for output_type in ("list", "dict", "list", "dict"):
            assert remembered(output_type=output_type) == fresh.get_decimal_precisions(output_type=output_type)
        assert worked_out.call_count == 2 + 4  # once per output type by the memory, four times directly
    mine = remembered("dict")
    mine["not a column"] += 1  # a caller's look-up changes its own copy only
    assert "not a column" not in remembered("dict")
    assert explainer._data.get_decimal_precisions("dict") == fresh.get_decimal_precisions(output_type="dict")
