"""Readers and claim-scoped faithfulness on models whose answers are computed by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from metrics_synthetic import _dataset

from hexeval_engine.explanation import Condition, Counterfactual, Explanation, Rule
from hexeval_engine.metrics.claim_comprehensiveness import claim_comprehensiveness
from hexeval_engine.metrics.claim_sufficiency import claim_sufficiency
from hexeval_engine.metrics.claims import named_features
from hexeval_engine.metrics import readers
from hexeval_engine.metrics.readers import (ChangedMemo, make_reader, reader_accuracy, reader_neighbours,
                                             reader_scores)
from hexeval_engine.technical.sanity import explanation_similarity

FEATURES = ["a", "b", "c"]


@pytest.fixture
def data():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0] * 5, "b": [5.0, 6.0, 7.0, 8.0] * 5, "c": [1.0, 0.0] * 10})
    y = pd.Series([0, 1] * 10, name="y")
    return _dataset(X, y, [], n_train=12)  # test row 0 = (0, 5, 1)


ROWS = pd.DataFrame({"a": [0.0, 3.0, 0.0, 3.0], "b": [5.0, 5.0, 8.0, 8.0], "c": [1.0, 1.0, 1.0, 0.0]})


def test_attribution_reader_subtracts_only_shown_changed_features(data):
    # case (0, 5, 1), class 1 at p = 0.8; shown a: +0.2, b: +0.4 (c not shown, k = 2)
    e = Explanation("SHAP", 0, 1, 0.8, attributions={"a": 0.2, "b": 0.4, "c": 0.01})
    reader = make_reader(e, data=data, top_k=2)
    # row0: nothing changed -> 0.8 -> 1; row1: a changed -> 0.6 -> 1; row2: b changed -> 0.4 -> 0;
    # row3: a, b changed -> 0.2 -> 0 (c's change is ignored: not shown)
    assert reader.predict(ROWS).tolist() == [1, 1, 0, 0]


def test_readers_of_one_case_share_its_comparisons_and_answer_as_alone(data, monkeypatch):
    """Three attribution readers of the same case on the same rows: one comparison per shown feature, not three,
    and each answers as it does without the memo."""
    shown = [{"a": 0.2, "b": 0.4}, {"a": -0.3, "b": 0.25}, {"b": 0.1, "a": 0.5}]
    explanations = [Explanation(m, 0, c, p, attributions=w) for m, c, p, w in zip(("SHAP", "LIME", "Random"),
                                                                                     (1, 0, 1), (0.8, 0.7, 0.8), shown)]
    alone = [make_reader(e, data=data).predict(ROWS).tolist() for e in explanations]
    converted, compared = [], []
    real_arrays, real_differs = readers.ColumnArrays, readers._differs
    monkeypatch.setattr(readers, "ColumnArrays",
                        lambda column, **kw: (converted.append(column.name), real_arrays(column, **kw))[1])
    monkeypatch.setattr(readers, "_differs", lambda column, value: (compared.append(value), real_differs(column, value))[1])
    memo = ChangedMemo(ROWS)
    shared = [make_reader(e, data=data).predict(ROWS, changed=memo).tolist() for e in explanations]
    # by hand (case (0, 5, 1); rows change a, b, both): SHAP 0.3 -> 0.1, -0.1, -0.3; LIME 0.2 -> 0.5, -0.05, 0.25;
    # Random 0.3 -> -0.2, 0.2, -0.3
    assert shared == alone == [[1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 1, 0]]
    assert sorted(converted) == ["a", "b"] and len(compared) == 2  # each column converted and compared once


def test_blocks_of_one_frame_compare_as_a_memo_of_each_block_alone():
    """``ChangedMemo.blocks``: each block answers as a memo of that block's own frame would, for numbers, missing
    values, booleans and text, and its ``rows`` are that block's rows."""
    frame = pd.DataFrame({"n": [1.0, np.nan, 2.0, 2.0 + 1e-12, 3.0, np.nan], "i": [1, 2, 2, 3, 2, 1],
                          "b": [True, False, True, True, False, False],
                          "t": pd.Series(["x", None, "y", "x", "x", "y"], dtype="str")})
    blocks = ChangedMemo.blocks(frame, 4)
    assert [len(m.rows) for m in blocks] == [4, 2]
    assert blocks[0]("n", 2.0).tolist() == [True, True, False, False]  # 2 + 1e-12 is 2; missing differs
    assert blocks[1]("t", None).tolist() == [True, True]
    for k, memo in enumerate(blocks):
        alone = frame.iloc[4 * k:4 * k + 4].reset_index(drop=True)
        pd.testing.assert_frame_equal(memo.rows, alone)
        for feature, value in [("n", 2.0), ("n", np.nan), ("i", 2), ("b", True), ("t", "x"), ("t", None)]:
            assert memo(feature, value).tolist() == readers._changed(alone[feature], value).tolist()
        assert memo.numbers("t") is None
        np.testing.assert_array_equal(memo.numbers("n"), alone["n"].to_numpy(dtype=float, na_value=np.nan))


