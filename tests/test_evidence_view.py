"""What the recommendation cards say about the paired comparisons they show."""

from __future__ import annotations

from hexeval_ui.evidence_view import comparisons_table, comparisons_title


def test_a_tie_break_winner_does_not_take_the_leaders_comparisons_as_its_own():
    """LIME scored highest; SHAP won the parsimony tie-break: the table is LIME's, and the title says so."""
    entry = {"recommended_method": "SHAP",
             "comparisons": [{"method": "SHAP", "vs": "LIME", "diff": 0.01, "ci_low": -0.02, "ci_high": 0.04,
                              "p_value": 0.69, "p_holm": 0.69, "n": 8}]}
    assert comparisons_title(entry) == ("Paired comparisons of LIME (the highest score; SHAP is recommended on the "
                                        "tie-break)")
    assert not comparisons_table(entry).empty


def test_the_leaders_own_comparisons_are_titled_with_its_name():
    entry = {"recommended_method": "SHAP",
             "comparisons": [{"method": "LIME", "vs": "SHAP", "diff": 0.05, "ci_low": 0.01, "ci_high": 0.09,
                              "p_value": 0.01, "p_holm": 0.02, "n": 12}]}
    assert comparisons_title(entry) == "Paired comparisons of SHAP"


def test_the_narrative_row_says_whose_fidelity_it_carries():
    from hexeval_ui.evidence_view import baseline_table

    fid = {"value": 0.84, "ci_low": 0.8, "ci_high": 0.88, "n": 20}
    vs = {"diff": 0.3, "ci_low": 0.2, "ci_high": 0.4, "p_value": 0.001, "qualifies": True}
    recs = {"technical": {"SHAP": {"family": "attribution", "fidelity": fid, "vs_baseline": vs},
                          "Narrative": {"family": "narrative", "fidelity": fid, "vs_baseline": vs,
                                        "narrative": {"source": "SHAP"}}}}
    assert list(baseline_table(recs)["Method"]) == ["SHAP", "Narrative (retells SHAP: its fidelity)"]


def test_comparisons_read_as_wrapped_lines_with_every_number_and_the_words_explained():
    from hexeval_ui.evidence_view import COMPARISON_WORDS, comparisons_markdown
    entry = {"recommended_method": "SHAP", "comparisons": [
        {"method": "LIME", "vs": "SHAP", "diff": 0.1, "ci_low": 0.07, "ci_high": 0.14, "n": 8, "p_holm": 0.002}]}
    text = comparisons_markdown(entry)
    assert text.startswith("- vs **LIME**: difference +0.10 (95% interval")
    assert "8 paired cases" in text and "corrected p = 0.002" in text
    for word in ("Paired case:", "Corrected p:", "95% interval:"):
        assert word in COMPARISON_WORDS


def test_a_p_value_no_resample_reached_reads_as_one_bound_with_a_single_rival():
    """With one rival the bootstrap's smallest p-value (0.0009995) is below 0.001: the cell read "≤ < 0.001"."""
    from hexeval_engine.paired_stats import smallest_p
    from hexeval_ui.evidence_view import comparisons_markdown

    floor = smallest_p(2000)
    entry = {"comparisons": [{"method": "LIME", "vs": "SHAP", "diff": 0.1, "ci_low": 0.05, "ci_high": 0.2, "n": 20,
                              "p_holm": floor, "p_at_floor": True},
                             {"method": "DiCE", "vs": "SHAP", "diff": 0.2, "ci_low": 0.1, "ci_high": 0.3, "n": 20,
                              "p_holm": 0.0123, "p_at_floor": False}]}
    assert comparisons_table(entry)["p (Holm)"].tolist() == ["≤ 0.001", "0.012"]
    lines = comparisons_markdown(entry).splitlines()
    assert lines[0].endswith("20 paired cases, corrected p ≤ 0.001") and lines[1].endswith("corrected p = 0.012")
