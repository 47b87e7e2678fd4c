"""The preprocessing fast path returns scikit-learn's own ``transform`` bit for bit, or steps aside."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, OrdinalEncoder, StandardScaler

from hexeval_engine.models import fast_preprocess
from hexeval_engine.models.model_loading import load_model
from hexeval_engine.models.model_wrapper import HexevalModel

ROOT = Path(__file__).resolve().parents[1]
HEART, CREDIT = ROOT / "usecases" / "heart", ROOT / "usecases" / "credit_risk"
HEART_CATEGORICAL = ["sex", "cp", "fbs", "restecg", "exang", "slope", "thal"]
HEART_NUMERIC = ["age", "trestbps", "chol", "thalach", "oldpeak", "ca"]


def _prepared(folder):
    if not (folder / "model.skops").exists():
        pytest.skip("bundled models not prepared (python -m hexeval_engine prepare)")
    return load_model(folder / "model.skops")


def _heart_rows():
    return pd.read_csv(HEART / "data.csv").drop(columns="target")


def _credit_rows():
    return pd.read_csv(CREDIT / "data.csv").drop(columns="loan_status")


def _heart_lr():
    data = _heart_rows()
    y = pd.read_csv(HEART / "data.csv")["target"]
    pre = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), HEART_CATEGORICAL),
                             ("num", StandardScaler(), HEART_NUMERIC)])
    return Pipeline([("pre", pre), ("lr", LogisticRegression(max_iter=1000))]).fit(data, y)


def _assert_exact(pipeline, X):
    """The fast matrix equals scikit-learn's (values, dtype, shape) and so do the estimator's answers."""
    final, Z = fast_preprocess.estimator_input(pipeline, X)
    expected = pipeline[:-1].transform(X)
    assert isinstance(Z, np.ndarray) and Z.dtype == expected.dtype and Z.shape == expected.shape
    assert np.array_equal(Z, expected, equal_nan=True)
    assert (Z.flags.c_contiguous, Z.flags.f_contiguous) == (expected.flags.c_contiguous, expected.flags.f_contiguous)
    assert final is pipeline.steps[-1][1]
    assert np.array_equal(final.predict_proba(Z), pipeline.predict_proba(X))


def _variants(rows, rng):
    """The rows, their values shuffled per column (unseen combinations), one row, rows in another order."""
    shuffled = rows.apply(lambda col: rng.permutation(col.to_numpy()))
    return [rows, shuffled, rows.iloc[[7]], rows.iloc[rng.permutation(len(rows))]]


@pytest.mark.parametrize("which", ["heart_lr", "heart_forest", "credit_xgboost"])
def test_bundled_and_uploaded_pipelines_are_bit_identical(which):
    if which == "heart_lr":
        pipeline, rows = _heart_lr(), _heart_rows()
    elif which == "heart_forest":
        pipeline, rows = _prepared(HEART).estimator, _heart_rows()
    else:
        pipeline, rows = _prepared(CREDIT).estimator, _credit_rows().iloc[:3000]
    assert rows.isna().any().any() == (which == "credit_xgboost")  # credit's imputer sees real NaNs
    for X in _variants(rows, np.random.default_rng(5)):
        _assert_exact(pipeline, X)


def test_unseen_categories_give_zero_rows_like_scikit_learn():
    heart = _heart_lr()
    X = _heart_rows().iloc[:40].copy()
    X.loc[X.index[:5], "cp"] = 9  # a chest-pain code the encoder never saw
    _assert_exact(heart, X)
    credit = _prepared(CREDIT).estimator
    rows = _credit_rows().iloc[:40].copy()
    rows.loc[rows.index[:3], "loan_grade"] = "Z"
    _assert_exact(credit, rows)


def test_mixed_dtypes_give_the_same_matrix():
    heart = _heart_lr()
    X = _heart_rows().iloc[:60].astype({"age": "float64", "cp": "float64", "chol": "int32", "sex": "int16"})
    _assert_exact(heart, X)


def test_missing_values_in_a_text_column_are_unknown_categories():
    credit = _prepared(CREDIT).estimator
    rows = _credit_rows().iloc[:50].copy()
    rows.loc[rows.index[:4], "loan_intent"] = np.nan
    _assert_exact(credit, rows)


def _mixed_frame(rng, n):
    return pd.DataFrame({
        "colour": rng.choice(["red", "green", "blue"], n),
        "size": rng.choice([1, 2, 3, 5], n),
        "grade": rng.choice(["a", "b", "c"], n),
        "x": rng.normal(size=n) * 1e3,
        "y": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
        "z": rng.integers(-5, 5, n),
        "dropped": rng.normal(size=n),
        "rest": rng.normal(size=n),
    })


def _mixed_pipeline(rng, *, remainder="passthrough"):
    X = _mixed_frame(rng, 300)
    pre = ColumnTransformer([
        ("onehot", OneHotEncoder(handle_unknown="error"), ["colour", "size"]),
        ("ordinal", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), ["grade"]),
        ("scale", StandardScaler(), ["x", "z"]),
        ("impute", SimpleImputer(strategy="mean"), ["y"]),
        ("through", "passthrough", ["z"]),
        ("gone", "drop", ["dropped"]),
    ], remainder=remainder)
    y = (X["x"] > 0).astype(int)
    return Pipeline([("pre", pre), ("lr", LogisticRegression())]).fit(X, y), X


def test_every_supported_step_in_one_column_transformer():
    rng = np.random.default_rng(11)
    pipeline, X = _mixed_pipeline(rng)
    for rows in _variants(_mixed_frame(rng, 200), rng):
        _assert_exact(pipeline, rows)
    drop_rest, _ = _mixed_pipeline(rng, remainder="drop")
    _assert_exact(drop_rest, X)
    unseen_grade = X.iloc[:20].copy()
    unseen_grade.loc[unseen_grade.index[:3], "grade"] = "z"  # use_encoded_value: -1
    _assert_exact(pipeline, unseen_grade)


def test_an_unknown_category_under_error_goes_to_scikit_learn_which_raises():
    rng = np.random.default_rng(2)
    pipeline, X = _mixed_pipeline(rng)
    bad = X.iloc[:10].copy()
    bad.loc[bad.index[0], "colour"] = "purple"
    assert fast_preprocess.estimator_input(pipeline, bad) is None
    model = HexevalModel.from_artefact(pipeline)
    with pytest.raises(ValueError, match="unknown categories"):
        model.predict_proba(bad)


@pytest.mark.parametrize("after", [
    [("scale", StandardScaler())],
    [("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())],
    [("skip", "passthrough"), ("impute", SimpleImputer()), ("none", None), ("scale", StandardScaler(with_mean=False))],
    [("codes", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)),
     ("onehot", OneHotEncoder(sparse_output=False, handle_unknown="ignore"))],
])
def test_steps_after_a_column_transformer_one_after_another(after):
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.integers(0, 9, 200),
                      "c": np.where(rng.random(200) < 0.3, np.nan, rng.normal(size=200))})
    first = ColumnTransformer([("keep", "passthrough", ["a", "b", "c"])])
    if not any(isinstance(s, SimpleImputer) for _, s in after):
        X["c"] = X["c"].fillna(0.5)
    if any(isinstance(s, OrdinalEncoder) for _, s in after):
        X = X.round(0)
    pipeline = Pipeline([("first", first)] + after + [("lr", LogisticRegression())])
    pipeline.fit(X, (X["a"] > 0).astype(int))
    _assert_exact(pipeline, X.iloc[::-1])


def _frames_of_every_layout(rng):
    """The same numbers as DataFrames pandas lays out differently (one block in either order, one block per
    column, integer columns beside floats), and a slice with a stride."""
    values = rng.normal(size=(120, 6)).round(3)
    names = [f"m{i}" for i in range(6)]
    one_block = pd.DataFrame(values, columns=names)
    by_column = pd.DataFrame({n: values[:, j].copy() for j, n in enumerate(names)})
    row_major = pd.DataFrame(np.ascontiguousarray(values), columns=names, copy=False)
    with_ints = one_block.assign(m1=rng.integers(0, 9, 120), m4=rng.integers(-3, 3, 120).astype("int32"))
    return [one_block, by_column, row_major, with_ints, one_block.iloc[::-3], with_ints.iloc[[5]]]


@pytest.mark.parametrize("steps", [
    [("scale", StandardScaler())],
    [("impute", SimpleImputer(strategy="median"))],
    [("impute", SimpleImputer()), ("scale", StandardScaler(with_mean=False))],
])
def test_a_whole_dataframe_given_to_a_scaler_or_imputer_gives_scikit_learns_matrix_in_its_order(steps):
    # check_array copies a DataFrame in pandas' memory order, which depends on how the frame was built;
    # LogisticRegression's product on the same values in another order can differ in the last bit
    imputing = any(isinstance(s, SimpleImputer) for _, s in steps)
    for X in _frames_of_every_layout(np.random.default_rng(4))[:4]:  # fitted on each layout of 120 rows
        X = X.copy()
        if imputing:
            X.iloc[::7, 2] = np.nan
        pipeline = Pipeline(steps + [("lr", LogisticRegression())]).fit(X, (X["m0"] > 0).astype(int))
        for rows in _frames_of_every_layout(np.random.default_rng(11)):
            rows = rows.astype(X.dtypes.to_dict())
            if imputing and len(rows) > 1:
                rows.iloc[1::5, 2] = np.nan
            _assert_exact(pipeline, rows)


def test_a_whole_dataframe_of_other_columns_or_dtypes_takes_scikit_learns_path():
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    pipeline = Pipeline([("impute", SimpleImputer()), ("lr", LogisticRegression())]).fit(X, (X["a"] > 0).astype(int))
    assert fast_preprocess.estimator_input(pipeline, X) is not None
    assert fast_preprocess.estimator_input(pipeline, X[["b", "a"]]) is None  # scikit-learn raises on the order
    assert fast_preprocess.estimator_input(pipeline, X.rename(columns={"b": "c"})) is None
    assert fast_preprocess.estimator_input(pipeline, X.astype({"b": "Float64"})) is None  # an extension dtype
    assert fast_preprocess.estimator_input(pipeline, X.to_numpy()) is None  # fitted with names: scikit-learn warns
    bare = Pipeline([("impute", SimpleImputer()), ("lr", LogisticRegression())]).fit(X.to_numpy(), X["a"] > 0)
    assert fast_preprocess.estimator_input(bare, X) is None  # fitted without names
    encoder = Pipeline([("codes", OrdinalEncoder()), ("lr", LogisticRegression())]).fit(X.round(0), X["a"] > 0)
    assert fast_preprocess.estimator_input(encoder, X.round(0)) is None  # encoders only inside a ColumnTransformer
    with pytest.raises(ValueError, match="feature names"):
        pipeline.predict_proba(X[["b", "a"]])


class _OwnScaler(StandardScaler):
    """A subclass may change ``transform``: it must keep scikit-learn's path."""


