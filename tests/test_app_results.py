"""Results, Recommendations and saved runs (Load, Compare, Delete) through AppTest, on saved fixture runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app_helpers import ROOT, app, button, chart_titles, frame_with, open_page, texts
from hexeval_engine.metrics.registry import METRICS
from hexeval_engine import get_usecase
from hexeval_ui.compare_view import BETTER, WORSE, change_style, settings_sentences
from hexeval_engine.runs import store as runs
from ui_run_fixtures import mark_with_study, save_fixture_run

RESULTS, RECS, CONFIGURE = "app_pages/results.py", "app_pages/recommendations.py", "app_pages/configure_run.py"




@pytest.fixture
def outputs(tmp_path) -> Path:
    return tmp_path / "outputs"


def _frame_element(at, column: str):
    return next(d for d in at.table if column in d.value.columns)


def test_results_show_metrics_with_directions_intervals_and_failures(outputs):
    run = save_fixture_run(outputs, failed="LIME")
    at = open_page(app(viewed_run=str(run)), RESULTS)
    # tables whose cells wrap (the earlier walk: at 390 px the data grids scrolled sideways, headers cut)
    fidelity = _frame_element(at, "Prediction left as top features go ↓").value.set_index("Method")
    assert fidelity.loc["SHAP", "Prediction left as top features go ↓"] == "0.20 [0.15, 0.25]"
    assert fidelity.loc["SHAP", "Prediction rebuilt from top features ↑"] == "0.80 [0.75, 0.85]"
    assert fidelity.loc["Anchor", "Prediction left as top features go ↓"].endswith("†")  # derived importance vector
    assert "LIME" not in fidelity.index  # it has no values; its failure is shown instead
    rules = _frame_element(at, "Conditions in the rule ↓")
    assert rules.value["Method"].tolist() == ["Anchor"]
    meaning = f"- **Conditions in the rule ↓**: {METRICS['rule_length'].help} Lower is better."
    assert any(meaning in m.value.split("\n") for m in at.markdown)  # each column's meaning, under its table
    overview = frame_with(at, "Algorithm").set_index("Method")
    assert overview.loc["LIME", "Status"] == "failed: LIME exploded on purpose"
    assert overview.loc["SHAP", "Status"] == "ok" and overview.loc["SHAP", "Gives"] == "feature weights"
    assert {"Compared", "Explained", "Seconds"} <= set(overview.columns)
    assert any("they add up to the 0.95 s the technical evaluation took" in c.value and "0.25 s" in c.value
               for c in at.caption)
    assert any("LIME failed" in e.value and "exploded on purpose" in e.value for e in at.error)
    titles = chart_titles(at)
    assert any(t.startswith("Fidelity") for t in titles) and any(t.startswith("Parsimony") for t in titles)


def test_results_show_simulated_ratings_radar_personas_and_cases(outputs):
    at = open_page(app(viewed_run=str(save_fixture_run(outputs))), RESULTS)
    assert "Ratings on six dimensions (all personas)" in chart_titles(at)
    assert "Simulated ratings" in texts(at)
    labels = [e.label for e in at.expander]
    assert any("Dr. Sam Okafor" in label and "(simulated)" in label for label in labels)
    assert any("Alex Moreau" in label for label in labels)
    at.selectbox(key="radar_persona").set_value("Patient").run()
    assert "Ratings on six dimensions (Patient)" in chart_titles(at)
    # Case explorer: the first rated case, its real feature values, every method's text and ratings.
    assert at.selectbox(key="case_pick").value == 3
    values = frame_with(at, "Feature").set_index("Feature")["Value"]  # features named for people, never by column
    assert "Age" in values.index and "age" not in values.index and values["Age"].endswith("years")
    assert values["Chest pain type"] in {"typical angina", "atypical angina", "non-anginal pain", "asymptomatic"}
    page = texts(at)
    for method in ("SHAP", "LIME", "Anchor", "DiCE"):
        assert f"{method} plain text for case 3" in page
    # the case explorer quotes the comments (“…”); the first persona's by default
    assert "“Dr. Sam Okafor on DiCE for case 3" in page
    assert "“Alex Moreau on DiCE for case 3" not in page
    at.selectbox(key="case_persona").set_value("All personas").run()
    assert "“Alex Moreau on DiCE for case 3" in texts(at) and "“Dr. Sam Okafor on DiCE for case 3" in texts(at)


def test_comments_are_shown_in_full_and_filter_by_method_and_persona(outputs):
    at = open_page(app(viewed_run=str(save_fixture_run(outputs))), RESULTS)
    page = texts(at)
    # every comment as text (not a cut-off table cell), under full dimension names
    assert "Alex Moreau on DiCE for case 7: score 5." in page and "Dr. Sam Okafor on SHAP for case 3: score 5." in page
    assert "Decision support **5**" in page and "Interp." not in page
    at.multiselect(key="comments_methods").set_value(["DiCE"]).run()
    at.multiselect(key="comments_personas").set_value(["Patient"]).run()
    page = texts(at)
    assert "Alex Moreau on DiCE for case 7: score 5." in page
    assert "Alex Moreau on SHAP for case" not in page and "Dr. Sam Okafor on DiCE for case 7: score" not in page


def test_results_offer_every_run_file_and_the_html_report(outputs):
    from hexeval_ui.downloads import _report_bytes

    run = save_fixture_run(outputs)
    at = open_page(app(viewed_run=str(run)), RESULTS)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels[0] == "HTML report"
    assert {"Technical metrics (CSV)", "Persona ratings (CSV)", "Recommendations (JSON)", "Explanations (JSONL)",
            "Run manifest (JSON)"} <= set(labels)
    html = _report_bytes(str(run), (run / "run.json").stat().st_mtime).decode()
    assert html.lstrip().lower().startswith("<!doctype html") and run.name in html


def test_a_ratings_table_without_the_rating_columns_is_an_error_not_a_traceback(outputs):
    import pandas as pd

    run = save_fixture_run(outputs)
    pd.DataFrame({"persona_role": ["Patient"], "trust": [4]}).to_csv(run / "persona_ratings.csv", index=False)
    at = open_page(app(viewed_run=str(run)), RESULTS)
    assert any("lacks the column" in e.value and "explanation_type" in e.value for e in at.error)


def test_case_values_are_withheld_when_the_data_file_changed(outputs):
    run = save_fixture_run(outputs)
    manifest = json.loads((run / "run.json").read_text())
    manifest["data"]["sha256"] = "0" * 64
    (run / "run.json").write_text(json.dumps(manifest))
    at = open_page(app(viewed_run=str(run)), RESULTS)
    assert "has changed since the run" in texts(at)


def test_recommendations_show_a_card_per_stakeholder_and_the_heatmap(outputs):
    run = save_fixture_run(outputs)
    at = open_page(app(viewed_run=str(run)), RECS)
    saved = json.loads((run / "recommendations.json").read_text())["stakeholders"]
    headings = [m.value for m in at.markdown if m.value.startswith("#### ")]
    assert headings == ["#### Lead Cardiologist", "#### Patient"]
    page = texts(at)
    # six shared cases can never make a clear lead; the card says which question decided the pick, in numbers
    assert "Close call" in page and "Clear lead" not in page and "Strengths" in page
    assert f"**Why this pick:** {saved['Patient']['decided_by']}." in page
    assert ">SHAP</span>" in page and ">DiCE</span>" in page  # the recommended methods, in their colours
    assert "simulated" in page and "never decide a recommendation" in page
    assert any(t.startswith("Skill on each stakeholder's questions") for t in chart_titles(at))
    # the alternatives as a wrapped list (fits a card and a phone), each with its own case and rating counts
    alternatives = next(m.value for m in at.markdown if m.value.startswith("1. **"))
    first = saved["Lead Cardiologist"]["alternatives"][0]
    assert alternatives.startswith(f"1. **{first['method']}** — skill +") and "Why skill" in alternatives
    assert f"n: {first['n_cases']} cases, {first['n_ratings']} ratings" in alternatives
    assert [m.value for m in at.metric] == [f"{saved[k]['score']:+.2f}" for k in ("Lead Cardiologist", "Patient")]
    # what each stakeholder asks, in a sentence (the earlier walk: "Questions: why 0.35, will it hold 0.35 — …")
    asks = [c.value for c in at.caption if c.value.startswith("Asks ")]
    assert len(asks) == 2 and all("(weight 0." in a for a in asks) and not any("Questions:" in c.value for c in at.caption)


def test_recommendations_without_ratings_still_give_each_stakeholder_a_measured_pick(outputs):
    at = open_page(app(viewed_run=str(save_fixture_run(outputs, with_ratings=False))), RECS)
    page = texts(at)
    assert "No persona ratings" in page and "Perceived" not in page
    assert "#### Lead Cardiologist" in [m.value for m in at.markdown]


def test_saved_runs_table_lists_runs_and_damaged_folders_as_warnings(outputs):
    save_fixture_run(outputs, created="2026-01-02T03:04:05+00:00")
    broken = outputs / "heart" / "20260101-000000-broken"
    broken.mkdir(parents=True)
    (broken / "run.json").write_text("{ not json")
    at = app()
    table = frame_with(at, "Cases")
    assert table[["When", "Rater", "Cases", "Status"]].iloc[0].tolist() == [
        "2 January 2026, 03:04 UTC", "simulated", 12, "complete"]
    assert any("20260101-000000-broken" in w.value and "invalid JSON" in w.value for w in at.warning)


def test_compare_two_runs_shows_direction_aware_differences(outputs):
    a = save_fixture_run(outputs, created="2026-01-02T03:04:05+00:00")
    b = save_fixture_run(outputs, shift=-2, failed="DiCE", created="2026-01-03T03:04:05+00:00")
    at = app()
    assert not any(b.label == "Compare" for b in at.button)  # compare has its own page, linked from here
    open_page(at, "app_pages/compare.py")
    assert next(b for b in at.button if b.label == "Compare").disabled  # nothing is compared until two runs are chosen
    at.selectbox(key="compare_a").set_value(str(a)).run()
    at.selectbox(key="compare_b").set_value(str(b)).run()
    button(at, "Compare").click().run()
    assert not at.exception
    page = texts(at)
    caption = next(c.value for c in at.caption if c.value.startswith("A: "))
    assert "Run A → run B" in page and caption.index("2 Jan 2026, 03:04") < caption.index("3 Jan 2026, 03:04")  # A is the run chosen as A
    metrics = frame_with(at, "Difference (95% interval)")
    shap = metrics[(metrics["Method"] == "SHAP") & (metrics["Metric"] == "Prediction rebuilt from top features ↑")].iloc[0]
    # 0.80 (0.75–0.85) against 0.70 (0.65–0.75): the intervals touch, so the change is not called worse
    assert shap["Run A → run B"] == "0.800 → 0.700 (20 / 20 cases)" and shap["Difference (95% interval)"].startswith("-0.100 (-0.")
    assert shap["Difference (95% interval)"].endswith("within the uncertainty")
    ratings = frame_with(at, "Persona").set_index(["Persona", "Method", "Rating"])
    patient = ratings.loc[("Patient", "SHAP", "Trust")]
    assert patient["Run A → run B"].endswith(" (4 / 4 ratings)") and patient["Difference (95% interval)"].startswith("-0.50")
    assert ratings.loc[("Patient", "DiCE", "Trust"), "Difference (95% interval)"] == "only in one run"
    assert "**Patient**: DiCE → **" in page  # DiCE failed in run B, so the patient gets another method
    assert not at.warning  # same model and data
    button(at, "Close comparison").click().run()
    assert "Run A" not in texts(at)


def test_compare_warns_when_the_runs_used_different_models(outputs):
    a = save_fixture_run(outputs, created="2026-01-02T03:04:05+00:00")
    b = save_fixture_run(outputs, created="2026-01-03T03:04:05+00:00", model_sha256="cd" * 32)
    at = app()
    open_page(at, "app_pages/compare.py")
    at.selectbox(key="compare_a").set_value(str(a)).run()
    at.selectbox(key="compare_b").set_value(str(b)).run()
    button(at, "Compare").click().run()
    assert not at.exception
    # the settings that differ, as sentences (here only the model file), never "Model file (sha256) | ab… | cd…"
    assert "- The runs used different model files (fingerprints abababababab… in run A and cdcdcdcdcdcd… in run B)." \
        in texts(at)
    assert not any("Setting" in d.value.columns for d in at.dataframe)
    assert [w.value for w in at.warning] == [
        "The runs used different model files (model sha256 abababababab… vs cdcdcdcdcdcd…): differences may come "
        "from the model, not from the settings."]


def test_settings_that_differ_read_as_sentences():
    """The earlier walk: rows like "Examples › Enabled | — | no" were labels, not something a person reads."""
    a = {"counts": {"sample_size": 5}, "config": {"evaluation": {"sample_size": 5, "explainers": {
        "lime": {"enabled": True, "num_samples": 500}}}}}
    b = {"counts": {"sample_size": 6}, "config": {"evaluation": {"sample_size": 6, "explainers": {
        "lime": {"enabled": False, "num_samples": 900}}}, "examples": {"enabled": False}}}
    assert settings_sentences(a, b) == [
        "Run A sampled 5 cases to explain and run B 6.",
        "LIME is turned on in run A and turned off in run B.",
        "The number of samples of LIME is 500 in run A and 900 in run B.",
        "Examples are left at the default in run A and turned off in run B."]
    assert not any("›" in line for line in settings_sentences(a, b))
    fewer = {**b, "counts": {"sample_size": 4}}  # asked for 6, explained 4: both are said
    assert "The sample size is 5 in run A and 6 in run B." in settings_sentences(a, fewer)


def test_a_difference_that_rounds_to_zero_reads_without_a_sign():
    """The walk: Compare showed "-0.073 (-0.145 to -0.000)"."""
    from hexeval_ui.compare_view import _change

    assert _change(-0.073, -0.145, -0.0002, "better", "{:+.3f}") == "-0.073 (-0.145 to 0.000)"
    assert _change(0.0, 0.0, -0.0, "within the uncertainty", "{:+.2f}") == "0.00 (0.00 to 0.00), within the uncertainty"


def test_only_a_change_beyond_the_uncertainty_is_coloured():
    assert change_style("better") == BETTER and change_style("worse") == WORSE
    assert change_style("within the uncertainty") == "" and change_style("only in one run") == ""


def test_saved_runs_are_named_by_their_time_and_the_id_is_only_in_the_tooltip(outputs):
    """The earlier walk: labels and headers showed ids ("run 20261129-025152-3ff6a9"), which nobody reads."""
    first = save_fixture_run(outputs, created="2026-01-02T03:04:05+00:00")
    second = save_fixture_run(outputs, created="2026-01-02T03:04:40+00:00")  # the same minute
    at = app(viewed_run=str(first))
    picker = at.selectbox(key="saved_run_choice")
    shown = list(picker.options)  # a label per run, as the picker shows it
    assert sorted(shown) == ["2 Jan 2026, 03:04:05 · simulated · 12 cases",
                             "2 Jan 2026, 03:04:40 · simulated · 12 cases"], shown
    table = at.dataframe[0].value
    assert list(table.columns) == ["When", "Rater", "Cases", "Status", "Failed methods", "Study"]
    page = texts(at) + " ".join(shown)
    assert first.name not in page and second.name not in page
    picker.set_value(str(second)).run()
    assert at.selectbox(key="saved_run_choice").help == f"Run id {second.name}, for the command line (hexeval runs show)."
    at = open_page(at, RESULTS)
    header = next(m for m in at.markdown if "cases sampled" in m.value)
    assert "run of 2 January 2026, 03:04 UTC" in header.value and first.name not in header.value
    assert first.name in header.help


def test_delete_asks_first_and_clears_the_run_on_screen(outputs):
    keep = save_fixture_run(outputs, created="2026-01-02T03:04:05+00:00")
    doomed = save_fixture_run(outputs, created="2026-01-03T03:04:05+00:00")
    at = app(viewed_run=str(doomed))
    at.selectbox(key="saved_run_choice").set_value(str(doomed)).run()
    button(at, "Delete…").click().run()
    assert any("permanently" in w.value and "currently shown" in w.value for w in at.warning)
    button(at, "Cancel").click().run()
    assert doomed.exists()
    button(at, "Delete…").click().run()
    button(at, "Delete permanently").click().run()
    assert not at.exception
    assert not doomed.exists() and keep.exists()
    deleted = next(i.value for i in at.info if "Deleted the run" in i.value)
    assert "3 Jan 2026, 03:04" in deleted and doomed.name not in deleted and "was the run on Results" in deleted
    assert at.session_state["viewed_run"] == "__latest__"
    open_page(at, RESULTS)
    assert not at.error and any("1 saved run of this use case is on this server" in i.value for i in at.info)


def test_a_deep_link_after_a_restart_offers_the_saved_runs_instead_of_no_results(outputs):
    """Issue 36 item 12: /results in a fresh session said "No results yet" although saved runs existed."""
    save_fixture_run(outputs, created="2026-01-02T03:04:05+00:00")
    newest = save_fixture_run(outputs, created="2026-01-03T03:04:05+00:00")
    at = open_page(app(usecase="heart"), RESULTS)
    assert not any("No results yet" in i.value for i in at.info)
    assert any("2 saved runs of this use case are on this server" in i.value for i in at.info)
    next(b for b in at.button if b.label.startswith("Open the newest saved run")).click().run()
    assert not at.exception and at.session_state["viewed_run"] == str(newest)
    assert not any("saved runs of this use case" in i.value for i in at.info)


def test_deleting_the_latest_session_run_forgets_it(outputs):
    doomed = save_fixture_run(outputs)
    at = app(session_runs={"heart": str(doomed)})
    at.selectbox(key="saved_run_choice").set_value(str(doomed)).run()
    button(at, "Delete…").click().run()
    button(at, "Delete permanently").click().run()
    assert at.session_state["session_runs"] == {}
    open_page(at, RECS)
    assert not at.error and any("No recommendations yet" in i.value for i in at.info)


def test_bad_upload_keeps_the_results_already_on_screen(outputs):
    run = save_fixture_run(outputs)
    at = app(session_runs={"heart": str(run)}, usecase="custom")
    heart = get_usecase("heart")
    at.file_uploader(key="upload_model").set_value(("model.skops", b"not a zip", "application/octet-stream"))
    at.file_uploader(key="upload_csv").set_value(("patients.csv", heart.data_path.read_bytes(), "text/csv")).run()
    next(s for s in at.selectbox if s.label == "Target column").set_value("target").run()
    assert any("not a skops model" in e.value for e in at.error)
    at.session_state["usecase"] = "heart"
    open_page(at, RESULTS)
    assert not at.error and any(run.name in (m.help or "") for m in at.markdown)  # the run's id, in its tooltip


def test_warnings_and_the_random_baseline_are_shown_where_results_are_read(outputs):
    run = save_fixture_run(outputs)
    manifest = json.loads((run / "run.json").read_text())
    manifest["warnings"] = [{"code": "model_has_no_signal", "severity": "error",
                             "message": "The model shows no usable signal on the held-out rows: its test ROC-AUC is 0.51."}]
    (run / "run.json").write_text(json.dumps(manifest))
    for page in (RESULTS, RECS):
        at = open_page(app(viewed_run=str(run)), page)
        assert any("no usable signal" in e.value for e in at.error), page
    at = open_page(app(viewed_run=str(run)), RESULTS)
    evidence = next(f.value for f in at.dataframe if "How to change it" in f.value.columns)
    rows = evidence.set_index("Method")
    assert "Random" in rows.index and not rows.loc["Random"].astype(str).str.contains("✓").any()
    assert rows.at["SHAP", "Why"].startswith("+")
    assert (rows["Cases"] > 0).all()


def test_compare_runs_of_different_use_cases_lists_one_sided_stakeholders(outputs):
    heart = runs.load_run(save_fixture_run(outputs, created="2026-01-02T03:04:05+00:00"))
    manifest = dict(heart.manifest, run_id=runs.new_run_id(), usecase="credit_risk", usecase_title="Credit risk",
                    created="2026-01-03T03:04:05+00:00", data={"sha256": "ef" * 32})
    recs = {"stakeholders": {"Loan Officer": {"recommended_method": "SHAP"},
                             "Patient": dict(heart.recommendations["stakeholders"]["Patient"])}}
    credit = runs.save_run(outputs, "credit_risk", manifest=manifest, recommendations=recs, explanations=[],
                           tables={"technical_metrics": heart.technical_metrics,
                                   "technical_metrics_long": heart.technical_metrics_long,
                                   "persona_ratings": heart.persona_ratings})
    at = app()
    assert any("compare" in str(link.proto.page) for link in at.get("page_link"))  # Configure & Run links to it
    assert "compare_a" not in [s.key for s in at.selectbox]
    open_page(at, "app_pages/compare.py")
    at.selectbox(key="compare_a").set_value(str(heart.path)).run()
    at.selectbox(key="compare_b").set_value(str(credit)).run()
    button(at, "Compare").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert "different use cases" in at.warning[0].value and "Credit risk" in at.warning[0].value
    page = texts(at)
    assert "Only in run A: Lead Cardiologist (not compared)." in page
    assert "Only in run B: Loan Officer (not compared)." in page
    assert "none" not in page.split("Recommendation changes")[1].split("Technical metrics")[0]
    assert "Every stakeholder present in both runs gets the same method in both." in page  # the Patient's pick


def test_the_run_being_viewed_stays_when_its_label_changes(outputs):
    """A run gains "with a study" while it is on screen: the sidebar says so and the picker keeps working. (AppTest
    keeps a picker's value as the option, not as the label a browser keeps, so the fall-back to "No run yet in this
    session" that a browser saw is caught by the browser test of the same name.)"""
    run = save_fixture_run(outputs, created="2026-01-02T03:04:05+00:00")
    other = save_fixture_run(outputs, created="2026-01-03T03:04:05+00:00")
    at = open_page(app(usecase="heart"), RESULTS)
    picker = next(s for s in at.selectbox if s.label == "Run being viewed")
    picker.set_value(str(run)).run()
    assert "run of 2 January 2026, 03:04 UTC" in texts(at)
    before = next(s for s in at.selectbox if s.label == "Run being viewed").options
    mark_with_study(run)
    at.run()
    at.run()  # the rerun after the one that drew the new label
    picker = next(s for s in at.selectbox if s.label == "Run being viewed")
    assert picker.options == before  # the short label in the picker; the full one, under it, did change:
    assert any(c.value.endswith("· with a study") for c in at.sidebar.caption)
    assert at.session_state["viewed_run"] == str(run) and picker.value == str(run)
    assert "run of 2 January 2026, 03:04 UTC" in texts(at) and "No run was made" not in texts(at)
    assert not at.exception and not at.error
    picker.set_value(str(other)).run()  # and the picker still works afterwards
    assert at.session_state["viewed_run"] == str(other) and "run of 3 January 2026, 03:04 UTC" in texts(at)


def test_the_timing_note_says_what_part_of_the_stage_the_methods_account_for():
    """The audit of 29 Nov: "they add up to the 1.32 s the technical evaluation took" beside a stage time of 1.34 s."""
    from hexeval_ui.metrics_table import timing_note

    manifest = {"timings": {"technical": 1.3404, "per_method": {"SHAP": 0.5, "shared": 0.3, "total": 1.32}}}
    assert timing_note(manifest).endswith("they add up to 1.32 s of the 1.34 s the technical evaluation took.")
    manifest["timings"]["technical"] = 1.321
    assert timing_note(manifest).endswith("they add up to the 1.32 s the technical evaluation took.")
