"""Identical comments collapse with their count (page and report); the zip holds the report."""

from __future__ import annotations

import io
import zipfile

import pandas as pd

from hexeval_engine.ratings_summary import comment_groups
from hexeval_engine.report.sections import ratings_section
from hexeval_ui.downloads import REPORT_NAME, zip_run


def _ratings() -> pd.DataFrame:
    return pd.DataFrame({
        "persona_name": ["Sam"] * 5, "persona_role": ["Patient"] * 5,
        "explanation_type": ["SHAP", "SHAP", "SHAP", "LIME", "SHAP"], "instance_index": [3, 5, 3, 3, 9],
        "comment": ["Too long.", "Too long.", "Too long.", "Too long.", "Clear."],
        "status": ["ok"] * 5, "rater": ["simulated"] * 5,
        **{d: [2, 4, 3, 1, 5] for d in ("interpretability", "completeness", "actionability", "trust", "satisfaction",
                                         "decision_support")},
    })


def test_identical_comments_on_one_method_collapse_with_count_cases_and_mean_scores():
    r = _ratings().rename(columns={"explanation_type": "method"})
    groups = comment_groups(r, dimensions=("trust",))
    assert groups[["method", "comment", "count"]].values.tolist() == [
        ["SHAP", "Too long.", 3], ["LIME", "Too long.", 1], ["SHAP", "Clear.", 1]]
    assert groups.loc[0, "cases"] == [3, 5]
    assert groups.loc[0, "trust"] == 3.0  # (2 + 4 + 3) / 3


def test_report_folds_each_personas_comments_and_shows_a_collapsed_comment_once():
    html = ratings_section(_ratings())
    # three comments (SHAP's and LIME's "Too long." are two: the same words of two methods), not "3 distinct" of
    # two distinct texts
    assert ("<details class='comments'><summary>3 comments of Patient, a method's identical comments once (click to "
            "open)") in html
    assert "open>" not in html.split("<details class='comments'>")[1].split("</summary>")[0]
    assert html.count("Too long.") == 2 and "3×" in html


def test_whole_run_zip_lists_every_file_and_the_report(tmp_path):
    folder = tmp_path / "20260101-000000-abcdef"
    (folder / "sub").mkdir(parents=True)
    (folder / "run.json").write_text("{}")
    (folder / "persona_ratings.csv").write_text("a\n1\n")
    (folder / "sub" / "answers.csv").write_text("b\n")
    with zipfile.ZipFile(io.BytesIO(zip_run(folder, "<html>report</html>"))) as archive:
        names = sorted(archive.namelist())
        assert archive.read(f"{folder.name}/{REPORT_NAME}") == b"<html>report</html>"
    assert names == sorted(f"{folder.name}/{n}" for n in ("run.json", "persona_ratings.csv", "sub/answers.csv",
                                                           REPORT_NAME))
