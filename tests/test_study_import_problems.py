"""Import errors: the same problem (same column, same value) on many rows is said once, with its rows;
distinct problems keep one line each; nothing is changed."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.study import ImportProblems, create_study, import_ratings
from hexeval_engine.study.import_csv import row_ranges
from study_fixtures import file_hashes, run_copy, saved_run  # noqa: F401  (fixtures)


def test_row_ranges_in_words():
    assert row_ranges([4]) == "row 4"
    assert row_ranges(list(range(2, 38))) == "rows 2–37"
    assert row_ranges([2, 3, 4, 5, 9, 12, 13, 14]) == "rows 2–5, 9, 12–14 (8 rows)"
    assert row_ranges([3, 5]) == "rows 3, 5 (2 rows)"


def test_a_problem_repeated_on_many_rows_is_said_once_with_its_rows(run_copy, tmp_path):
    create_study(run_copy, cases=2, participants=1)
    study = json.loads((run_copy / "study/study.json").read_text())
    item = study["items"][0]
    good = {"participant_id": "r1", "role": study["roles"][0], "explanation_type": item["method"],
            "instance_index": item["instance_index"], **{d: 3 for d in DIMENSIONS}, "comment": "",
            "simulation_answer": 1}
    rows = [{**good, "explanation_type": "XYZ"} for _ in range(36)]  # file rows 2-37
    rows[1]["trust"] = 7  # file row 3
    rows[3]["trust"] = 7  # 5
    rows[4]["trust"] = 7  # 6
    rows[8]["role"] = "Astronaut"  # 10
    rows[20]["explanation_type"] = "ABC"  # 22: another value in the same column is another problem
    pd.DataFrame(rows).to_csv(tmp_path / "bad.csv", index=False)
    before = file_hashes(run_copy)
    with pytest.raises(ImportProblems) as err:
        import_ratings(run_copy, tmp_path / "bad.csv")
    methods = ", ".join(sorted(study["methods"]))
    assert err.value.problems == [
        f"rows 2–21, 23–37 (35 rows), column explanation_type: 'XYZ' is not a method of this study; use one of {methods}",
        "rows 3, 5–6 (3 rows), column trust: '7' is not a whole number from 1 to 5; write 1, 2, 3, 4 or 5",
        f"row 10, column role: 'Astronaut' is not a stakeholder of this run; use one of {', '.join(sorted(study['roles']))}",
        f"row 22, column explanation_type: 'ABC' is not a method of this study; use one of {methods}"]
    assert str(err.value).startswith("The file was not imported (4 problems; nothing was changed)")
    assert file_hashes(run_copy) == before
