"""DiCE on a column of long text labels works with short stand-ins and finds the same counterfactuals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from hexeval_engine import evaluate
from hexeval_engine.explainers import dice_explainer

ONLY_DICE = {"evaluation": {"sample_size": 5, "sanity": {"randomisation_check": False},
                            "explainers": {"shap": {"enabled": False}, "lime": {"enabled": False},
                                           "anchor": {"enabled": False}, "dice": {"enabled": True, "max_instances": 5}}},
             "personas": {"enabled": False}}


@pytest.fixture(scope="module")
def long_text_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("long_labels")
    rng = np.random.default_rng(0)
    n = 160
    # labels of different lengths whose sort order is not their numeric order ("10 ..." < "2 ...")
    notes = np.array([f"{i} " + "x" * (300 + 37 * i) for i in range(25)])
    frame = pd.DataFrame({"age": rng.integers(20, 80, n), "colour": rng.choice(["red", "blue"], n),
                          "notes": notes[rng.integers(0, len(notes), n)]})
    frame["target"] = ((frame["age"] > 50) ^ (rng.random(n) < 0.2)).astype(int)
    csv = folder / "notes.csv"
    frame.to_csv(csv, index=False)
    pre = ColumnTransformer([("c", OneHotEncoder(handle_unknown="ignore"), ["colour", "notes"])], remainder="passthrough")
    model = Pipeline([("p", pre), ("m", LogisticRegression())]).fit(frame.drop(columns="target"), frame["target"])
    path = folder / "notes.skops"
    sio.dump(model, path)
    return path, csv, notes


def _counterfactual_rows(path, csv):
    result = evaluate(path, csv, "target", config_overrides=ONLY_DICE, save=False)
    explanations = [e for e in result.technical.explanations if e.method == "DiCE"]
    assert explanations and all(e.ok for e in explanations)
    return [[cf.row for cf in e.counterfactuals] for e in explanations]


def test_same_counterfactuals_with_and_without_stand_ins(long_text_files, monkeypatch):
    path, csv, notes = long_text_files
    with_stand_ins = _counterfactual_rows(path, csv)
    monkeypatch.setattr(dice_explainer, "STAND_IN_AFTER", 10**9)  # the oracle: DiCE on the labels themselves
    without = _counterfactual_rows(path, csv)
    assert with_stand_ins == without
    changed = {row["notes"] for rows in with_stand_ins for row in rows}
    assert changed and changed <= set(notes)  # real labels come back, never a stand-in


def test_stand_ins_keep_sort_and_first_appearance_order():
    labels = ["zeta " + "z" * 70, "10 " + "a" * 80, "2 " + "b" * 65, "short", "10 " + "a" * 80, "Alpha" + "q" * 99]
    train = pd.DataFrame({"notes": labels, "colour": ["red"] * 6})
    table = dice_explainer.stand_ins(train, ["notes", "colour"])
    assert list(table) == ["notes"]  # a column of short labels keeps its own
    short = [table["notes"][v] for v in labels]
    assert sorted(short) == [table["notes"][v] for v in sorted(labels)]
    assert list(pd.unique(pd.Series(short))) == [table["notes"][v] for v in pd.unique(pd.Series(labels))]
    assert len(set(short)) == len(set(labels)) and max(map(len, short)) <= 3
