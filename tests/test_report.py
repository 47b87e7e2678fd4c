"""HTML report: self-contained (no external URLs), rater note, escaping, every method present."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from hexeval_engine.recommend.recommender import generate_recommendations
from hexeval_engine.report.html import render_report, write_report

from recommendation_fixtures import OFFICER_AND_APPLICANT, fixture_per_instance, long_table, ratings_table, wide_table

EVIL = "<script>alert('pwned')</script>"


@dataclass
class FakeRun:
    """The attributes of a loaded run that the report reads (``hexeval_engine.runs.store.RunData``)."""

    manifest: dict
    technical_metrics: pd.DataFrame
    technical_metrics_long: pd.DataFrame
    persona_ratings: pd.DataFrame | None
    recommendations: dict
    explanations: list[dict] = field(default_factory=list)
    path: Path = Path("outputs/heart/test-run")


def make_run(*, rater=None, ratings="default", errors=None) -> FakeRun:
    if isinstance(ratings, str):
        ratings = ratings_table(OFFICER_AND_APPLICANT)
        ratings.loc[0, "comment"] = f"Nice {EVIL} & more"
    wide = wide_table(errors=errors)
    manifest = {
        "run_id": "20260101-000000-abc123", "created": "2026-01-01T00:00:00Z", "usecase": "heart",
        "usecase_title": "Heart Disease (Healthcare)", "status": "complete",
        "config": {"domain": {"name": "Cardiology", "prediction_task": "heart disease",
                              "positive_outcome": "disease", "negative_outcome": "no disease"}},
        "rater": rater or {"kind": "simulated", "model": None},
        "model": {"type": "RandomForestClassifier", "sha256": "ab" * 32, "source": "usecases/heart/model.skops",
                  "features": ["age", "sex"]},
        "data": {"summary": {"rows": 302, "features": 13}, "quality": {"duplicate_rows": 723}},
        "timings": {"technical": 2.5}, "counts": {"sample_size": 20, "ratings": 48},
    }
    explanations = [{"method": m, "instance_id": 3, "text": f"{m} says {EVIL}", "shown_to_personas": True}
                    for m in ("SHAP", "LIME", "Anchor", "DiCE")]
    recs = generate_recommendations(wide, ratings, None, per_instance=fixture_per_instance())
    return FakeRun(manifest, wide, long_table(), ratings, recs, explanations)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls, self.scripts, self.links = [], 0, 0

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"
        self.links += tag == "link"
        self.urls += [value for name, value in attrs if name in ("src", "href") and value]


@pytest.fixture(scope="module")
def report_html() -> str:
    return render_report(make_run())


def test_report_is_self_contained(report_html):
    parser = _Links()
    parser.feed(report_html)
    assert parser.links == 0
    assert not [u for u in parser.urls if re.match(r"\s*(https?:)?//", u)]
    assert "cdn" not in " ".join(parser.urls).lower()
    assert parser.scripts >= 2  # the inline plotly.js bundle and at least one figure
    assert "Plotly.newPlot" in report_html and len(report_html) > 1_000_000  # plotly.js is inline


def test_simulated_rater_is_labelled_prominently(report_html):
    note = re.search(r"<div class='rater-note simulated' role='note'>(.*?)</div>", report_html, re.S)
    assert note and "Simulated ratings." in note.group(1) and "<strong>simulated</strong>" in note.group(1)
    assert report_html.index("rater-note") < report_html.index("<h2>Who should see what</h2>")


def test_llm_rater_note_names_the_model():
    html = render_report(make_run(rater={"kind": "openai", "model": "gpt-4o-mini"}))
    assert "LLM-simulated personas" in html and "<code>gpt-4o-mini</code>" in html
    assert "Simulated ratings." not in html


def test_no_ratings_note_and_technical_only_recommendations():
    html = render_report(make_run(rater={"kind": "none"}, ratings=None))
    assert "No persona ratings." in html and "how well each method answers the questions that stakeholder asks" in html
    assert "No persona ratings in this run." in html


def test_comments_and_explanations_are_escaped(report_html):
    assert EVIL not in report_html
    assert "Nice &lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt; &amp; more" in report_html
    assert "SHAP says &lt;script&gt;" in report_html


def test_escaped_persona_role_in_cards_and_charts():
    ratings = ratings_table({(f"<b>{EVIL}</b>", "SHAP"): (4, 4), ("Clinician", "Anchor"): (3, 3)})
    wide = wide_table()
    run = make_run(ratings=ratings)
    run.recommendations = generate_recommendations(wide, ratings, None, per_instance=fixture_per_instance())
    html = render_report(run)
    assert EVIL not in html and "&lt;b&gt;&lt;script&gt;" in html


def test_every_method_metric_recommendation_and_chart_is_included(report_html):
    for method in ("SHAP", "LIME", "Anchor", "DiCE"):
        assert f">{method}</span>" in report_html
    for heading in ("Who should see what", "Evidence", "Configuration"):
        assert f"<h2>{heading}</h2>" in report_html
    for heading in ("Technical metrics", "Charts", "Persona ratings", "Model and data", "Use case",
                    "What the personas read"):
        assert f"<h3>{heading}</h3>" in report_html
    assert "Cases the rule covers (search estimate) <span class='arrow'>↑</span>" in report_html
    assert "0.120 <span class='ci'>[0.080, 0.160]</span>" in report_html
    assert report_html.count("class=\"plotly-graph-div\"") == 5
    assert "Loan officer" in report_html and "Applicant" in report_html


def test_failed_method_is_shown_with_its_error():
    html = render_report(make_run(errors={"DiCE": "no counterfactual <found>"}))
    assert "failed: no counterfactual &lt;found&gt;" in html
    assert "Excluded: DiCE failed in the technical evaluation" in html


def test_write_report_to_file_and_to_folder(tmp_path):
    run = make_run()
    written = write_report(run, tmp_path / "sub" / "report.html")
    assert written == tmp_path / "sub" / "report.html" and written.read_text(encoding="utf-8").startswith(
        "<!DOCTYPE html>")
    in_folder = write_report(run, tmp_path)
    assert in_folder == tmp_path / "report-20260101-000000-abc123.html" and in_folder.exists()


def test_method_names_never_wrap_mid_word(report_html):
    # Cells may break anywhere (long values); a method badge must not ("Anch / or" in a narrow column).
    css = re.search(r"<style>(.*?)</style>", report_html, re.S).group(1)
    badge = re.search(r"\.badge \{([^}]*)\}", css).group(1)
    assert "white-space: nowrap" in badge and "overflow-wrap: normal" in badge
    assert re.search(r"\.metrics thead th \{[^}]*min-width", css)
    assert "<th><span class='badge'" in report_html  # the method columns use the badge


def test_verdicts_come_first_then_evidence_then_configuration(report_html):
    """A reader meets who should see what before four screens of metadata."""
    order = [report_html.index(f"<h2>{h}</h2>") for h in ("Who should see what", "Evidence", "Configuration")]
    assert order == sorted(order)
    assert report_html.index("<h3>Model and data</h3>") > order[2]
    assert "@media print" in report_html


def test_configuration_shows_labels_and_no_absolute_path_or_raw_literal(tmp_path):
    run = make_run()
    run.path = tmp_path / "outputs" / "heart" / "20260101-000000-abc123"
    run.manifest["data"] = {"source": str(tmp_path / "usecases" / "heart" / "data.csv"),
                            "summary": {"class_labels": ["0", "1"], "n_train": 241},
                            "quality": {"duplicates_crossing_split": 0, "implausible_values": {}}}
    run.manifest["timings"] = {"total": 7.8, "per_method": {"SHAP": 1.4364}}
    html = render_report(run)
    configuration = html[html.index("<h2>Configuration</h2>"):]
    assert str(tmp_path) not in html  # no server path leaks into a file that is passed around
    assert "<td>data.csv</td>" in configuration  # outside the run folder: the file name alone
    assert "duplicates_crossing_split" not in configuration and "Duplicates shared by training and test rows" in configuration
    assert "{}" not in configuration and '["0", "1"]' not in configuration and "per_method" not in configuration
    assert "<td>0, 1</td>" in configuration and "<th>Per method</th>" in configuration and "1.44" in configuration


def test_the_report_reads_like_the_dashboard_without_markup_or_statisticians_shorthand(report_html):
    """The earlier walk: asterisks around question phrases ("for *when does this answer stay the same*"), a
    "Questions: questions: why 0.35, …" line, "SHAP n=8" in the ratings tables and the run's id as its name."""
    body = report_html[report_html.index("<body"):]
    visible = re.sub(r"<script.*?</script>", "", body, flags=re.S)
    assert "<em>" in visible and not re.search(r"\*[a-z][^*<]*\*", visible)  # emphasis as italics, never asterisks
    assert "Questions: questions" not in visible and "Asks why (weight " in visible
    assert not re.search(r"\bn=\d", visible)
    assert re.search(r"SHAP</span> <span class='ci'>\d+ (cases?|ratings?)</span>", visible)
    header = visible[:visible.index("</header>")]
    assert "Run of 1 January 2026, 00:00 UTC · complete" in header and "20260101-000000-abc123" not in header
    footer = visible[visible.index("<footer>"):]
    assert "20260101-000000-abc123" in footer  # for the command line, at the end
