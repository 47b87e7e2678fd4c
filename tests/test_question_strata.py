"""``questions.strata``: the groups of neighbours that changed as many features, checked against a group-by-group count."""

import numpy as np
import pytest

from hexeval_engine.metrics.questions.strata import NO_FLIP, NO_GROUP, NO_KEEP, Groups, stratified


def _by_hand(keeps, strata, values):
    """Per group holding both answers (in sorted order): its weight kept * flipped / n and the means of ``values``
    over its kept and its flipped rows, from plain loops."""
    out = []
    for g in sorted(set(strata)):
        rows = [i for i, s in enumerate(strata) if s == g]
        kept = [values[i] for i in rows if keeps[i]]
        flipped = [values[i] for i in rows if not keeps[i]]
        if kept and flipped:
            out.append((len(kept) * len(flipped) / len(rows), sum(kept) / len(kept), sum(flipped) / len(flipped)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_groups_weigh_and_average_each_group_as_counted_by_hand(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    strata = rng.integers(0, 7, size=n) * 5 + rng.integers(0, 3, size=n)
    keeps = rng.random(n) < 0.6
    keeps[0], keeps[1] = True, False  # both answers somewhere
    values = rng.integers(0, 3, size=n) / 2
    groups = Groups(keeps, strata)
    expected = _by_hand(keeps.tolist(), strata.tolist(), values.tolist())
    assert groups.weights == pytest.approx([w for w, _, _ in expected], abs=0, rel=0)
    kept, flipped = groups.means(values)
    assert kept.tolist() == [k for _, k, _ in expected] and flipped.tolist() == [f for _, _, f in expected]
    value, reason = stratified(keeps, strata, lambda g: g.means(values)[0] - g.means(values)[1])
    if expected:
        assert reason is None
        assert value == pytest.approx(sum(w * (k - f) for w, k, f in expected) / sum(w for w, _, _ in expected))
    else:
        assert reason == NO_GROUP and np.isnan(value)


def test_groups_say_why_nothing_can_be_told():
    assert Groups([True, True], [0, 1]).reason == NO_FLIP
    assert Groups([False, False], [0, 0]).reason == NO_KEEP
    assert Groups([True, False], [0, 1]).reason == NO_GROUP  # each group holds one answer only


def test_groups_of_every_block_at_once_are_each_blocks_groups_alone():
    """``change_groups_of_blocks``: the groups and the comparisons each memo keeps are those of each block read
    alone (numbers, integers, booleans, text; a missing case value)."""
    import pandas as pd

    from hexeval_engine.metrics.questions.strata import change_groups, change_groups_of_blocks
    from hexeval_engine.metrics.readers import ChangedMemo

    rng = np.random.default_rng(3)
    n = 12
    frame = pd.DataFrame({"x": rng.choice([0.5, 1.0, np.nan, 2.0], size=3 * n), "i": rng.integers(0, 4, size=3 * n),
                          "b": rng.random(3 * n) < 0.5,
                          "t": pd.Series(rng.choice(["p", "q", None], size=3 * n), dtype="str")})
    cases = [{"x": 1.0, "i": 2, "b": True, "t": "p"}, {"x": np.nan, "i": 0, "b": False, "t": None},
             {"x": 2.0, "i": 3, "b": True, "t": "q"}]
    medians = {"x": 1.0, "i": 1.5}
    together = ChangedMemo.blocks(frame, n)
    groups = change_groups_of_blocks(cases, together, medians=medians)
    for k, (case, memo, got) in enumerate(zip(cases, together, groups)):
        alone = ChangedMemo(frame.iloc[k * n:(k + 1) * n].reset_index(drop=True))
        assert got.tolist() == change_groups(case, changed=alone, medians=medians).tolist()
        for feature in frame.columns:
            assert memo(feature, case[feature]).tolist() == alone(feature, case[feature]).tolist()