def _fallback_cases():
    rng = np.random.default_rng(8)
    X = pd.DataFrame({"a": rng.normal(size=100), "b": rng.choice(["u", "v", "w", "x"], 100)})
    y = (X["a"] > 0).astype(int)

    def pipe(*pre_steps):
        return Pipeline(list(pre_steps) + [("lr", LogisticRegression())]).fit(X, y)

    sparse = ColumnTransformer([("b", OneHotEncoder(), ["b"])], remainder="passthrough", sparse_threshold=1.0)
    pandas_out = ColumnTransformer([("b", OneHotEncoder(sparse_output=False), ["b"])], remainder="passthrough")
    pandas_out.set_output(transform="pandas")
    return X, {
        "custom transformer": pipe(("ct", ColumnTransformer([("a", _OwnScaler(), ["a"])]))),
        "other transformer": pipe(("ct", ColumnTransformer([("a", MinMaxScaler(), ["a"])]))),
        "sparse output": pipe(("ct", sparse)),
        "pandas output": pipe(("ct", pandas_out)),
        "dropped category": pipe(("ct", ColumnTransformer([("b", OneHotEncoder(drop="first"), ["b"])]))),
        "infrequent categories": pipe(("ct", ColumnTransformer([("b", OneHotEncoder(min_frequency=30), ["b"])]))),
        "columns by position": pipe(("ct", ColumnTransformer([("a", StandardScaler(), [0])]))),
        "weighted blocks": pipe(("ct", ColumnTransformer([("a", StandardScaler(), ["a"]),
                                                          ("b", OneHotEncoder(), ["b"])],
                                                         transformer_weights={"a": 2.0}))),
    }


