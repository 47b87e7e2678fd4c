"""The question skills' faster paths give the numbers of the plain ones (issue 32's speed acceptance).

Each test computes the same thing the simple way (one ``rng.choice`` call per draw, every job measured on its
own, readers scored one by one, a ladder step by step with numpy, action rows written through objects, numpy's
mean) and checks the faster path gives exactly the same values, bit for bit.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from metrics_synthetic import linear_case, mixed_case

from hexeval_engine.config.loader import validate_config
from hexeval_engine.explanation import Condition, Counterfactual, Explanation, Rule
from hexeval_engine.metrics import masking
from hexeval_engine.metrics.masking import sorted_choices
from hexeval_engine.metrics.questions import question_skills
from hexeval_engine.metrics.questions import how_to_change, skills
from hexeval_engine.metrics.questions.how_to_change import ActionSpace, _Rows
from hexeval_engine.metrics.questions.rows import RowPool
from hexeval_engine.metrics.questions.strata import Groups
from hexeval_engine.metrics.questions.what_if import what_if_skill, what_if_skills
from hexeval_engine.metrics.questions.will_it_hold import will_it_hold_skill, will_it_hold_skills

CONFIG = validate_config({})


def _one_by_one(rng, n, m, draws):
    return np.array([sorted(rng.choice(n, size=m, replace=False).tolist()) for _ in range(draws)],
                    dtype=np.int64).reshape(draws, m)


@pytest.mark.parametrize("n, m", [(1, 1), (2, 1), (2, 2), (5, 3), (13, 1), (13, 2), (13, 5), (13, 13), (40, 7),
                                  (10_000, 9), (20_000, 3), (3_000_000_000, 4), (2 ** 33 + 5, 3)])
@pytest.mark.parametrize("seed", [0, 7, 123])
def test_sorted_choices_are_successive_choice_calls(n, m, seed):
    # the large populations draw bounds where most 32-bit draws are rejected (and one past 32 bits)
    mine, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    for draws in (1, 24, 5):  # several batches in a row: each leaves the generator where the calls leave it
        got = sorted_choices(mine, n, m, draws)
        assert got.dtype == np.int64 and got.shape == (draws, m)
        assert np.array_equal(got, _one_by_one(theirs, n, m, draws))
    assert mine.random() == theirs.random()


@pytest.mark.parametrize("n, m", [(20_000, 500), (13, 0), (0, 0)])
def test_sorted_choices_where_choice_shuffles_the_population_or_takes_nothing(n, m):
    mine, theirs = np.random.default_rng(4), np.random.default_rng(4)
    assert np.array_equal(sorted_choices(mine, n, m, 6), _one_by_one(theirs, n, m, 6))
    assert mine.random() == theirs.random()


def test_sorted_choices_when_this_numpy_would_draw_differently(monkeypatch):
    monkeypatch.setattr(masking, "_same_as_choice", lambda: False)
    mine, theirs = np.random.default_rng(9), np.random.default_rng(9)
    assert np.array_equal(sorted_choices(mine, 13, 4, 24), _one_by_one(theirs, 13, 4, 24))
    assert mine.random() == theirs.random()
    with pytest.raises(ValueError):
        sorted_choices(mine, 3, 4, 1)


def test_the_batched_draw_is_checked_against_this_numpy():
    assert masking._same_as_choice()


class _EveryJob(skills._Once):
    """The plain way: every job measured on its own."""

    def __init__(self, jobs):
        self.reads = self.measured = list(range(len(jobs)))
        self.at = {j: j for j in self.measured}


def _mixed_explanations(case, ids):
    """Per case: SHAP, LIME-like and Random attributions (4 features each), and on some cases a rule of one
    feature or counterfactuals of one change, so those cases' attributions are cut to 1 and the others not."""
    data, model = case.data, case.model
    proba = model.predict_proba(data.X_test.iloc[ids])
    rng = np.random.default_rng(11)
    features = list(data.feature_names)
    out = []
    for i, p in zip(ids, proba):
        c = int(p[1] >= 0.5)
        for method in ("SHAP", "LIME", "Random"):
            out.append(Explanation(method, i, c, float(p[c]),
                                   attributions=dict(zip(features, rng.normal(scale=0.2, size=len(features))))))
        row = data.X_test.iloc[i]
        if i % 3 == 0:
            out.append(Explanation("Anchor", i, c, float(p[c]), rule=Rule(
                [Condition("income", "<=" if c else ">", float(row["income"]) + (1 if c else -1), "")], 0.9, 0.2)))
        if i % 4 == 0:
            out.append(Explanation("DiCE", i, c, float(p[c]), counterfactuals=[
                Counterfactual({"income": (float(row["income"]), float(row["income"]) + 25.0)}, 1 - float(p[c]),
                               True, {})]))
    return out


