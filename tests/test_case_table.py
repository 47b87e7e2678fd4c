"""Per-case tables the recommender reads (``metrics.table.case_table``): pandas' mean pivot, exactly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.metrics.table import case_table


def _long(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 60
    rows = pd.DataFrame({"instance_id": rng.integers(0, 15, n), "method": rng.choice(["SHAP", "LIME", "DiCE", "Random"], n),
                         "value": rng.normal(size=n)})
    rows.loc[rng.random(n) < 0.25, "value"] = np.nan  # cases without a value
    rows.loc[rows["method"] == "DiCE", "value"] = np.nan if seed % 2 else rows["value"]  # a method with none at all
    return rows


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("one_value_each", [False, True])
def test_case_table_is_the_mean_pivot(seed, one_value_each):
    """Either way (from arrays when each case has one value per method, else a grouped mean): the mean pivot."""
    rows = _long(seed)
    if one_value_each:
        rows = rows.drop_duplicates(["instance_id", "method"])
    expected = rows.pivot_table(index="instance_id", columns="method", values="value", aggfunc="mean")
    pd.testing.assert_frame_equal(case_table(rows), expected, check_exact=True)


def test_case_table_means_repeated_values_and_leaves_gaps():
    rows = pd.DataFrame({"instance_id": [1, 1, 2, 3], "method": ["SHAP", "SHAP", "LIME", "SHAP"],
                         "value": [0.2, 0.4, 1.0, np.nan]})
    table = case_table(rows)
    assert list(table.columns) == ["LIME", "SHAP"] and list(table.index) == [1, 2]  # case 3 has no value
    assert table.loc[1, "SHAP"] == pytest.approx(0.3) and np.isnan(table.loc[1, "LIME"]) and table.loc[2, "LIME"] == 1.0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("repeated", [False, True])
def test_the_question_tables_are_the_mean_pivot_of_each_metric(seed, repeated):
    """``question_evidence`` reads each metric's table from arrays when every case has one value per method (and
    through ``case_table`` otherwise): either way pandas' mean pivot, reindexed to the methods asked for."""
    from hexeval_engine.recommend.question_evidence import support_tables

    rng = np.random.default_rng(seed)
    parts = []
    for metric in ("skill_why_common", "skill_what_if_common", "how_to_change_success_common"):
        cases = rng.permutation(40)[:rng.integers(5, 20)]  # unsorted ids, a different set per metric
        for method in ("SHAP", "LIME", "DiCE", "Random"):
            keep = cases[rng.random(cases.size) < 0.8]  # some cases without this method
            parts.append(pd.DataFrame({"method": method, "instance_id": keep, "metric": metric,
                                       "value": rng.normal(size=keep.size), "derived": False}))
    rows = pd.concat(parts, ignore_index=True)
    rows.loc[rng.random(len(rows)) < 0.2, "value"] = np.nan
    if repeated:  # a case measured twice for one method: the mean of both
        rows = pd.concat([rows, rows.iloc[:3].assign(value=rows["value"].iloc[:3] + 1.0)], ignore_index=True)
    methods = ["SHAP", "LIME", "Anchor", "DiCE", "Random"]  # Anchor has no rows: a column of gaps
    metrics = ["skill_why_common", "skill_what_if_common", "how_to_change_success_common", "never_measured"]
    tables = support_tables(rows, metrics, methods)
    for metric in metrics[:3]:
        mine = rows[rows["metric"] == metric]
        expected = mine.pivot_table(index="instance_id", columns="method", values="value",
                                    aggfunc="mean").reindex(columns=methods)
        pd.testing.assert_frame_equal(tables[metric], expected, check_exact=True, check_column_type=False)
    assert tables["never_measured"].empty and list(tables["never_measured"].columns) == methods


def test_the_weighted_skill_of_tables_on_different_cases_counts_each_question_where_it_was_measured():
    """Per case, the weighted mean of the questions measured on it (a case a table lacks, or a row of gaps, is not
    measured for that question), against sums written out by hand."""
    from hexeval_engine.recommend.question_evidence import weighted_skill

    why = pd.DataFrame({"SHAP": [0.5, 0.1, np.nan], "DiCE": [0.2, np.nan, np.nan]}, index=[1, 2, 3])
    change = pd.DataFrame({"SHAP": [0.0, 0.4], "DiCE": [1.0, 0.6]}, index=[2, 4])
    out = weighted_skill({"why": why, "how_to_change": change}, {"why": 0.25, "how_to_change": 0.75}, ["SHAP", "DiCE"])
    assert list(out.index) == [1, 2, 3, 4]
    assert out.loc[1].tolist() == pytest.approx([0.5, 0.2])  # why alone
    assert out.loc[2].tolist() == pytest.approx([(0.25 * 0.1 + 0.75 * 0.0) / 1.0, (0.25 * 0.0 + 0.75 * 1.0) / 1.0])
    assert out.loc[3].isna().all()  # measured by no question
    assert out.loc[4].tolist() == pytest.approx([0.4, 0.6])  # how to change alone
