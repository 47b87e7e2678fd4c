"""Charts: one colour per method, expected traces for the fixture data, None when empty."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from hexeval_engine.charts import (METHOD_COLORS, fidelity_chart, method_color, parsimony_chart, radar_chart,
                                   ratings_summary_chart, score_heatmap)
from hexeval_engine.recommend.recommender import generate_recommendations

from recommendation_fixtures import OFFICER_AND_APPLICANT, fixture_per_instance, long_table, ratings_table, wide_table


def _luminance(hex_color: str) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(int(hex_color[i:i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_one_distinct_colour_per_method_readable_on_light_and_dark():
    assert set(METHOD_COLORS) == {"SHAP", "LIME", "Anchor", "DiCE", "Examples", "Narrative", "Random"}
    assert len(set(METHOD_COLORS.values())) == 7
    for color in METHOD_COLORS.values():
        on_white = 1.05 / (_luminance(color) + 0.05)
        on_dark = (_luminance(color) + 0.05) / (_luminance("#0E1117") + 0.05)
        assert on_white >= 1.9 and on_dark >= 4.5, color
    # a method without a known spec (a plugin named only in a run's config) keeps one spare colour everywhere
    assert method_color("unknown") == method_color("unknown") and method_color("unknown") not in METHOD_COLORS.values()


def test_fidelity_chart_bars_colours_and_error_bars():
    fig = fidelity_chart(long_table())
    assert [t.name for t in fig.data] == ["SHAP", "LIME", "Anchor"] * 2  # DiCE has no fidelity in the fixture
    assert [t.marker.color for t in fig.data[:3]] == [METHOD_COLORS[m] for m in ("SHAP", "LIME", "Anchor")]
    # one stacked panel per metric (titles never overlap at phone width), horizontal bars named by method
    titles = [a.text for a in fig.layout.annotations]
    # short panel titles (at 390 px "… ↑ (higher is better)" ran off the edge); the chart's title explains the arrows
    assert titles == ["Prediction left as top features go ↓", "Prediction rebuilt from top features ↑"]
    assert "↑ higher is better, ↓ lower is better" in fig.layout.title.text
    deletion, insertion = fig.data[0], fig.data[3]
    assert deletion.orientation == "h" and list(deletion.y) == ["SHAP"] and list(deletion.x) == [0.20]
    assert list(insertion.x) == [0.80] and insertion.xaxis == "x2"
    assert list(deletion.error_x.array) == pytest.approx([0.05])
    assert list(deletion.error_x.arrayminus) == pytest.approx([0.05])
    assert list(fig.data[2].marker.pattern.shape) == ["/"]  # Anchor's fidelity is derived
    assert fig.layout.paper_bgcolor == "rgba(0,0,0,0)" and fig.layout.plot_bgcolor == "rgba(0,0,0,0)"


def test_fidelity_chart_reads_direction_from_the_table():
    table = long_table()
    table.loc[table["metric"] == "fidelity_deletion", "direction"] = "higher"
    assert fidelity_chart(table).layout.annotations[0].text == "Prediction left as top features go ↑"


def test_parsimony_chart_one_panel_per_metric_and_one_legend_entry_per_method():
    fig = parsimony_chart(wide_table())
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["Features that matter ↓", "Focus on few features ↑", "Spread over many features ↓",
                      "Conditions in the rule ↓", "Features changed ↓"]
    assert all(len(t) <= 40 for t in titles)  # fits a phone's width
    first = [t.name for t in fig.data if t.showlegend]
    assert first == ["SHAP", "LIME", "Anchor", "DiCE"]  # each method named once (the axis labels name them all)
    for trace in fig.data:
        assert trace.marker.color == METHOD_COLORS[trace.name]
    dice = [t for t in fig.data if t.name == "DiCE"]
    assert len(dice) == 1 and list(dice[0].x) == [2.0] and list(dice[0].y) == ["DiCE"]


def test_radar_chart_all_personas_and_one_persona():
    ratings = ratings_table(OFFICER_AND_APPLICANT)
    fig = radar_chart(ratings)
    assert [t.name for t in fig.data] == ["SHAP", "LIME", "Anchor", "DiCE"]
    assert [t.line.color for t in fig.data] == [METHOD_COLORS[m] for m in ("SHAP", "LIME", "Anchor", "DiCE")]
    # identical shapes stay distinguishable: every method has its own dash and marker symbol
    assert len({t.line.dash for t in fig.data}) == 4 and len({t.marker.symbol for t in fig.data}) == 4
    dice = fig.data[3]
    assert len(dice.r) == 7 and dice.r[0] == dice.r[-1] and dice.theta[0] == "Interpretability"
    # DiCE trust: the officer's ratings alternate 1, 3 (mean 2); the applicant's 4, 5 (6 clipped; mean 4.5).
    assert dice.r[3] == pytest.approx((2 + 4.5) / 2)
    applicant = radar_chart(ratings, "Applicant")
    assert applicant.data[3].r[3] == pytest.approx(4.5)
    assert "Applicant" in applicant.layout.title.text
    assert fig.layout.polar.radialaxis.range == (1, 5)


def test_ratings_summary_chart_means_and_intervals():
    fig = ratings_summary_chart(ratings_table(OFFICER_AND_APPLICANT, jitter=False))
    assert [t.name for t in fig.data] == ["SHAP", "LIME", "Anchor", "DiCE"]
    anchor = fig.data[2]
    assert anchor.marker.color == METHOD_COLORS["Anchor"]
    assert list(anchor.x)[3] == "Trust" and anchor.y[3] == pytest.approx(4.0)  # (5 + 3) / 2
    assert anchor.error_y.array[3] > 0
    assert all(n == 12 for n in anchor.customdata)
    assert "n = 12 ratings per method" in fig.layout.title.text


def test_ratings_summary_error_bars_stay_on_the_scale():
    """Two ratings, 5 and 1: the t-interval (±25) is clipped to the 1-5 scale, never drawn off the chart."""
    ratings = ratings_table(OFFICER_AND_APPLICANT, jitter=False)
    one = ratings[ratings["explanation_type"] == "SHAP"].head(2).copy()
    one[["interpretability"]] = [[5], [1]]
    bar = ratings_summary_chart(one).data[0]
    assert bar.y[0] == 3.0
    assert bar.y[0] + bar.error_y.array[0] == 5.0 and bar.y[0] - bar.error_y.arrayminus[0] == 1.0


def test_score_heatmap_marks_the_recommended_method():
    rec = generate_recommendations(long_table(), ratings_table(OFFICER_AND_APPLICANT), None, per_instance=fixture_per_instance())
    fig = score_heatmap(rec)
    [heat] = fig.data
    assert list(heat.x) == ["SHAP", "LIME", "Anchor", "DiCE"]
    assert list(fig.layout.yaxis.ticktext) == ["Applicant", "Loan officer"]
    for row, title in zip(heat.text, ["Applicant", "Loan officer"]):
        picked = rec["stakeholders"][title]["recommended_method"]
        assert [c.endswith("★") for c in row] == [m == picked for m in heat.x]
    scores = [v for row in heat.z for v in row if v == v]
    assert (heat.zmin, heat.zmax) == (-0.5, 0.5)  # a skill over no explanation, 0 in the middle
    subtitle = fig.layout.title.text.split("<sup>")[1].removesuffix("</sup>")
    # and says so, each line a whole phrase (the walk found "· 0 = no better than<br>no explanation")
    assert subtitle.split("<br>") == ["★ the recommended method · ✕ not recommended: no better than random explanations",
                                      "0 means no better than no explanation; colours run from −0.5 to +0.5"]
    assert all(c.startswith(("+", "-", "0.00")) for row in heat.text for c in row if c)  # signed: 0 means no help
    # each number in black or white, whichever contrasts with its cell: the highest (bright yellow) black
    inks = {a.text: a.font.color for a in fig.layout.annotations}
    high_cell = next(c for row, zr in zip(heat.text, heat.z) for c, v in zip(row, zr) if v == max(scores))
    assert inks[high_cell] == "#111111" and set(inks.values()) <= {"#111111", "#FFFFFF"}


def test_score_heatmap_leaves_excluded_methods_out():
    rec = generate_recommendations(wide_table(errors={"LIME": "crashed"}), None, None,
                                   per_instance=fixture_per_instance())
    fig = score_heatmap(rec)
    assert list(fig.data[0].x) == ["SHAP", "Anchor", "DiCE"]
    assert "Skill on each stakeholder's questions" in fig.layout.title.text


@pytest.mark.parametrize("empty", [None, pd.DataFrame()])
def test_empty_inputs_give_none(empty):
    assert fidelity_chart(empty) is None
    assert parsimony_chart(empty) is None
    assert radar_chart(empty) is None
    assert ratings_summary_chart(empty) is None
    assert score_heatmap(None) is None
    assert score_heatmap({"stakeholders": {}, "methods": []}) is None


def test_only_failed_ratings_give_no_rating_charts():
    failed = ratings_table(OFFICER_AND_APPLICANT, status="failed")
    assert radar_chart(failed) is None and ratings_summary_chart(failed) is None


def test_metrics_without_values_give_no_technical_chart():
    table = long_table({"DiCE": {"counterfactual_validity": (math.nan, math.nan, math.nan)}})
    assert fidelity_chart(table) is None and parsimony_chart(table) is None


def test_narrative_and_shap_colours_differ_in_hue():
    import colorsys

    def hue(hex_color: str) -> float:
        r, g, b = (int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5))
        return colorsys.rgb_to_hsv(r, g, b)[0] * 360

    gap = abs(hue(METHOD_COLORS["SHAP"]) - hue(METHOD_COLORS["Narrative"]))
    assert min(gap, 360 - gap) >= 90, "SHAP and its narrative retelling sit side by side on the radar"


def test_a_metric_only_one_method_has_gets_a_slim_panel_of_its_own():
    from hexeval_engine.charts import parsimony_chart
    rows = pd.DataFrame([
        {"method": m, "metric": "num_important_features", "value": v, "ci_low": v - 0.5, "ci_high": v + 0.5,
         "direction": "lower", "n": 10} for m, v in (("SHAP", 4.0), ("LIME", 5.0), ("Anchor", 2.0), ("DiCE", 3.0))
    ] + [{"method": "Anchor", "metric": "rule_length", "value": 2.0, "ci_low": 1.5, "ci_high": 2.5,
          "direction": "lower", "n": 10}])
    fig = parsimony_chart(rows, metrics=("num_important_features", "rule_length"))
    shares = [fig.layout.yaxis.domain[1] - fig.layout.yaxis.domain[0],
              fig.layout.yaxis2.domain[1] - fig.layout.yaxis2.domain[0]]
    assert shares[1] < shares[0] / 2, "one bar gets a quarter of four bars' height, not the same panel"
    assert list(fig.layout.yaxis2.categoryarray) == ["Anchor"]


def test_radar_tick_numbers_sit_between_two_dimension_spokes():
    """Issue 36 item 11: the tick numbers ran up the Interpretability spoke and over its label."""
    polar = radar_chart(ratings_table(OFFICER_AND_APPLICANT)).layout.polar
    spokes = len(radar_chart(ratings_table(OFFICER_AND_APPLICANT)).data[0].r) - 1
    step = 360 / spokes
    # spokes start at the angular axis' rotation and go round; the radial axis must lie half-way between two
    offset = (polar.radialaxis.angle - polar.angularaxis.rotation) % step
    assert offset == pytest.approx(step / 2), (polar.radialaxis.angle, polar.angularaxis.rotation)


def test_fidelity_title_hangs_from_the_top_with_room_for_every_subtitle_line():
    """Issue 36 item 11: the subtitle, centred in the top margin, touched the first panel's title."""
    fig = fidelity_chart(long_table())
    lines = fig.layout.title.text.count("<br>") + 1
    assert lines == 4  # title, what it measures, what the arrows mean, the hatching note (Anchor is derived here)
    assert fig.layout.title.yref == "container" and fig.layout.title.y == 1 and fig.layout.title.yanchor == "top"
    # 14 px padding, ~22 px for the title line, ~16 px a subtitle line, and ~24 px for the panel title under it
    assert fig.layout.margin.t >= fig.layout.title.pad.t + 22 + 16 * (lines - 1) + 24
