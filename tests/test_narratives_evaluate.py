"""Narratives end to end, offline, through ``evaluate`` on both bundled use cases."""

from __future__ import annotations

import pytest

from hexeval_engine import evaluate
from hexeval_engine.errors import ConfigError
from hexeval_engine.narratives import narrative_summary
from hexeval_engine.runs.store import load_run

FAST = {"evaluation": {"sample_size": 12, "explainers": {"lime": {"enabled": False}, "anchor": {"enabled": False},
                                                        "dice": {"enabled": False}}}}


@pytest.mark.parametrize("usecase", ["heart", "credit_risk"])
def test_offline_narratives_are_written_scored_rated_and_saved(usecase, tmp_path):
    overrides = {**FAST, "narratives": {"enabled": True, "sample_instances": 12}}
    result = evaluate(usecase=usecase, config_overrides=overrides, output_dir=tmp_path)
    table = result.narratives
    real, fake = table[~table["manipulated"]], table[table["manipulated"]]
    # personas of both audiences: every case is narrated for lay and professional readers
    assert len(real) == 24 and set(real["audience"]) == {"lay", "professional"}
    assert (real[["rank_agreement", "sign_agreement", "value_agreement", "top_n_mentioned"]] == 1.0).all().all()
    assert (real["hallucinated"] == 0).all() and not real["flagged"].any() and (real["error"] == "").all()
    assert len(fake) == 24 and fake["flagged"].all()  # true-negative rate 100%
    assert set(real["narrator"]) == {"template"}
    ratings = result.persona_ratings
    narrative = ratings[ratings["explanation_type"] == "Narrative"]
    assert len(narrative) and (narrative["status"] == "ok").all()
    # each persona read the narrative written for its audience
    lay_text = dict(zip(real.loc[real["audience"] == "lay", "instance_id"], real.loc[real["audience"] == "lay", "text"]))
    end_user = narrative[narrative["explanation_text"].str.contains("your case")]
    assert len(end_user) and all(lay_text[i] == t for i, t in zip(end_user["instance_index"], end_user["explanation_text"]))
    assert "Narrative" not in set(result.technical_metrics["method"])  # no technical metrics it did not earn
    run = load_run(result.output_path)
    assert run.narratives is not None and len(run.narratives) == 48
    assert run.narratives["text"].tolist() == table["text"].tolist()
    assert run.narrative_extractions is not None and len(run.narrative_extractions) >= 5 * 48
    assert any(e["method"] == "Narrative" for e in run.explanations)
    summary = narrative_summary(run.narratives, result.config)["template"]
    assert summary["recommendable"] and summary["manipulation"]["true_negative_rate"] == 1.0
    assert result.manifest["narratives"]["narratives"] == 24


def test_narratives_switched_off_leave_runs_unchanged(tmp_path):
    from hexeval_engine.config.schema import HexevalConfig

    assert HexevalConfig().narratives.enabled is False  # off unless a config (the bundled ones do) switches it on
    overrides = {**FAST, "narratives": {"enabled": False}}
    result = evaluate(usecase="heart", config_overrides=overrides, output_dir=tmp_path, save=False)
    assert result.narratives is None
    assert "Narrative" not in set(result.persona_ratings["explanation_type"])


def test_a_switched_off_source_fails_before_any_work(tmp_path):
    overrides = {**FAST, "narratives": {"enabled": True, "source": "LIME"}}
    with pytest.raises(ConfigError, match="narratives.source is LIME"):
        evaluate(usecase="heart", config_overrides=overrides, output_dir=tmp_path)


def test_cli_flags_switch_narratives_on_and_pick_the_narrator(tmp_path, capsys):
    from hexeval_engine.cli.main import main

    code = main(["evaluate", "--usecase", "heart", "--sample-size", "6", "--no-personas", "--narratives",
                 "--narrator", "simulated", "--output", str(tmp_path), "--quiet"])
    assert code == 0
    [folder] = list((tmp_path / "heart").iterdir())
    run = load_run(folder)
    assert run.manifest["config"]["narratives"]["enabled"] is True
    assert run.narratives is not None and set(run.narratives["narrator"]) == {"template"}


def test_report_shows_narratives_with_their_faithfulness(tmp_path):
    from hexeval_engine.report.html import render_report

    overrides = {**FAST, "narratives": {"enabled": True, "sample_instances": 3}}
    result = evaluate(usecase="credit_risk", config_overrides=overrides, output_dir=tmp_path)
    html = render_report(load_run(result.output_path))
    assert "<h2>Narratives</h2>" in html and "Template narrator (built-in, no LLM)" in html
    assert "6 of 6 manipulated narratives flagged (true-negative rate 100%)" in html
    assert "Example for lay readers" in html and "Example for professionals" in html
    assert "This narrator can be recommended" in html
