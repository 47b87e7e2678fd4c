"""Ratings collected elsewhere (a survey tool, a paper's supplement), imported from the CSV template.

The whole file is checked first; every problem is reported (rows, column, value, fix) and nothing is
changed unless the file has none. The same problem (same column, same value) on many rows is one line
naming its rows ("rows 2–37, column explanation_type: 'XYZ' is not a method of this study; use one of …").
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import HexevalError
from ..paths import shown
from ..plain_values import describe_error
from ..ratings_summary import DIMENSIONS
from ..vocabulary import plural
from .cells import csv_text
from .human_table import TEMPLATE_COLUMNS
from .storage import is_link_id, read_study, write_study


class ImportProblems(HexevalError):
    """The CSV has problems; ``problems`` lists one sentence per problem."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(f"The file was not imported ({plural(len(problems), 'problem')}; nothing was changed):\n"
                         + "\n".join(f"- {p}" for p in problems))


def template(run) -> str:
    """The CSV template of a run's study: the columns and one example row per item for the first role."""
    study = read_study(run)
    role = study["roles"][0] if study["roles"] else "your role"
    rows = [{"participant_id": "r1", "role": role, "explanation_type": item["method"],
             "instance_index": item["instance_index"], **{d: "" for d in DIMENSIONS}, "comment": "",
             "simulation_answer": ""} for item in study["items"]]
    return csv_text(pd.DataFrame(rows, columns=list(TEMPLATE_COLUMNS)))


def check_rows(frame: pd.DataFrame, study: dict) -> tuple[list[dict], list[str]]:
    """The rows as records and the list of problems (empty when the file can be imported): one line per
    distinct problem, naming every row that has it."""
    missing = [c for c in TEMPLATE_COLUMNS if c not in frame.columns]
    problems = [f"column '{c}' is missing: add it (the template from `hexeval study template RUN` has every column)"
                for c in missing]
    if missing:
        return [], problems
    methods = set(study["methods"])
    cases = {int(i["instance_index"]) for i in study["items"]}
    roles = set(study["roles"])
    records, found = [], {}

    def problem(row_number: int, text: str) -> None:
        found.setdefault(text, []).append(row_number)

    for n, row in enumerate(frame.to_dict("records"), start=2):  # row 1 is the header
        record = {"participant_id": str(row["participant_id"]).strip(), "role": str(row["role"]).strip(),
                  "explanation_type": str(row["explanation_type"]).strip()}
        if not record["participant_id"] or record["participant_id"] == "nan":
            problem(n, f"column participant_id: empty; give each respondent an id such as r1")
        elif is_link_id(record["participant_id"]):
            taken = "is" if record["participant_id"] in study["participants"] else "has the form of"
            problem(n, f"column participant_id: '{shown(record['participant_id'])}' {taken} an id of this "
                            "study's participant links (p1, p2, ...), so imported answers would mix with a link's; "
                            f"rename it, e.g. r{record['participant_id'][1:]}")
        if record["role"] not in roles:
            problem(n, f"column role: '{shown(row['role'])}' is not a stakeholder of this run; use one of "
                            f"{', '.join(sorted(roles))}")
        if record["explanation_type"] not in methods:
            problem(n, f"column explanation_type: '{shown(row['explanation_type'])}' is not a method of this "
                            f"study; use one of {', '.join(sorted(methods))}")
        index = pd.to_numeric(pd.Series([row["instance_index"]]), errors="coerce").iloc[0]
        if pd.isna(index) or int(index) not in cases:
            problem(n, f"column instance_index: '{shown(row['instance_index'])}' is not a case of this "
                            f"study; use one of {', '.join(map(str, sorted(cases)))}")
        else:
            record["instance_index"] = int(index)
        for d in DIMENSIONS:
            value = pd.to_numeric(pd.Series([row[d]]), errors="coerce").iloc[0]
            if pd.isna(value) or value != int(value) or not 1 <= value <= 5:
                problem(n, f"column {d}: '{shown(row[d])}' is not a whole number from 1 to 5; write 1, 2, 3, 4 or 5")
            else:
                record[d] = int(value)
        answer = row["simulation_answer"]
        if pd.isna(answer) or str(answer).strip() == "":
            record["simulation_answer"] = None
        elif str(answer).strip() in ("0", "1", "0.0", "1.0"):
            record["simulation_answer"] = int(float(answer))
        else:
            problem(n, f"column simulation_answer: '{shown(answer)}' is not 0, 1 or empty; write 0 for "
                            f"'{study['outcomes'][0]}', 1 for '{study['outcomes'][1]}'")
        comment = row["comment"]
        record["comment"] = "" if pd.isna(comment) else str(comment)[:2000]
        records.append(record)
    return records, [f"{row_ranges(rows)}, {text}" for text, rows in found.items()]


def row_ranges(rows: list[int]) -> str:
    """``row 4``, or ``rows 2–37`` / ``rows 2–5, 9, 12–14 (8 rows)`` for the rows (ascending) of one problem."""
    if len(rows) == 1:
        return f"row {rows[0]}"
    runs, start = [], rows[0]
    for previous, current in zip(rows, [*rows[1:], None]):
        if current is None or current != previous + 1:
            runs.append(f"{start}–{previous}" if previous > start else str(start))
            start = current
    count = "" if len(runs) == 1 else f" ({len(rows)} rows)"
    return f"rows {', '.join(runs)}{count}"


def import_ratings(run, path) -> int:
    """Import the CSV at ``path`` into the run's study; returns the number of rows imported.

    Raises
    ------
    ImportProblems
        One sentence per problem; the run is unchanged.
    """
    study = read_study(run)
    try:
        frame = pd.read_csv(Path(path), dtype=str, keep_default_na=False)
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise ImportProblems([f"the file {shown(Path(path).name)} cannot be read as CSV ({describe_error(err)}); save it "
                              "as UTF-8 CSV from the template"]) from err
    frame = frame.replace("", pd.NA)
    records, problems = check_rows(frame, study)
    if problems:
        raise ImportProblems(problems)
    study["imported"] = [*study.get("imported", []), *records]
    write_study(run, study, what=f"study: {plural(len(records), 'rating')} imported from {shown(Path(path).name)}")
    return len(records)