@pytest.mark.parametrize("case", list(_fallback_cases()[1]))
def test_what_it_does_not_know_takes_scikit_learns_path(case):
    X, cases = _fallback_cases()
    pipeline = cases[case]
    assert fast_preprocess.estimator_input(pipeline, X) is None
    model = HexevalModel.from_artefact(pipeline)
    assert np.array_equal(model.predict_proba(X)[:, 1], pipeline.predict_proba(X)[:, 1])


def test_float32_only_input_and_infinities_take_scikit_learns_path():
    rng = np.random.default_rng(9)
    X = pd.DataFrame({"a": rng.normal(size=50).astype("float32"), "b": rng.normal(size=50).astype("float32")})
    pre = ColumnTransformer([("s", StandardScaler(), ["a", "b"])])
    pipeline = Pipeline([("pre", pre), ("lr", LogisticRegression())]).fit(X, (X["a"] > 0).astype(int))
    assert fast_preprocess.estimator_input(pipeline, X) is None  # scikit-learn keeps float32 here
    wide = X.astype("float64")
    _assert_exact(pipeline, wide)
    wide.loc[3, "a"] = np.inf
    assert fast_preprocess.estimator_input(pipeline, wide) is None
    with pytest.raises(ValueError, match="infinity"):
        pipeline.predict_proba(wide)


