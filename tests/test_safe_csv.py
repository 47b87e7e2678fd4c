"""Spreadsheet-safe CSVs (OWASP CSV injection): formulas neutralised on disk, original values back in the engine."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.runs.store import load_run, new_run_id, save_run
from hexeval_engine.runs.tables import neutralise_cells, restore_cells

from test_runs import manifest, tables

HOSTILE = "=cmd|' /C calc'!A0"


@pytest.mark.parametrize("dtype", ["str", object, "category"])  # pandas' text type, plain objects, categories
def test_text_cells_that_start_a_formula_get_a_quote_numbers_do_not(dtype):
    frame = pd.DataFrame({"text": pd.Series([HOSTILE, "+1", "-x", "@SUM(A1)", "\tTab", "\rCR", "plain", "'=already",
                                             None], dtype=dtype),
                          "number": [-1.5, 2, 3, 4, 5, 6, 7, 8, 9]})
    out = neutralise_cells(frame)
    assert out["text"].tolist()[:8] == ["'" + HOSTILE, "'+1", "'-x", "'@SUM(A1)", "'\tTab", "'\rCR", "plain",
                                        "''=already"]
    assert out["text"].isna().tolist()[-1]
    assert out["number"].tolist() == frame["number"].tolist()
    assert frame["text"].iloc[0] == HOSTILE  # the caller's table is not changed


def test_restore_gives_every_original_back():
    values = [HOSTILE, "'", "''", "'=", "''-3", "'plain", "plain", "-", "=", ""]
    frame = pd.DataFrame({"text": values})
    assert restore_cells(neutralise_cells(frame))["text"].tolist() == values


def test_a_hostile_persona_role_is_neutralised_in_the_saved_file_and_read_back_unchanged(tmp_path):
    data = tables()
    data["persona_ratings"]["persona_role"] = [HOSTILE, "Cardiologist"]
    data["technical_metrics"]["error"] = ["-1 rows failed", ""]
    run_dir = save_run(tmp_path, "heart", manifest=manifest(new_run_id()), tables=data, recommendations={},
                       explanations=[])
    with open(run_dir / "persona_ratings.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["persona_role"] == "'" + HOSTILE
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows for cell in row.values())
    with open(run_dir / "technical_metrics.csv", newline="", encoding="utf-8") as fh:
        assert next(csv.DictReader(fh))["error"] == "'-1 rows failed"
    run = load_run(run_dir)
    assert run.persona_ratings["persona_role"].tolist() == [HOSTILE, "Cardiologist"]
    assert run.technical_metrics["error"].tolist() == ["-1 rows failed", ""]
    assert np.issubdtype(run.technical_metrics["fidelity_insertion"].dtype, np.number)
