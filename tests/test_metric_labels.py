"""Every metric a person reads on Results or in the report has a plain label and a one-sentence help."""

from __future__ import annotations

import re

import pytest
from recommendation_fixtures import long_table, wide_table

from hexeval_engine.charts.labels import metric_help, metric_title
from hexeval_engine.metrics.registry import METRICS
from hexeval_ui.metrics_table import build_metrics_table

#: Names from the papers a newcomer cannot read without them.
JARGON = re.compile(r"lipschitz|gini|entropy|\bauc\b|sparseness|sparsity|comprehensiveness|sufficiency|proximity|"
                    r"\bknn\b|cosine|\bnorm\b|_", re.IGNORECASE)


@pytest.mark.parametrize("metric", list(METRICS))
def test_every_registered_metric_has_a_plain_label_and_one_sentence_of_help(metric):
    label, help_ = metric_title(metric), metric_help(metric)
    assert METRICS[metric].label and METRICS[metric].help  # the spec carries its own words
    assert not JARGON.search(label), label
    assert not JARGON.search(help_), help_
    assert help_[0].isupper() and help_.endswith(".") and help_.count(". ") == 0, help_  # one sentence
    assert label.lower() != metric.replace("_", " ")  # a label, not the column name made readable


def test_the_results_tooltip_is_the_help_sentence_with_the_direction():
    table = build_metrics_table(wide_table(), long_table())
    helps = {label: text for group in table.groups for label, text in group.help.items()}
    assert helps["Prediction left as top features go ↓"] == (METRICS["fidelity_deletion"].help + " Lower is better.")
    assert not any(JARGON.search(label) for label in helps), list(helps)


def test_a_metric_this_release_does_not_know_keeps_the_runs_own_meaning():
    assert metric_help("new_metric", "Share of something") == "Share of something."
    assert metric_title("new_metric") == "New metric"


def test_the_report_prints_the_plain_label_and_its_sentence(tmp_path):
    from test_report import make_run  # the report tests' fake run, one source for both

    from hexeval_engine.report.html import render_report

    html = render_report(make_run())
    assert METRICS["rule_coverage"].help in html and "Cases the rule covers (search estimate)" in html
    assert "Gini sparseness" not in html and "Local lipschitz" not in html and "Deletion AUC" not in html
