"""The HTML report shows the run's warnings near the top (issue 23): the run's own and its data's,
escaped, folded when long, errors always in view, feature names instead of column names."""

from __future__ import annotations

import re

from hexeval_engine.report.html import render_report

from test_report import EVIL, make_run

QUALITY = ["723 of 1,025 rows are exact duplicates; duplicates that land in both train and test inflate test scores.",
           "Column 'trestbps' has 3 implausible values (above 250; from 260 to 300)."]


def _with_warnings(run_warnings=(), quality=(), *, in_recommendations=False):
    run = make_run()
    run.manifest["config"]["domain"]["feature_descriptions"] = {"trestbps": "resting blood pressure (mm Hg)"}
    run.manifest["data"]["quality"]["warnings"] = list(quality)
    if in_recommendations:  # runs from before the manifest kept them
        run.recommendations["warnings"] = list(run_warnings)
    else:
        run.manifest["warnings"] = list(run_warnings)
    return render_report(run)


def _section(html: str) -> str:
    match = re.search(r"<section id='warnings'.*?</section>", html, flags=re.S)
    assert match, "no warnings section"
    return match.group(0)


def test_data_and_run_warnings_appear_before_the_recommendations_with_feature_names():
    html = _with_warnings([{"kind": "few_cases", "severity": "warning", "message": "Only 5 cases were rated."}],
                          QUALITY)
    section = _section(html)
    assert html.index("<section id='warnings'") < html.index("<h2>Who should see what</h2>")
    assert html.index("class='verdict'") < html.index("<section id='warnings'")  # the answer stays first
    assert "Only 5 cases were rated." in section and "723 of 1,025 rows are exact duplicates" in section
    assert "The feature “resting blood pressure” has 3 implausible values" in section
    assert "trestbps" not in section and "Column '" not in section
    assert "<details" not in section  # three warnings: shown open
    assert "3 warnings about this run and its data" in section


def test_many_warnings_are_folded_but_an_error_stays_in_view():
    run_warnings = [{"severity": "error", "message": "The model shows no usable signal; no recommendation."}] + [
        {"severity": "warning", "message": f"Warning number {k}."} for k in range(4)]
    section = _section(_with_warnings(run_warnings, QUALITY))
    folded = section[section.index("<details"):]
    assert "no usable signal" in section[:section.index("<details")] and "no usable signal" not in folded
    assert "role='alert'" in section[:section.index("<details")]
    assert all(f"Warning number {k}." in folded for k in range(4)) and "exact duplicates" in folded
    assert "6 warnings about this run and its data" in folded


def test_warnings_are_escaped():
    section = _section(_with_warnings([{"message": f"Bad {EVIL} value"}], [f"Column 'x{EVIL}' is odd."]))
    assert EVIL not in section and "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in section


def test_older_runs_keep_their_warnings_in_the_recommendations():
    section = _section(_with_warnings([{"message": "Kept in recommendations.json."}], in_recommendations=True))
    assert "Kept in recommendations.json." in section and "1 warning about this run and its data" in section


def test_no_warnings_no_section():
    assert "id='warnings'" not in _with_warnings()