def test_attribution_reader_against_the_explained_class(data):
    e = Explanation("LIME", 0, 0, 0.7, attributions={"a": -0.3, "b": 0.25})
    # class 0 at 0.7; a changed -> 0.7 + 0.3 = 1.0 -> 0; b changed -> 0.45 -> 1; both -> 0.75 -> 0
    assert make_reader(e, data=data).predict(ROWS).tolist() == [0, 0, 1, 0]


def test_rule_reader_answers_inside_the_rule_only(data):
    rule = Rule([Condition("a", "<=", 1.0, "a <= 1"), Condition("b", "<", 7.0, "b < 7")], 0.9, 0.3)
    e = Explanation("Anchor", 0, 1, 0.9, rule=rule)
    assert make_reader(e, data=data).predict(ROWS).tolist() == [1, -1, -1, -1]


def test_counterfactual_reader_follows_direction_and_distance(data):
    cf = Counterfactual({"a": (0.0, 2.0)}, 0.3, True, {"a": 2.0, "b": 5.0, "c": 1.0})
    e = Explanation("DiCE", 0, 1, 0.8, counterfactuals=[cf])
    # a moved from 0 to 3 (past 2) in rows 1 and 3 -> other class
    assert make_reader(e, data=data).predict(ROWS).tolist() == [1, 0, 1, 0]
    half = pd.DataFrame({"a": [1.0, -2.0], "b": [5.0, 5.0], "c": [1.0, 1.0]})
    assert make_reader(e, data=data).predict(half).tolist() == [1, 1]  # not far enough / wrong way


def test_reader_scores_and_accuracy():
    precision, coverage = reader_scores([1, -1, 0, 1], [1, 0, 1, 1])
    assert precision == pytest.approx(2 / 3) and coverage == 0.75
    assert reader_accuracy(precision, coverage) == pytest.approx(0.75 * 2 / 3 + 0.25 * 0.5)
    assert reader_accuracy(float("nan"), 0.0) == 0.5


def test_narrative_without_structure_cannot_be_read(data):
    with pytest.raises(ValueError, match="no attributions, rule or counterfactuals"):
        make_reader(Explanation("Narrative", 0, 1, 0.8, text="story"), data=data)


def test_neighbours_are_shared_and_seeded(data):
    a = reader_neighbours(data, 0, n=50, replace_share=0.3, random_state=7)
    b = reader_neighbours(data, 0, n=50, replace_share=0.3, random_state=7)
    pd.testing.assert_frame_equal(a, b)
    changed = (a != data.X_test.iloc[0]).to_numpy().mean()
    assert 0.05 < changed < 0.4  # a changed value needs a redraw (p = 0.3) that differs from the case


def test_named_features_is_what_is_shown():
    e = Explanation("SHAP", 0, 1, 0.8, attributions={"a": 0.1, "b": -0.5, "c": 0.0})
    assert named_features(e, feature_names=FEATURES, top_k=5) == ["b", "a"]  # zero attributions are not shown
    cfs = [Counterfactual({"b": (5, 6)}, 0.2, True, {}), Counterfactual({"a": (0, 1), "b": (5, 7)}, 0.2, True, {})]
    assert named_features(Explanation("DiCE", 0, 1, 0.8, counterfactuals=cfs), feature_names=FEATURES) == ["b", "a"]


def test_claim_scores_by_hand():
    # f(x) = 0.9, f(baseline) = 0.1: removing the named features -> 0.3; keeping only them -> 0.7
    assert claim_comprehensiveness([0.9], [0.3], [0.1], min_gap=0.05)[0] == pytest.approx(0.75)
    assert claim_sufficiency([0.7], [0.1], [0.9], min_gap=0.05)[0] == pytest.approx(0.75)
    assert np.isnan(claim_sufficiency([0.7], [0.88], [0.9], min_gap=0.05)[0])


