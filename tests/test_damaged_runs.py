"""Damaged run folders, killed writers, strict names and the output root (issue 14, defects 7, 8, 9, 11)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from test_runs import save

from hexeval_engine import ConfigError, RunError, evaluate
from hexeval_engine.cli.main import main as cli
from hexeval_engine.runs.folders import remove_stale_temp_folders, temp_folders
from hexeval_engine.runs.store import delete_run, list_runs, load_run, scan_runs

ROOT = Path(__file__).resolve().parents[1]


def damage(root: Path) -> dict[str, Path]:
    """Three damaged runs next to a good one: invalid UTF-8 manifest, a folder where run.json should be,
    and a manifest that cannot be read."""
    folder = root / "heart"
    bad_utf8 = folder / "20261121-000001-aaaaaa"
    bad_utf8.mkdir(parents=True)
    (bad_utf8 / "run.json").write_bytes(b'{"run_id": "\xff\xfe"}')
    dir_manifest = folder / "20261121-000002-bbbbbb"
    (dir_manifest / "run.json").mkdir(parents=True)
    unreadable = folder / "20261121-000003-cccccc"
    unreadable.mkdir()
    (unreadable / "run.json").write_text("{}")
    return {"utf8": bad_utf8, "dir": dir_manifest, "unreadable": unreadable}


@pytest.fixture
def deny_unreadable(monkeypatch):
    """The tests run as root, where chmod cannot make a file unreadable: refuse it like a 0o000 file would be."""
    original = Path.read_text

    def read_text(self, *args, **kwargs):
        if self.parent.name == "20261121-000003-cccccc":
            raise PermissionError(13, "Permission denied", str(self))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)


def test_damaged_folders_are_listed_as_damaged_never_break_listing(tmp_path, deny_unreadable, capsys):
    good = save(tmp_path)
    bad = damage(tmp_path)
    infos = list_runs(tmp_path)
    by_path = {i.path: i for i in infos}
    assert by_path[good].status == "complete" and by_path[good].reason == ""
    assert {by_path[p].status for p in bad.values()} == {"damaged"}
    assert "not UTF-8" in by_path[bad["utf8"]].reason
    assert "cannot be read" in by_path[bad["dir"]].reason and "is a directory" in by_path[bad["dir"]].reason
    assert "permission denied" in by_path[bad["unreadable"]].reason
    assert by_path[bad["utf8"]].created.startswith("2026-11-21T00:00:01")
    assert cli(["runs", "list", "--output", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert good.name in out and out.count("damaged: heart/") == 3


def test_show_and_report_explain_garbage_and_truncated_tables(tmp_path, capsys):
    garbage, truncated = save(tmp_path), save(tmp_path)
    (garbage / "technical_metrics_long.csv").write_bytes(b"\x00\x01garbage\xff,\n\"unterminated")
    (truncated / "technical_metrics.csv").write_text("method,fidelity_insertion,error\nSHAP,0.5,\n")  # 1 of 2 rows
    for run, fragment in ((garbage, "technical_metrics_long.csv"), (truncated, "holds 1 row but the run saved 2")):
        with pytest.raises(RunError, match="re-run the evaluation"):
            load_run(run)
        for command in (["runs", "show"], ["report"]):
            assert cli([*command, str(run)]) == 1
            err = capsys.readouterr().err
            assert fragment in err and "Traceback" not in err
    (truncated / "technical_metrics.csv").write_text("name,score\nSHAP,0.5\nLIME,0.4\n")  # right rows, wrong table
    with pytest.raises(RunError, match="lacks the column"):
        load_run(truncated)


def test_a_kill_during_save_run_leaves_no_run_and_runs_clean_removes_the_leftover(tmp_path):
    """Deterministic: the writer stops inside save_run (every table written, not yet renamed) and says so;
    only then is it killed. Before issue 14, the leftover .tmp- folder stayed forever, unreported."""
    before = save(tmp_path)
    script = (
        "import sys, time, pandas as pd\n"
        "sys.path[:0] = [sys.argv[2], sys.argv[2] + '/tests']\n"
        "import hexeval_engine.runs.store as runs\n"
        "from test_runs import save\n"
        "def hang(path):\n"
        "    print('saving', flush=True)\n"
        "    time.sleep(600)\n"
        "runs._fsync_path = hang\n"
        "save(sys.argv[1])\n")
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(ROOT)], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "saving"
        leftovers = temp_folders(tmp_path)
        assert len(leftovers) == 1 and leftovers[0].writer_alive  # being saved: never removed
        assert remove_stale_temp_folders(tmp_path) == []
    finally:
        proc.kill()
        proc.wait()
    assert [r.path for r in list_runs(tmp_path)] == [before]
    (leftover,) = temp_folders(tmp_path)
    assert leftover.stale and (leftover.path / "technical_metrics.csv").exists()
    completed = subprocess.run([sys.executable, "-m", "hexeval_engine", "runs", "list", "--output", str(tmp_path)],
                               capture_output=True, text=True, cwd=ROOT)
    assert "1 unfinished run folder was left" in completed.stdout and "hexeval runs clean" in completed.stdout
    assert cli(["runs", "clean", "--output", str(tmp_path)]) == 0
    assert temp_folders(tmp_path) == [] and before.exists()


def test_usecase_names_and_run_ids_are_validated(tmp_path, capsys):
    outside = tmp_path / "x"
    outside.mkdir()
    save(tmp_path / "root")
    save(tmp_path, usecase="x")  # a run outside the root that ../x would reach
    assert cli(["runs", "list", "--usecase", "../x", "--output", str(tmp_path / "root")]) == 1
    captured = capsys.readouterr()
    assert "not a valid use-case name" in captured.err and captured.out == ""
    with pytest.raises(ConfigError):
        scan_runs(tmp_path / "root", "../x")
    assert cli(["runs", "show", "evil\nid", "--output", str(tmp_path / "root")]) == 1
    err = capsys.readouterr().err
    assert "evil\\nid" in err and "evil\nid" not in err
    with pytest.raises(RunError, match="not a valid run id"):
        save(tmp_path / "root", run_id="../../escape")
    with pytest.raises(RunError, match="not a valid use-case name"):
        save(tmp_path / "root", usecase="../escape")


def test_delete_removes_only_run_folders_under_the_root(tmp_path):
    root = tmp_path / "root"
    run = save(root)
    usecase_folder = run.parent
    (usecase_folder / "run.json").write_text("{}")  # a stray manifest one level up
    nested = run / "extra"
    nested.mkdir()
    (nested / "run.json").write_text("{}")
    leftover = usecase_folder / ".tmp-20261121-000000-abcdef-1"
    leftover.mkdir()
    (leftover / "run.json").write_text("{}")
    for target, message in ((usecase_folder, "not a run folder"), (nested, "not a run folder"),
                            (leftover, "not a run id"), (root, "not inside"), (tmp_path, "not inside")):
        with pytest.raises(RunError, match=message):
            delete_run(target, root)
    assert run.exists() and usecase_folder.exists() and leftover.exists()
    damaged = usecase_folder / "20261121-000009-dddddd"
    damaged.mkdir()
    (damaged / "run.json").write_text("{ broken")
    delete_run(damaged, root)  # a damaged run can be deleted: its messages say to
    delete_run(run, root)
    assert not run.exists() and not damaged.exists()


@pytest.mark.parametrize("kind", ["file", "under a file"])
def test_unusable_output_root_fails_before_any_work(tmp_path, monkeypatch, kind):
    # the module, not the function of the same name that hexeval_engine re-exports
    pipeline = importlib.import_module("hexeval_engine.evaluate")

    def must_not_run(*args, **kwargs):
        raise AssertionError("the technical evaluation started although runs cannot be saved")

    monkeypatch.setattr(pipeline, "run_technical_evaluation", must_not_run)
    blocker = tmp_path / "outputs-file"
    blocker.write_text("not a folder")
    target = blocker if kind == "file" else blocker / "runs"
    with pytest.raises(ConfigError, match="Runs cannot be saved in") as caught:
        evaluate(usecase="heart", output_dir=target, config_overrides={"personas": {"enabled": False}})
    assert "Choose another folder" in str(caught.value)


def test_listing_reads_a_run_whose_manifest_has_odd_types(tmp_path):
    run = save(tmp_path)
    manifest = json.loads((run / "run.json").read_text())
    manifest |= {"failures": ["not a dict", {"method": "LIME"}], "counts": {"sample_size": "many"},
                 "run_id": "line\nbreak"}
    (run / "run.json").write_text(json.dumps(manifest))
    (info,) = list_runs(tmp_path)
    assert info.methods_failed == ["LIME"] and info.sample_size is None and "\n" not in info.run_id
    row = pd.DataFrame([vars(info)]).iloc[0]  # the listing becomes a table in the CLI and the dashboard
    assert row["run_id"] == "line\\nbreak" and row["methods_failed"] == ["LIME"] and pd.isna(row["sample_size"])
    assert os.path.isdir(info.path)


def test_dashboard_lists_damaged_runs_with_the_reason_and_keeps_working(tmp_path):
    from app_helpers import app, open_page, texts
    from ui_run_fixtures import save_fixture_run

    root = Path(os.environ["HEXEVAL_OUTPUTS"])
    good = save_fixture_run(root)
    damage(root)
    (root / "heart" / ".tmp-20261121-000004-eeeeee-999999999").mkdir()  # a killed writer's leftover
    at = open_page(app(usecase="heart"), "app_pages/configure_run.py")
    shown_text = texts(at)
    assert "Damaged run `20261121-000001-aaaaaa` cannot be loaded" in shown_text and "not UTF-8" in shown_text
    assert "Damaged run `20261121-000002-bbbbbb`" in shown_text
    assert "1 unfinished run folder was left" in shown_text and "hexeval runs clean" in shown_text
    picker = at.selectbox(key="saved_run_choice")
    assert len(picker.options) == 1 and "simulated" in picker.options[0]  # the good run, named by its time
    # issue 36 item 12: nothing is preselected, so "Load" cannot open a run the reader did not choose
    assert picker.value is None and next(b for b in at.button if b.label == "Load").disabled


def test_a_run_folder_without_run_json_can_be_deleted_and_cleaned(tmp_path, capsys):
    kept = save(tmp_path)
    lost = save(tmp_path)
    (lost / "run.json").unlink()  # named like a run id
    renamed = tmp_path / "heart" / "my-backup"
    renamed.mkdir()
    (renamed / "technical_metrics.csv").write_text("method\nSHAP\n")  # only files a run holds
    foreign = tmp_path / "heart" / "notes"
    foreign.mkdir()
    (foreign / "todo.txt").write_text("not a run")
    assert cli(["runs", "list", "--output", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"damaged: heart/{lost.name}" in out and "hexeval runs clean" in out
    delete_run(renamed, tmp_path)
    assert not renamed.exists()
    with pytest.raises(RunError, match="files HEXEval does not write"):
        delete_run(foreign, tmp_path)
    assert cli(["runs", "clean", "--output", str(tmp_path)]) == 0
    assert "1 run folder without run.json" in capsys.readouterr().out
    assert not lost.exists() and foreign.exists() and kept.exists()
    assert [r.run_id for r in list_runs(tmp_path) if r.status == "complete"] == [kept.name]
