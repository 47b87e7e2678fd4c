"""The data-quality panel for the new task kinds: a regression target has no class table or minority share, and
with three classes no class is called "positive"."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page(kind: str):
    from hexeval_engine.data.data_quality import DataQualityReport
    from hexeval_ui.quality_view import render_quality

    report = DataQualityReport(n_rows=150, n_columns=5)
    if kind == "3-class":
        report.class_balance = {"setosa": 50, "versicolor": 50, "virginica": 50}
        render_quality(report, class_labels=("setosa", "versicolor", "virginica"), target="species")
    else:
        render_quality(report, class_labels=(), target="progression")


def test_three_classes_are_listed_without_a_positive_one():
    at = AppTest.from_function(_page, args=("3-class",)).run()
    assert not at.exception
    (table,) = [d.value for d in at.dataframe]
    assert list(table["Value"]) == ["setosa", "versicolor", "virginica"] and "Class" not in table.columns
    assert all(c[:1].isupper() for c in table.columns)  # headers as a table's headers: capitalised
    assert [m.value for m in at.metric if m.label == "Minority class"] == ["33%"]


def test_a_regression_target_has_no_class_table():
    at = AppTest.from_function(_page, args=("regression",)).run()
    assert not at.exception
    assert not at.dataframe
    assert any("measured quantity (regression)" in c.value for c in at.caption)
    assert [m.value for m in at.metric if m.label == "Target"] == ["a number"]