@pytest.mark.parametrize("make", [mixed_case, linear_case])
def test_a_job_read_once_for_both_sizes_gives_the_table_of_every_job_measured(monkeypatch, make):
    case = make()
    ids = list(range(14))
    if make is linear_case:  # no income column: a rule and a counterfactual on x0
        explanations = [Explanation(m, i, 1, 0.7, attributions={f"x{j}": 0.1 * (j - 2) * (1 + i % 3)
                                                                  for j in range(6)})
                        for i in ids for m in ("SHAP", "Random")]
        explanations += [Explanation("Anchor", i, 1, 0.7, rule=Rule([Condition("x0", ">", 0.0, "")], 0.9, 0.3))
                         for i in ids[::2]]
    else:
        explanations = _mixed_explanations(case, ids)
    fast = question_skills(case.model, case.data, explanations, CONFIG, random_state=5)
    monkeypatch.setattr(skills, "_Once", _EveryJob)
    plain = question_skills(case.model, case.data, explanations, CONFIG, random_state=5)
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)
    assert fast.attrs["reasons"] == plain.attrs["reasons"]
    assert fast["value"].notna().sum() > len(fast) // 2


def _neighbours_of_a_case(seed, groups_with_both=True):
    rng = np.random.default_rng(seed)
    keeps = rng.random(250) < 0.7
    strata = rng.integers(0, 9 if groups_with_both else 1, 250)
    if not groups_with_both:
        keeps[:] = True
    return keeps, Groups(keeps, strata)


@pytest.mark.parametrize("seed", range(6))
def test_readers_of_a_case_scored_together_score_as_each_alone(seed):
    keeps, groups = _neighbours_of_a_case(seed, groups_with_both=seed != 5)
    rng = np.random.default_rng(100 + seed)
    expected = rng.integers(-1, 2, size=(7, 250))  # 1 keeps, 0 flips, -1 abstains
    expected[0] = 1  # "it always stays"
    regions = rng.random((7, 250)) < np.linspace(0.0, 1.0, 7)[:, None]  # from an empty claim to every neighbour
    for row, together in zip(expected, what_if_skills(expected, keeps, groups)):
        alone = what_if_skill(row, keeps, groups)
        assert _bits(together) == _bits(alone)
    for row, together in zip(regions, will_it_hold_skills(regions, keeps, groups)):
        alone = will_it_hold_skill(row, keeps, groups)
        assert _bits(together) == _bits(alone)


def _bits(values):
    """Values compared bit for bit (NaN equal to NaN), reasons as they are."""
    return [np.float64(v).tobytes() if isinstance(v, float) else v for v in values]


def _level(space, feature, value):
    """The training quantile of ``value`` by numpy's search (the plain way)."""
    values = space.sorted[feature]
    if not len(values) or not np.isfinite(value):
        return 0.5
    below = np.searchsorted(values, value, side="left")
    upto = np.searchsorted(values, value, side="right")
    return float((below + upto) / 2 / len(values))


def _ladder_step_by_step(space, feature, value, direction):
    """The ladder as one step at a time works it out with numpy (the plain way)."""
    values = space.sorted[feature]
    start = _level(space, feature, float(value))
    far = 1.0 if direction > 0 else 0.0
    out = []
    for t in range(1, space.steps + 1):
        target = start + (far - start) * t / space.steps
        position = min(max(int(np.ceil(target * len(values))) - 1, 0), len(values) - 1)
        out.append((float(values[position]), abs(target - start)))
    return out


@pytest.mark.parametrize("steps", [1, 3, 5, 7])
def test_a_ladder_worked_out_at_once_is_the_ladder_step_by_step(steps):
    case = mixed_case(n=300, seed=steps)
    space = ActionSpace(case.data, {}, steps=steps)
    for feature in ("income", "age", "rate"):
        train = case.data.X_train[feature]
        for value in [train.min(), train.max(), train.median(), *train.sample(12, random_state=steps)]:
            for direction in (1, -1):
                assert space.ladder(feature, value, direction) == _ladder_step_by_step(space, feature, value,
                                                                                       direction)
        for value in [*train.sample(20, random_state=1), train.min() - 1, train.max() + 1, 0.1, np.nan, np.inf]:
            assert space.level(feature, float(value)) == _level(space, feature, float(value))


