"""Naming a run on the command line: a whole run id names that run even when a longer id starts with it."""

from __future__ import annotations

from hexeval_engine.cli.main import main

from test_runs import save


def test_an_exact_run_id_wins_over_a_longer_id_that_starts_with_it(tmp_path, capsys):
    short = save(tmp_path, run_id="run-a")
    save(tmp_path, run_id="run-a2")
    assert main(["runs", "show", "run-a", "--output", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"Folder: {short}\n" in out


def test_a_partial_id_matching_two_runs_is_still_ambiguous(tmp_path, capsys):
    save(tmp_path, run_id="run-a1")
    save(tmp_path, run_id="run-a2")
    assert main(["runs", "show", "run-a", "--output", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "matches several runs" in err and "run-a1" in err and "run-a2" in err


def test_runs_show_reads_a_recommendation_without_a_score(tmp_path, capsys):
    """A run saved by an older HEXEval (its recommendation has no skill score) is shown, not a KeyError."""
    run = save(tmp_path, run_id="old-run")  # recommendations.json: {"Cardiologist": {"recommended_method": "SHAP"}}
    assert main(["runs", "show", str(run)]) == 0
    assert "Cardiologist: SHAP (" in capsys.readouterr().out
