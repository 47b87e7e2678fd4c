"""Damaged study files and unreadable imports are described in words with a fix, never by a Python type name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hexeval_engine.errors import RunError
from hexeval_engine.study import ImportProblems, create_study, import_ratings
from hexeval_engine.study.storage import answers_relpath, read_answers, read_study, study_path
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

PYTHON_TYPES = re.compile(r"JSONDecodeError|ValueError|UnicodeDecodeError|OSError|ParserError|Error\)")


def test_a_damaged_study_or_answers_file_is_named_with_a_fix(run_copy):
    create_study(run_copy, cases=2, participants=1)
    study_path(run_copy).write_text("{ not json", encoding="utf-8")
    with pytest.raises(RunError) as study_err:
        read_study(run_copy)
    assert "damaged" in str(study_err.value) and "Create a new study" in str(study_err.value)
    answers = Path(run_copy) / answers_relpath("p1")
    answers.parent.mkdir(parents=True, exist_ok=True)
    answers.write_text("[1, 2", encoding="utf-8")
    with pytest.raises(RunError) as answers_err:
        read_answers(run_copy, "p1")
    assert "participant p1" in str(answers_err.value) and "new link" in str(answers_err.value)
    for message in (str(study_err.value), str(answers_err.value)):
        assert not PYTHON_TYPES.search(message), message
        assert str(run_copy) not in message


@pytest.mark.parametrize("edit, named", [(lambda s: s.pop("items"), "it lacks items"),
                                          (lambda s: s.update(participants=[]), "participants has the wrong form"),
                                          (lambda s: s.clear(), "it lacks status, base_url")])
def test_a_study_file_cut_short_or_edited_is_named_instead_of_breaking_the_pages(run_copy, edit, named):
    """A study.json holding valid JSON without what the pages read (here: no items) stopped Results with a traceback."""
    create_study(run_copy, cases=2, participants=1)
    study = json.loads(study_path(run_copy).read_text(encoding="utf-8"))
    edit(study)
    study_path(run_copy).write_text(json.dumps(study), encoding="utf-8")
    with pytest.raises(RunError) as err:
        read_study(run_copy)
    assert named in str(err.value) and "Create a new study" in str(err.value), str(err.value)
    study_path(run_copy).write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RunError, match="it is not a study record"):
        read_study(run_copy)


def test_an_import_that_is_not_csv_is_refused_in_words(run_copy, tmp_path):
    create_study(run_copy, cases=2, participants=1)
    binary = tmp_path / "ratings.csv"
    binary.write_bytes(b"\xff\xfe\x00\x00\x81\x82 not text")
    with pytest.raises(ImportProblems) as err:
        import_ratings(run_copy, binary)
    message = str(err.value)
    assert "cannot be read as CSV" in message and "UTF-8" in message
    assert not PYTHON_TYPES.search(message) and str(tmp_path) not in message