def test_attribution_reader_reads_log_odds_on_their_scale(data):
    # p = 0.8 -> logit 1.386; b changed loses 1.0 -> 0.386 >= 0 -> class 1; a and b changed: -0.114 -> 0
    e = Explanation("SHAP", 0, 1, 0.8, attributions={"a": 0.5, "b": 1.0}, extra={"output": "log-odds"})
    assert make_reader(e, data=data).predict(ROWS).tolist() == [1, 1, 1, 0]


def test_randomisation_similarity_of_rules_and_counterfactuals():
    def rule(*conds):
        return Explanation("Anchor", 0, 1, 0.9, rule=Rule([Condition(f, op, v, "") for f, op, v in conds], 0.9, 0.2))

    # {(a, above), (b, below)} vs {(a, above), (c, equal)}: 1 shared of 3
    assert explanation_similarity(rule(("a", ">", 1), ("b", "<=", 2)), rule(("a", ">=", 3), ("c", "=", 1)),
                                  FEATURES) == pytest.approx(1 / 3)
    assert explanation_similarity(rule(("a", ">", 1)), rule(("a", "<", 1)), FEATURES) == 0.0  # direction differs

    def cfs(*sets):
        return Explanation("DiCE", 0, 1, 0.9, counterfactuals=[Counterfactual({f: (0, 1) for f in s}, 0.2, True, {})
                                                               for s in sets])

    assert explanation_similarity(cfs({"a"}, {"b"}), cfs({"a", "c"}), FEATURES) == pytest.approx(1 / 3)
    assert explanation_similarity(cfs(), cfs(), FEATURES) == 1.0


def test_neighbourhoods_take_each_value_from_the_drawn_training_row_or_the_case():
    """Oracle: redraw the donors and the replace mask from the case's seed; every cell is the donor's
    training value where replaced and the case's value elsewhere, with the training column's dtype."""
    from hexeval_engine.metrics.masking import instance_rng
    from hexeval_engine.metrics.readers import reader_neighbourhoods

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"num": rng.normal(size=40).round(2), "count": rng.integers(0, 9, 40),
                      "kind": pd.array(rng.choice(["red", "green", "blue"], 40), dtype="str")})
    X.loc[[5, 31], "num"] = np.nan
    data = _dataset(X, pd.Series([0, 1] * 20, name="y"), ["kind"], n_train=30)
    ids = [0, 1, 3, 1]
    many = reader_neighbourhoods(data, ids, n=60, replace_share=0.4, random_state=11)
    assert sorted(many) == [0, 1, 3]
    train, features = data.X_train.reset_index(drop=True), list(data.feature_names)
    for iid in (0, 1, 3):
        hood = many[iid]
        pd.testing.assert_frame_equal(hood, reader_neighbours(data, iid, n=60, replace_share=0.4, random_state=11))
        draw = instance_rng(11, iid, "reader")
        donors = draw.integers(0, len(train), size=(60, len(features)))
        replace = draw.random((60, len(features))) < 0.4
        case = data.X_test.iloc[iid]
        for j, f in enumerate(features):
            assert hood[f].dtype == train[f].dtype
            expected = [train[f].iloc[d] if r else case[f] for d, r in zip(donors[:, j], replace[:, j])]
            got = hood[f].tolist()
            assert all((pd.isna(e) and pd.isna(g)) or e == g for e, g in zip(expected, got)), f
        assert replace.any() and (~replace).any()


def test_neighbourhoods_of_many_cases_copy_the_training_rows_once(monkeypatch):
    """The training rows are pooled once for every case (a copy per case cost ~1 ms on credit risk's 25,926)."""
    from hexeval_engine.metrics import readers

    rng = np.random.default_rng(4)
    X = pd.DataFrame({"num": rng.normal(size=40), "kind": pd.array(rng.choice(["x", "y"], 40), dtype="str")})
    data = _dataset(X, pd.Series([0, 1] * 20, name="y"), ["kind"], n_train=30)
    concatenated = []
    real = pd.concat

    def counting(frames, *args, **kwargs):
        frames = list(frames)
        concatenated.append(sum(len(f) for f in frames))
        return real(frames, *args, **kwargs)

    monkeypatch.setattr(readers.pd, "concat", counting)
    hoods = readers.reader_neighbourhoods(data, [0, 2, 5, 2], n=20, replace_share=0.5, random_state=3)
    assert sorted(hoods) == [0, 2, 5]
    assert concatenated == [30 + 3]  # one pool: the training rows and the three distinct cases
