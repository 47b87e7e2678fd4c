"""A run's time reads as a date and a clock time ("25 November 2026, 08:45 UTC"), never as an ISO timestamp."""

from __future__ import annotations

import re

import pytest

from hexeval_engine.plain_values import show_time

ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


@pytest.mark.parametrize("iso, full, short", [
    ("2026-11-25T08:45:12.5+00:00", "25 November 2026, 08:45 UTC", "25 Nov 2026, 08:45"),
    ("2026-01-02T09:04:05+01:00", "2 January 2026, 08:04 UTC", "2 Jan 2026, 08:04"),  # converted to UTC
    ("2026-03-09T23:59:00", "9 March 2026, 23:59 UTC", "9 Mar 2026, 23:59"),  # HEXEval writes UTC
])
def test_show_time_gives_a_date_and_a_clock_time(iso, full, short):
    assert show_time(iso) == full and show_time(iso, short=True) == short


def test_a_text_that_is_no_time_is_said_to_be_unknown():
    assert show_time("yesterday") == "an unknown time"


def test_the_report_header_and_the_run_labels_read_the_time(tmp_path):
    from test_report import make_run  # the report tests' fake run, one source for both

    from hexeval_engine.report.html import render_report
    from hexeval_ui.runs_view import run_label
    from hexeval_engine.runs.store import list_runs
    from ui_run_fixtures import save_fixture_run

    run = make_run()
    run.manifest["created"] = "2026-11-25T08:45:12+00:00"
    html = render_report(run)
    header = html[html.index("<body"):html.index("</header>") if "</header>" in html else html.index("<body") + 3000]
    assert "25 November 2026, 08:45 UTC" in header and not ISO.search(header), header[:600]
    save_fixture_run(tmp_path, created="2026-11-25T08:45:12+00:00")
    label = run_label(list_runs(tmp_path)[0], with_title=True)
    assert "25 Nov 2026, 08:45" in label and not ISO.search(label), label


def test_picker_labels_fit_a_phone_and_tell_runs_of_the_same_minute_apart():
    from types import SimpleNamespace

    from hexeval_ui.runs_view import PICKER_CHARS, short_run_labels

    def info(path, title, created, run_id):
        return SimpleNamespace(path=path, title=title, usecase="heart", created=created, run_id=run_id)

    labels = short_run_labels([
        info("a", "Heart Disease (Healthcare)", "2026-11-25T08:29:01+00:00", "20261125-082901-acaf1f"),
        info("b", "Heart Disease (Healthcare)", "2026-11-25T08:29:40+00:00", "20261125-082940-93f3eb"),
        info("c", "A very long name someone typed for their upload", "2026-11-24T10:00:00+00:00", "x-1234")])
    # told apart by their seconds, never by their ids
    assert labels["a"] == "Heart Disease · 25 Nov, 08:29:01" and labels["b"] == "Heart Disease · 25 Nov, 08:29:40"
    assert labels["c"].endswith("… · 24 Nov, 10:00") and len(labels["c"]) <= PICKER_CHARS


def test_picker_labels_tell_two_uploads_of_the_same_name_apart_by_their_files_or_settings():
    """Issue 36 item 12: Compare's picker told two custom runs apart only by their time."""
    from types import SimpleNamespace

    from hexeval_ui.runs_view import PICKER_CHARS, short_run_labels

    def info(path, title, created, rater="simulated", size=20):
        return SimpleNamespace(path=path, title=title, usecase="custom-upload", created=created, run_id=f"r-{path}abcd",
                               rater=rater, sample_size=size)

    labels = short_run_labels([
        info("a", "Upload (forest.skops on cancer.csv)", "2026-11-25T08:29:01+00:00"),
        info("b", "Upload (boosted.skops on cancer.csv)", "2026-11-25T09:10:00+00:00"),
        info("c", "Mine (m.skops on d.csv)", "2026-11-25T09:00:05+00:00", size=20),
        info("d", "Mine (m.skops on d.csv)", "2026-11-25T09:00:40+00:00", size=50)])
    assert labels["a"].startswith("forest.skops · ") and labels["b"].startswith("boosted.skops · ")
    assert labels["c"].endswith("· 20 cases") and labels["d"].endswith("· 50 cases")
    assert all(len(v.split(" · ")[0]) + len(" · 25 Nov, 08:29") <= PICKER_CHARS + 1 for v in labels.values())


def test_an_upload_s_picker_label_names_its_model_file_not_a_cut_prefix():
    from types import SimpleNamespace

    from hexeval_ui.runs_view import PICKER_CHARS, short_run_labels

    labels = short_run_labels([SimpleNamespace(path="a", title="Custom: cancer.skops on cancer.csv", usecase="custom-cancer",
                                               created="2026-11-28T15:26:00+00:00", run_id="r-a", rater="simulated",
                                               sample_size=5)])
    assert labels["a"] == "cancer.skops · 28 Nov, 15:26" and len(labels["a"]) <= PICKER_CHARS  # was "Custom: cancer.sk…"


def test_picker_labels_of_runs_alike_to_the_second_are_still_different():
    """A picker maps the label the browser shows back to one run: two heart runs started in the same second (two
    command-line runs at once) with the same rater and size had one label, and picking the first opened the second."""
    from types import SimpleNamespace

    from hexeval_ui.runs_view import short_run_labels

    def info(path):
        return SimpleNamespace(path=path, title="Heart Disease (Healthcare)", usecase="heart",
                               created="2026-11-29T10:00:05+00:00", run_id=f"20261129-100005-{path}",
                               rater="simulated", sample_size=20)

    labels = short_run_labels([info("a"), info("b"), info("c")])
    assert len(set(labels.values())) == 3, labels
    assert labels["a"] == "Heart Disease · 29 Nov, 10:00:05 · 1 of that second"
    assert labels["c"] == "Heart Disease · 29 Nov, 10:00:05 · 3 of that second"