def _frame_through_objects(rows, pool):
    """Action rows as every column through objects makes them (the plain way)."""
    case_rows = pool.train_rows + np.asarray(rows.owner, dtype=np.intp)
    frame = pool.compose(np.broadcast_to(case_rows[:, None], (len(case_rows), len(pool.features))))
    for f, (where, values) in rows.writes.items():
        column = frame[f].to_numpy(dtype=object, copy=True)
        column[np.asarray(where)] = values
        frame[f] = pd.Series(column).astype(frame[f].dtype)
    return frame


def test_action_rows_written_into_number_columns_are_the_rows_written_through_objects():
    case = mixed_case(n=200)
    train = case.data.X_train.assign(code=lambda x: (x["age"] % 3).astype("int64"),
                                     small=lambda x: x["rate"].astype("float32"))
    data = SimpleNamespace(feature_names=list(train.columns), X_train=train)
    pool = RowPool(data, case.data.X_test.iloc[:3].assign(
        code=lambda x: (x["age"] % 3).astype("int64"), small=lambda x: x["rate"].astype("float32")))
    rows = _Rows()
    rows.add_steps(0, {"income": [1.5, -2.25, 0.0, -0.0, 1e9], "age": [30.0, 41.7, -3.2, 18.0, 2.0 ** 40],
                       "code": ["1", "2", "0", "1", "2"]}, [0.1] * 5)  # a category's labels into its number column
    rows.add(2, {"grade": "B", "rate": float("nan"), "small": 0.1}, 1.0)
    rows.add(1, {"age": np.int64(35), "income": 50, "code": 2}, 1.0)  # shown values of other types
    rows.add_steps(1, {"rate": [np.inf, -np.inf, 2.5, 3.0, 4.0], "grade": ["A", "C", "D", "A", "B"],
                       "small": [1e-8, 2.5, 3.0, 4.0, 5.0]}, [0.2] * 5)
    fast = rows.frame(pool)
    plain = _frame_through_objects(rows, pool)
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)
    assert [fast[f].dtype for f in ("age", "code", "income", "small")] == [np.int64, np.int64, np.float64,
                                                                         np.float32]
    written = [0, 1, 2, 3, 4, 6]  # row 5 is case 2's, with its own age and code
    assert fast["age"][written].tolist() == [30, 41, -3, 18, 2 ** 40, 35]
    assert fast["code"][written].tolist() == [1, 2, 0, 1, 2, 2]


def test_a_short_mean_is_numpys_mean():
    rng = np.random.default_rng(3)
    for _ in range(3000):
        n = int(rng.integers(1, 20))
        values = (rng.random(n) * rng.choice([1.0, 1e-8, 1e8, -1.0, -1e5], n)).tolist()
        if rng.random() < 0.3:
            values[int(rng.integers(0, n))] = -0.0
        if rng.random() < 0.05:
            values = [-0.0] * n
        if rng.random() < 0.05:
            values[0] = float(rng.choice([np.inf, -np.inf, np.nan]))
        for v in (values, [x > 0 for x in values], [int(x * 10) for x in values if np.isfinite(x)] or [0]):
            assert np.float64(how_to_change._mean(v)).tobytes() == np.float64(np.mean(v)).tobytes(), v
        shares = rng.random(int(rng.integers(1, 60))) < 0.3  # a share of random actions: a count over any number
        assert sum(shares.tolist()) / len(shares) == np.mean(shares)


def test_the_pass_gives_the_rows_of_the_frame():
    case = mixed_case()
    explanations = _mixed_explanations(case, list(range(10)))
    explanations.append(Explanation("Narrative", 3, 1, 0.7, text="a story"))  # not measured: NaN with a reason
    config = validate_config({"evaluation": {"random_state": 8}})
    rows = skills.question_pass(case.model, case.data, explanations, config)
    frame = question_skills(case.model, case.data, explanations, config, random_state=8)
    expected = list(frame.itertuples(index=False, name=None))
    assert [tuple(map(type, r)) for r in rows] == [tuple(map(type, r)) for r in expected]
    assert [(m, i, k, np.float64(v).tobytes(), d) for m, i, k, v, d in rows] == \
        [(m, i, k, np.float64(v).tobytes(), d) for m, i, k, v, d in expected]
