"""load_data: every user-caused error has a clear message; detection and the split behave."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hexeval_engine import DataError, load_data


def write(tmp_path, text: str, name="data.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def frame_csv(tmp_path, n=40, **extra):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(20, 80, n), "colour": rng.choice(["red", "blue"], n),
                       "score": rng.normal(size=n), "target": np.arange(n) % 2, **extra})
    p = tmp_path / "data.csv"
    df.to_csv(p, index=False)
    return p


@pytest.mark.parametrize("text, fragment", [
    ("", "is empty"),
    ("a,b,target\n", "no data rows"),
    ("just one column\n1\n2\n", "does not look like a CSV"),
    ("a,b,target\n1,2,0\n1,2,3,4,5\n", "different number of fields"),
    ("a,a,target\n1,2,0\n3,4,1\n", "duplicate column names: a"),
])
def test_unreadable_files_are_named(tmp_path, text, fragment):
    with pytest.raises(DataError, match=fragment):
        load_data(write(tmp_path, text), "target")


def test_binary_and_undecodable_files(tmp_path):
    binary = tmp_path / "model.csv"
    binary.write_bytes(b"\x89PNG\x00\x00\x01\x02" * 20)
    with pytest.raises(DataError, match="binary data"):
        load_data(binary)


def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        load_data(tmp_path / "nope.csv")


def test_missing_target_lists_columns(tmp_path):
    with pytest.raises(DataError) as err:
        load_data(frame_csv(tmp_path), "outcome")
    assert "'outcome' is not in the CSV" in str(err.value) and "age, colour, score, target" in str(err.value)


def test_target_class_problems(tmp_path):
    n = 30
    one = frame_csv(tmp_path, n=n)
    df = pd.read_csv(one)
    df["target"] = 1
    df.to_csv(one, index=False)
    with pytest.raises(DataError, match="only one class"):
        load_data(one, "target")
    df["target"] = np.arange(n) % 3
    df.to_csv(one, index=False)
    three = load_data(one, "target")  # a multi-class target: class indices in sorted-label order
    assert three.n_classes == 3 and three.class_labels == (0, 1, 2)
    assert sorted(three.y_train.unique().tolist() + three.y_test.unique().tolist()) == [0, 0, 1, 1, 2, 2]
    with pytest.raises(DataError, match=r"3 classes \(0, 1 and 2\) but data.task is binary.*Set data.task to multiclass"):
        load_data(one, "target", task="binary")
    df["target"] = np.linspace(0.1, 7.3, n)
    df.to_csv(one, index=False)
    measured = load_data(one, "target")  # numbers with fractions: a regression target, split without strata
    assert measured.is_regression and measured.n_classes == 0 and measured.quality.class_balance == {}
    assert len(measured.X_test) == 6 and measured.y_test.dtype == float
    with pytest.raises(DataError, match=r"looks like a measurement, but data.task is multiclass.*Set data.task to regression"):
        load_data(one, "target", task="multiclass")
    df["target"] = [None] + [i % 2 for i in range(n - 1)]
    df.to_csv(one, index=False)
    with pytest.raises(DataError, match="1 missing value"):
        load_data(one, "target")


def test_too_few_rows_for_split(tmp_path):
    p = write(tmp_path, "a,b,target\n1,2,0\n3,4,1\n5,6,1\n")
    with pytest.raises(DataError, match="Too few rows for a stratified"):
        load_data(p, "target")


def test_all_missing_feature(tmp_path):
    p = frame_csv(tmp_path, empty=[np.nan] * 40)
    with pytest.raises(DataError, match="Feature column empty is entirely empty"):
        load_data(p, "target")


def test_categorical_and_numeric_detection(tmp_path):
    data = load_data(frame_csv(tmp_path), "target", categorical_features=["age"])
    assert data.categorical_features == ["age", "colour"]
    assert data.numeric_features == ["score"]
    plain = load_data(frame_csv(tmp_path), "target")
    assert plain.categorical_features == ["colour"] and plain.numeric_features == ["age", "score"]


def test_split_is_stratified_and_deterministic(tmp_path):
    p = frame_csv(tmp_path, n=100)
    a = load_data(p, "target", test_size=0.2, random_state=7)
    b = load_data(p, "target", test_size=0.2, random_state=7)
    c = load_data(p, "target", test_size=0.2, random_state=8)
    assert len(a.X_test) == 20 and a.y_test.mean() == 0.5 and a.y_train.mean() == 0.5
    pd.testing.assert_frame_equal(a.X_test, b.X_test)
    assert not a.X_test.equals(c.X_test)


def test_string_and_boolean_targets(tmp_path):
    rows = "x,y,outcome\n" + "".join(f"{i},{i * 2},{'yes' if i % 3 == 0 else 'no'}\n" for i in range(30))
    data = load_data(write(tmp_path, rows))  # 'outcome' is auto-detected
    assert data.target == "outcome" and data.class_labels == ("no", "yes")
    assert data.y_train.isin([0, 1]).all()
    rows = "x,z,flag\n" + "".join(f"{i},{i % 5},{'True' if i % 2 else 'False'}\n" for i in range(30))
    data = load_data(write(tmp_path, rows, "b.csv"), "flag")
    assert data.positive_label is True
    rows = "x,z,label\n" + "".join(f"{i},{i % 5},{'churn' if i % 4 == 0 else 'stay'}\n" for i in range(40))
    assert load_data(write(tmp_path, rows, "c.csv")).positive_label == "churn"  # minority
    assert load_data(write(tmp_path, rows, "c.csv"), positive_label="stay").positive_label == "stay"


def test_ambiguous_target_names_candidates(tmp_path):
    rows = "a,b,c\n" + "".join(f"{i % 2},{(i // 2) % 2},{i}\n" for i in range(20))
    with pytest.raises(DataError, match="several columns could be the target: a, b"):
        load_data(write(tmp_path, rows))


def test_quality_report_on_bundled_data(usecase_bundle):
    _, _, heart, _ = usecase_bundle("heart")
    assert heart.quality.duplicate_rows == 723 and heart.quality.duplicates_dropped == 723
    assert heart.quality.duplicates_crossing_split == 0
    assert len(heart.X_train) + len(heart.X_test) == 302
    _, _, credit, _ = usecase_bundle("credit_risk")
    q = credit.quality
    assert q.missing_values == {"person_emp_length": 895, "loan_int_rate": 3116}
    assert q.outliers["person_age"]["max"] == 144 and q.outliers["person_emp_length"]["max"] == 123
    assert q.class_balance == {"0": 25473, "1": 7108}  # counted before the remedies
    # The use case applies the remedies its report recommends: no leaking test rows, no impossible ages.
    assert q.duplicates_dropped == 165 and q.implausible_rows_excluded == 8 and q.duplicates_crossing_split == 0
    assert credit.X_all["person_age"].max() <= 100 and len(credit.X_all) == 32581 - 165 - 8
    assert credit.X_test["loan_int_rate"].isna().any()  # kept for the pipeline to impute


def test_constant_column_reported(tmp_path):
    data = load_data(frame_csv(tmp_path, same=[5] * 40), "target")
    assert data.quality.constant_columns == ["same"]


def test_coder_round_trip(usecase_bundle):
    _, _, credit, _ = usecase_bundle("credit_risk")
    sample = credit.X_test.head(50)
    back = credit.coder.decode(credit.coder.encode(sample))
    for col in sample.columns:
        left, right = sample[col].tolist(), back[col].tolist()
        assert [None if pd.isna(v) else v for v in left] == [None if pd.isna(v) else v for v in right], col


def test_decoded_rows_keep_their_types_and_gaps():
    """The model is asked about decoded rows: integers stay integers, text stays text, gaps stay gaps."""
    from hexeval_engine.data.coding import FeatureCoder

    frame = pd.DataFrame({"age": [40, 51, 63], "grade": ["A", "C", "B"], "rate": [0.1, np.nan, 0.3],
                          "level": [2, 1, 2]})
    coder = FeatureCoder.fit(frame, ["grade", "level"])
    M = coder.encode(frame)
    back = coder.decode(M)
    assert list(back.columns) == ["age", "grade", "rate", "level"]
    assert str(back["age"].dtype) == "int64" and str(back["level"].dtype) == "int64"
    assert back["grade"].tolist() == ["A", "C", "B"] and back["level"].tolist() == [2, 1, 2]
    assert np.isnan(back["rate"][1]) and back["rate"][2] == 0.3
    M[0, 1] = np.nan  # a coded gap in a text column decodes to a missing value, not to the first category
    M[1, 0] = 50.6    # a sampled value between integers is rounded back to the column's integer type
    again = coder.decode(M)
    assert again["grade"][0] is None and again["grade"][1] == "C" and again["age"][1] == 51


def test_coding_looks_values_up_like_a_dictionary():
    """Unknown or missing category values code to NaN; a float 2.0 finds the category 2 (as the CSV reader may give it)."""
    from hexeval_engine.data.coding import FeatureCoder

    coder = FeatureCoder.fit(pd.DataFrame({"level": [1, 2, 3], "grade": ["A", "B", "C"]}), ["level", "grade"])
    M = coder.encode(pd.DataFrame({"level": [2.0, 7, None], "grade": ["C", "Z", None]}, dtype=object))
    assert M[0].tolist() == [1.0, 2.0]
    assert np.isnan(M[1:]).all()
