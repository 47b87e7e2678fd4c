"""The forest fast path returns scikit-learn's own ``predict_proba`` (n_jobs=1) bit for bit."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier, RandomForestClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from hexeval_engine.models import fast_forest
from hexeval_engine.models.model_loading import load_model

ROOT = Path(__file__).resolve().parents[1]
HEART = ROOT / "usecases" / "heart"


def _random_rows(rng, n, columns):
    # float64 values with many digits: the float32 cast decides which side of a threshold some fall on
    return pd.DataFrame(rng.normal(size=(n, len(columns))) * 10 ** rng.uniform(-3, 3, len(columns)),
                        columns=columns)


@pytest.fixture(scope="module")
def heart_model():
    if not (HEART / "model.skops").exists():
        pytest.skip("bundled models not prepared (python -m hexeval_engine prepare)")
    return load_model(HEART / "model.skops")


def test_heart_pipeline_is_bit_identical_on_its_data_and_on_random_rows(heart_model):
    est = heart_model.estimator
    assert fast_forest.is_plain_forest(est.steps[-1][1])
    data = pd.read_csv(HEART / "data.csv").drop(columns="target")
    assert np.array_equal(fast_forest.predict_proba(est, data), est.predict_proba(data))
    rng = np.random.default_rng(3)
    shuffled = data.apply(lambda col: rng.permutation(col.to_numpy()))  # unseen combinations of real values
    assert np.array_equal(fast_forest.predict_proba(est, shuffled), est.predict_proba(shuffled))
    one = data.iloc[[7]]
    assert np.array_equal(fast_forest.predict_proba(est, one), est.predict_proba(one))


def test_the_wrapper_uses_the_fast_path_and_answers_as_before(heart_model):
    data = pd.read_csv(HEART / "data.csv").drop(columns="target").iloc[:50]
    expected = heart_model.estimator.predict_proba(data)
    got = heart_model.predict_proba(data)
    column = heart_model.positive_index
    assert np.array_equal(got[:, 1], expected[:, column])


@pytest.mark.parametrize("forest_type", [RandomForestClassifier, ExtraTreesClassifier])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("piped", [False, True])
def test_random_forests_bare_and_in_a_pipeline(forest_type, n_classes, piped):
    rng = np.random.default_rng(n_classes)
    columns = [f"x{i}" for i in range(6)]
    X = _random_rows(rng, 400, columns)
    y = (X["x0"] * 3 + X["x1"] - X["x2"] > 0).astype(int) + (n_classes == 3) * (X["x3"] > 0)
    forest = forest_type(n_estimators=37, max_depth=None, random_state=0, n_jobs=1)
    est = Pipeline([("scale", StandardScaler()), ("skip", "passthrough"), ("forest", forest)]) if piped else forest
    est.fit(X, y)
    new = _random_rows(rng, 250, columns)
    assert np.array_equal(fast_forest.predict_proba(est, new), est.predict_proba(new))
    as_array = new.to_numpy(np.float64)
    if not piped:  # a bare forest fitted on a frame also takes the plain array scikit-learn accepts
        with pytest.warns(UserWarning):
            reference = est.predict_proba(as_array)
        with pytest.warns(UserWarning):
            assert np.array_equal(fast_forest.predict_proba(est, as_array), reference)


def test_float32_cast_matches_scikit_learn():
    # a value that float32 rounds across the split threshold: the fast path must cast as scikit-learn does
    X = np.array([[0.0], [1.0], [2.0], [3.0]] * 10)
    y = np.array([0, 0, 1, 1] * 10)
    forest = RandomForestClassifier(n_estimators=15, random_state=1, bootstrap=False).fit(X, y)
    threshold = forest.estimators_[0].tree_.threshold[0]
    near = np.array([[threshold + d] for d in (-1e-9, -1e-12, 0.0, 1e-12, 1e-9, 1e-7)])
    assert np.array_equal(fast_forest.predict_proba(forest, near), forest.predict_proba(near))
    # the case bites: some value lies above the threshold in float64 but not once cast to float32
    flips = (near[:, 0] > threshold) & (near.astype(np.float32)[:, 0] <= threshold)
    assert flips.any()


def test_bad_input_raises_scikit_learns_own_error():
    X = np.random.default_rng(0).normal(size=(50, 3))
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, X[:, 0] > 0)
    with pytest.raises(ValueError, match="features"):
        fast_forest.predict_proba(forest, X[:, :2])
    with pytest.raises(ValueError):
        fast_forest.predict_proba(forest, np.full((2, 3), np.inf))


class _OwnForest(RandomForestClassifier):
    def predict_proba(self, X):
        return np.full((len(X), 2), 0.5)


def test_other_estimators_keep_their_own_predict_proba():
    X = np.random.default_rng(1).normal(size=(60, 3))
    y = X[:, 0] > 0
    own = _OwnForest(n_estimators=3, random_state=0).fit(X, y)
    assert not fast_forest.is_plain_forest(own)
    assert np.array_equal(fast_forest.predict_proba(own, X), np.full((60, 2), 0.5))
    boosted = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert not fast_forest.is_plain_forest(boosted)
    assert np.array_equal(fast_forest.predict_proba(boosted, X), boosted.predict_proba(X))
    multi = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, np.column_stack([y, ~y]))
    assert not fast_forest.is_plain_forest(multi)
