"""Explanation calls hash their rows together (runtime.parallel.hash_rows_together): each call gets the hashes it
would get alone, so a call is found again and a stored case keeps its key."""

from __future__ import annotations

import numpy as np
import pandas as pd

from hexeval_engine.runtime.parallel import ExplainJob, hash_rows_together


def _job(frame: pd.DataFrame, method: str = "LIME", first_id: int = 0) -> ExplainJob:
    n = len(frame)
    return ExplainJob(method, frame, list(range(first_id, first_id + n)), np.zeros(n, dtype=int), np.full(n, 0.5),
                      list(range(100, 100 + n)))


def _frame(rng, n: int, *, categories=("a", "b", "c")) -> pd.DataFrame:
    return pd.DataFrame({
        "age": rng.integers(20, 80, n),
        "chol": np.where(rng.random(n) < 0.2, np.nan, rng.normal(240, 40, n)),
        "sex": pd.Categorical(rng.choice(list(categories), n), categories=list(categories)),
        "note": pd.array(rng.choice(["x", "yy", None], n), dtype="string"),
        "flag": rng.random(n) < 0.5,
    })


def _alone(frame: pd.DataFrame) -> np.ndarray:
    """The oracle: pandas' own row hashes of this frame by itself."""
    return pd.util.hash_pandas_object(frame, index=False).to_numpy()


def test_rows_hashed_together_get_the_hashes_each_job_gets_alone_across_layouts():
    rng = np.random.default_rng(7)
    frames = [_frame(rng, n) for n in (1, 4, 9)]
    frames.append(_frame(rng, 3, categories=("a", "b", "c", "d")))  # other categories: another dtype
    frames.append(frames[1].iloc[::-1].reset_index(drop=True))  # the same rows in another order
    frames.append(pd.DataFrame({"x": rng.normal(size=5), "y": rng.integers(0, 3, 5)}))  # other columns, alone
    frames.append(frames[0].iloc[:0])  # no rows
    jobs = [_job(f) for f in frames]
    hash_rows_together(jobs)
    for frame, job in zip(frames, jobs):
        assert np.array_equal(job.row_hashes(), _alone(frame))
    # and the calls' keys are those of jobs that hashed their own rows
    assert [j.key() for j in jobs] == [_job(f).key() for f in frames]


def test_a_job_cut_from_another_keeps_the_hashes_of_its_rows():
    rng = np.random.default_rng(3)
    frame = _frame(rng, 8)
    job = _job(frame, "Anchor")
    hash_rows_together([job, _job(_frame(rng, 2), "Anchor")])
    part = job.cut([5, 1, 6])
    assert part.ids == [5, 1, 6] and part.seeds == [105, 101, 106]
    assert np.array_equal(part.row_hashes(), _alone(frame.iloc[[5, 1, 6]].reset_index(drop=True)))
    rows = frame.iloc[[5, 1, 6]].reset_index(drop=True)
    alone = ExplainJob("Anchor", rows, [5, 1, 6], np.zeros(3, dtype=int), np.full(3, 0.5), [105, 101, 106])
    assert part.key() == alone.key()
    # different values, different hashes: the key tells the rows apart
    changed = frame.copy()
    changed.loc[2, "age"] += 1
    other = _job(changed)
    assert other.key() != _job(frame).key()
    assert (other.row_hashes() != _job(frame).row_hashes()).sum() == 1