def test_the_wrapper_uses_the_fast_path_and_the_estimator_sees_no_feature_names(monkeypatch):
    pipeline = _heart_lr()
    rows = _heart_rows().iloc[:30]
    expected = pipeline.predict_proba(rows)
    model = HexevalModel.from_artefact(pipeline)

    def refuse(self, X, **params):
        raise AssertionError("scikit-learn's ColumnTransformer.transform was called")

    monkeypatch.setattr(ColumnTransformer, "transform", refuse)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. "X does not have valid feature names"
        got = model.predict_proba(rows)
        matrix = model.transform(rows)
    assert np.array_equal(got[:, 1], expected[:, model.positive_index])
    assert isinstance(matrix, np.ndarray) and matrix.shape == (30, 26)


def test_none_in_a_text_column_is_unknown_and_other_objects_take_scikit_learns_path():
    credit = _prepared(CREDIT).estimator
    rows = _credit_rows().iloc[:30].copy()
    rows["loan_grade"] = rows["loan_grade"].astype(object)
    rows.loc[rows.index[:2], "loan_grade"] = None  # what the engine's decoder writes for a missing label
    _assert_exact(credit, rows)
    rows.loc[rows.index[2], "loan_grade"] = 3  # a number among labels: scikit-learn decides what it means
    assert fast_preprocess.estimator_input(credit, rows) is None


TEXT_STORAGES = {
    "str (Arrow, NaN missing)": lambda values: pd.array(values, dtype="str"),
    "string[pyarrow] (pd.NA missing)": lambda values: pd.array(values, dtype="string[pyarrow]"),
    "string[python]": lambda values: pd.array(values, dtype="string[python]"),
    "object str": lambda values: np.array(values, dtype=object),
    "object numpy str_": lambda values: np.array([np.str_(v) if isinstance(v, str) else v for v in values], dtype=object),
}


@pytest.mark.parametrize("storage", list(TEXT_STORAGES))
@pytest.mark.parametrize("n", [1, 37, 4000])
def test_text_columns_of_every_storage_with_unknown_and_missing_values_match_scikit_learn(storage, n):
    """Known labels, unknown text (another case, a blank, a near miss) and missing values, in every text storage."""
    credit = _prepared(CREDIT).estimator
    rng = np.random.default_rng(n)
    rows = _credit_rows().sample(n=n, random_state=n).reset_index(drop=True)
    missing = None if storage.startswith("object") else np.nan
    strange = ["rent", "", "RENT ", "VENTURE\u00a0", missing]
    for col in ("person_home_ownership", "loan_intent", "loan_grade", "cb_person_default_on_file"):
        values = rows[col].to_numpy(dtype=object, copy=True)
        if n > 1:
            hit = rng.random(n) < 0.3
            values[hit] = rng.choice(np.array(strange, dtype=object), hit.sum())
        rows[col] = TEXT_STORAGES[storage](list(values))
    if n > 1:
        assert rows["loan_grade"].isna().any() and (rows["loan_grade"] == "rent").any()
    _assert_exact(credit, rows)


@pytest.mark.parametrize("storage", list(TEXT_STORAGES))
def test_an_ordinal_encoder_on_text_of_every_storage_matches_scikit_learn(storage):
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"grade": rng.choice(["a", "b", "c"], 200), "x": rng.normal(size=200)})
    pre = ColumnTransformer([("ordinal", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
                              ["grade"]), ("scale", StandardScaler(), ["x"])])
    pipeline = Pipeline([("pre", pre), ("lr", LogisticRegression())]).fit(X, (X["x"] > 0).astype(int))
    grades = rng.choice(np.array(["a", "b", "c", "d", "A"], dtype=object), 300)
    X2 = pd.DataFrame({"grade": TEXT_STORAGES[storage](list(grades)), "x": rng.normal(size=300)})
    _assert_exact(pipeline, X2)


def test_text_dtype_codes_give_each_values_own_dict_answer():
    """Oracle: the dict looked up value by value (``-1`` for missing values and unknown text)."""
    lookup = {"b": 0, "a": 1, "é": 2}
    values = ["a", None, "b", "é", "e\u0301", "a", "zz", None, "b"]
    want = [lookup.get(v, -1) if v is not None else -1 for v in values]
    for dtype in ("str", "string[pyarrow]", "string[python]"):
        got = fast_preprocess._text_dtype_codes(pd.array(values, dtype=dtype), lookup)
        assert got.dtype == np.intp and got.tolist() == want, dtype
    assert fast_preprocess._text_dtype_codes(pd.array([], dtype="str"), lookup).tolist() == []
