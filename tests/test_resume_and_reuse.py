"""Never compute the same thing twice (issue 34): interrupted runs resume to the tables an uninterrupted run gives,
a run changing only the personas or the rater computes no explanation, a damaged store entry is recomputed, and
``runs extend`` adds LLM ratings to a saved run as an amendment the tamper check reads as written.

The interruptions are real: a ``hexeval evaluate`` process is sent SIGINT or SIGKILL from outside once its working
folder shows finished pieces of the stage under test (the technical stage's explanation calls, or answers of the
fake LLM server in the persona stage).
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from llm_server import FakeLLMServer
from small_runs import QUICK

from hexeval_engine import get_usecase
from hexeval_engine.evaluate import evaluate, extend_run
from hexeval_engine.explainers.registry import EXPLAINERS
from hexeval_engine.narratives.template import TemplateNarrator
from hexeval_engine.personas import loader as persona_loader
from hexeval_engine.technical import measuring, sanity
from hexeval_engine.technical import run as technical_run
from hexeval_engine.runs.explanation_store import PieceStore, store_folder, store_secret
from hexeval_engine.runs.resumable import resumable_runs
from hexeval_engine.runs.store import list_runs, load_run, scan_runs

ROOT = Path(__file__).resolve().parents[1]
evaluate_module = importlib.import_module("hexeval_engine.evaluate")  # the package's `evaluate` is the function
TABLES = ("technical_metrics.csv", "technical_metrics_long.csv", "instance_metrics.csv",
          "instance_metrics_unshared.csv", "persona_ratings.csv", "recommendations.json", "narratives.csv",
          "narrative_extractions.csv")
#: Columns that record how long this execution took or whether an answer came from the LLM cache, not a result.
TIMING_COLUMNS = {"technical_metrics.csv": ["seconds"], "persona_ratings.csv": ["latency_s", "cached"]}


def _comparable(folder: Path) -> dict[str, bytes]:
    """Each result table's bytes, without the columns that time this execution."""
    out = {}
    for name in TABLES:
        path = folder / name
        if not path.exists():
            continue
        if name in TIMING_COLUMNS:
            table = pd.read_csv(path, keep_default_na=False, dtype=str)
            out[name] = table.drop(columns=TIMING_COLUMNS[name]).to_csv(index=False).encode()
        else:
            out[name] = path.read_bytes()
    return out


def _only_run(root: Path) -> Path:
    runs, problems = scan_runs(root)
    assert len(runs) == 1 and not problems, (runs, problems)
    return runs[0].path


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hexeval_engine", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=600)


def _interrupt(args: list[str], ready, sig: int, env: dict | None = None) -> None:
    """Start ``hexeval evaluate ARGS``, send ``sig`` once ``ready()`` holds, and wait for the process to end."""
    proc = subprocess.Popen([sys.executable, "-m", "hexeval_engine", "evaluate", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 300
        while not ready():
            assert proc.poll() is None, "the run ended before the interruption point: " + proc.communicate()[1].decode()[-3000:]
            assert time.monotonic() < deadline, "the interruption point was never reached"
            time.sleep(0.005)
        proc.send_signal(sig)
        proc.wait(timeout=120)
        if sig == signal.SIGKILL:  # the killed process's helper may still hold its output pipes
            _kill_group(proc.pid)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        _kill_group(proc.pid)
    if sig == signal.SIGINT:
        assert proc.returncode == 130, err.decode()[-3000:]
        assert "--resume" in err.decode()


def _kill_group(pid: int) -> None:
    """End what is left of the interrupted command's process group (its helper process)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _pieces(root: Path) -> int:
    return sum(info.pieces for info in resumable_runs(root))


def _explanations_kept(root: Path) -> int:
    """How many of the working folders' pieces are explanations (the others: the check's re-fit and re-runs, noisy
    copies, metric sets)."""
    from hexeval_engine.explanation import Explanation

    count = 0
    for info in resumable_runs(root):
        store = PieceStore(info.path / "pieces", store_secret())
        count += sum(isinstance(store.get(p.name[:-len(".piece")]), Explanation)
                     for p in (info.path / "pieces").glob("*.piece"))
    return count


def _stage(root: Path) -> str:
    infos = resumable_runs(root)
    return infos[0].stage if infos else ""


def _stage_entry(root: Path) -> Path:
    """The shared store's entry of the whole technical stage's result (the one entry holding a run's stage)."""
    store = PieceStore(store_folder(root), store_secret())
    [stage] = [path for path in store_folder(root).glob("*.piece")
               if isinstance(piece := store.get(path.name[:-len(".piece")]), dict) and "value" in piece]
    return stage


def _technical_config(tmp_path: Path) -> Path:
    uc = get_usecase("heart")
    config = yaml.safe_load(uc.config_path.read_text())
    config["evaluation"] = {**config.get("evaluation", {}), "sample_size": 40, "bootstrap_resamples": 200}
    config.setdefault("personas", {}).update({"sample_instances": 2, "file": str(uc.personas_path)})
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_a_run_interrupted_in_the_technical_stage_resumes_to_the_same_tables(tmp_path, sig):
    config = _technical_config(tmp_path)
    fresh, stopped = tmp_path / "fresh", tmp_path / "stopped"
    done = _cli("evaluate", "--usecase", "heart", "--config", str(config), "--output", str(fresh), "--quiet")
    assert done.returncode == 0, done.stderr[-3000:]

    _interrupt(["--usecase", "heart", "--config", str(config), "--output", str(stopped), "--quiet"],
               lambda: _pieces(stopped) >= 12 and _stage(stopped) == "technical" and _explanations_kept(stopped) >= 6,
               sig)  # explanations among the pieces: the first few can all be the check's re-fit, re-runs and noisy
    # copies (a busy machine, the helper ahead), which are not explanations: the resumed run would reuse none
    assert scan_runs(stopped) == ([], [])  # nothing lists as a finished run
    [info] = resumable_runs(stopped)
    assert info.stage == "technical" and not info.running and info.pieces >= 12
    listing = _cli("runs", "list", "--output", str(stopped))
    assert "resumable" in listing.stdout and info.run_id in listing.stdout

    resumed = _cli("evaluate", "--resume", info.run_id, "--output", str(stopped), "--quiet")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    folder = _only_run(stopped)
    assert folder.name == info.run_id
    assert resumable_runs(stopped) == []  # the working folder is gone once the run is complete
    reuse = json.loads((folder / "run.json").read_text())["reuse"]
    assert reuse["explanations_reused"] > 0 and not reuse["technical_stage_reused"]
    assert _comparable(folder) == _comparable(_only_run(fresh))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_a_run_interrupted_in_the_persona_stage_resumes_to_the_same_ratings(tmp_path, sig):
    uc = get_usecase("heart")
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({**QUICK, "personas": {"file": str(uc.personas_path), "sample_instances": 2,
                                                            "runs_per_method": 1, "concurrency": 1}}))
    fresh, stopped = tmp_path / "fresh", tmp_path / "stopped"
    with FakeLLMServer(latency=0.05) as server:
        env = {"OPENAI_API_KEY": "sk-test-resume", "HEXEVAL_LLM_BASE_URLS": server.url}
        llm = ["--rater", "openai", "--llm-model", "test-model", "--llm-base-url", server.url]
        common = ["--usecase", "heart", "--config", str(config), "--quiet", *llm]
        done = _cli("evaluate", *common, "--output", str(fresh), env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        ratings = len(pd.read_csv(_only_run(fresh) / "persona_ratings.csv"))
        server.reset()

        _interrupt([*common, "--output", str(stopped)], lambda: len(server.completion_requests()) >= 6, sig, env=env)
        [info] = resumable_runs(stopped)
        assert info.stage == "personas"
        sent_before = len(server.completion_requests())
        assert 6 <= sent_before < ratings
        resumed = _cli("evaluate", "--resume", info.run_id, "--output", str(stopped), env=env)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        sent_after = len(server.completion_requests()) - sent_before
    folder = _only_run(stopped)
    assert json.loads((folder / "run.json").read_text())["reuse"]["technical_stage_reused"]
    # the answers received before the interruption were not asked again (one in flight may be)
    assert sent_after <= ratings - sent_before + 1
    assert _comparable(folder) == _comparable(_only_run(fresh))


class _Counted:
    """Counts every explanation call of every explainer class (in this process)."""

    def __init__(self, monkeypatch):
        self.calls = 0
        for cls in EXPLAINERS.values():
            original = cls.explain

            def explain(obj, *args, _original=original, **kwargs):
                self.calls += 1
                return _original(obj, *args, **kwargs)

            monkeypatch.setattr(cls, "explain", explain)


SEQUENTIAL = {**QUICK, "evaluation": {**QUICK["evaluation"], "parallel": {"backend": "sequential"}}}


def test_a_run_changing_only_the_personas_computes_no_explanation_and_matches_a_fresh_run(tmp_path, monkeypatch):
    counted = _Counted(monkeypatch)
    shared, fresh = tmp_path / "shared", tmp_path / "fresh"
    evaluate(usecase="heart", output_dir=shared, config_overrides=SEQUENTIAL)
    assert counted.calls > 0
    generic_file = ROOT / "configs" / "generic" / "personas.yaml"
    generic = {**SEQUENTIAL, "personas": {**SEQUENTIAL["personas"], "file": str(generic_file)}}
    reads = []
    real_read = persona_loader.read_yaml
    monkeypatch.setattr(persona_loader, "read_yaml", lambda path, **kw: reads.append(Path(path)) or real_read(path, **kw))
    told = []
    real_narrate = TemplateNarrator.narrate_many
    monkeypatch.setattr(TemplateNarrator, "narrate_many", lambda self, facts, *a, **kw: told.append(len(facts))
                        or real_narrate(self, facts, *a, **kw))
    weighed = []
    real_evidence = evaluate_module.technical_evidence_of
    monkeypatch.setattr(evaluate_module, "technical_evidence_of", lambda *a, **kw: weighed.append(1)
                        or real_evidence(*a, **kw))
    counted.calls = 0
    second = evaluate(usecase="heart", output_dir=shared, config_overrides=generic)
    assert counted.calls == 0
    assert reads == [generic_file]  # the persona file is read once per run
    assert told == []  # the generic personas' audiences are heart's: the narratives are those told before
    assert weighed == []  # and the recommendations' technical evidence is the one computed before
    assert second.manifest["reuse"]["explanations_computed"] == 0
    assert second.manifest["reuse"]["explanations_reused"] == sum(e.method != "Narrative"
                                                                  for e in second.technical.explanations)
    assert any(e.method == "Narrative" for e in second.technical.explanations)  # and rated
    alone = evaluate(usecase="heart", output_dir=fresh, config_overrides=generic)
    assert counted.calls > 0 and alone.manifest["reuse"]["explanations_reused"] == 0 and told and weighed
    assert (alone.output_path / "narratives.csv").exists()
    assert _comparable(second.output_path) == _comparable(alone.output_path)


def test_a_run_changing_only_the_rater_computes_no_explanation(tmp_path, monkeypatch, llm_server):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-rater")
    monkeypatch.setenv("HEXEVAL_LLM_BASE_URLS", llm_server.url)
    counted = _Counted(monkeypatch)
    evaluate(usecase="heart", output_dir=tmp_path, config_overrides=SEQUENTIAL)
    counted.calls = 0
    llm = {**SEQUENTIAL, "personas": {**SEQUENTIAL["personas"], "rater": "openai", "base_url": llm_server.url,
                                       "llm_model": "test-model"}}
    second = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=llm)
    assert counted.calls == 0 and set(second.persona_ratings["rater"]) == {"openai"}
    assert second.manifest["reuse"]["technical_stage_reused"]


def test_a_damaged_or_foreign_store_entry_is_ignored_and_recomputed(tmp_path, monkeypatch, caplog):
    counted = _Counted(monkeypatch)
    first = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=SEQUENTIAL)
    store = store_folder(tmp_path)
    entries = sorted(store.glob("*.piece"), key=lambda p: p.stat().st_size)
    stage = _stage_entry(tmp_path)
    ours = PieceStore(store, store_secret())
    small = next(p for p in entries if getattr(ours.get(p.name[:-len(".piece")]), "text", ""))  # a case's
    # explanation (not a noisy copy's, which has no text)
    data = bytearray(stage.read_bytes())
    data[-10] ^= 0xFF  # one flipped bit pattern in the payload
    stage.write_bytes(bytes(data))
    foreign = PieceStore(store, b"another installation's secret....")
    foreign.put(small.name[:-len(".piece")], "not an explanation")  # well-formed, signed by someone else
    counted.calls = 0
    second = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=SEQUENTIAL)
    reuse = second.manifest["reuse"]
    assert reuse["damaged_entries_ignored"] == 2 and not reuse["technical_stage_reused"]
    assert counted.calls > 0 and reuse["explanations_computed"] > 0
    assert "damaged or was not written by this installation" in caplog.text
    assert _comparable(second.output_path) == _comparable(first.output_path)


def test_store_entries_are_bound_to_their_key_and_pruned_to_the_limit(tmp_path):
    store = PieceStore(tmp_path / "s", b"k" * 32)
    store.put("a" * 64, {"x": 1})
    assert store.get("a" * 64) == {"x": 1}
    (tmp_path / "s" / ("a" * 64 + ".piece")).rename(tmp_path / "s" / ("b" * 64 + ".piece"))
    assert store.get("b" * 64) is None and store.rejected == 1  # an entry renamed to another key is not trusted
    store.put("c" * 64, list(range(1000)))
    path = tmp_path / "s" / ("c" * 64 + ".piece")
    path.write_bytes(path.read_bytes()[:-5])  # cut short
    assert store.get("c" * 64) is None and not path.exists()
    for k in "def":
        store.put(k * 64, list(range(500)))
        time.sleep(0.01)
    store.get("d" * 64)  # recently used: kept
    removed, _ = store.prune(limit=store.size() - 1)
    assert removed == 1 and store.get("e" * 64) is None and store.get("d" * 64) is not None


def test_runs_extend_adds_llm_ratings_to_a_simulated_run_as_an_amendment(tmp_path, monkeypatch, llm_server):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-extend")
    monkeypatch.setenv("HEXEVAL_LLM_BASE_URLS", llm_server.url)
    counted = _Counted(monkeypatch)
    first = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=SEQUENTIAL)
    before_ratings = (first.output_path / "persona_ratings.csv").read_bytes()
    before_recommendations = (first.output_path / "recommendations.json").read_bytes()
    counted.calls = 0
    outcome = extend_run(first.output_path, rater="openai", llm_model="test-model", llm_base_url=llm_server.url)
    assert counted.calls == 0 and outcome["reuse"]["explanations_computed"] == 0
    assert llm_server.completion_requests()
    run = load_run(first.output_path)
    assert set(run.persona_ratings["rater"]) == {"openai"} and (run.persona_ratings["status"] == "ok").all()
    assert "LLM personas: test-model" in run.rater_label
    kept = first.output_path / outcome["kept"]
    assert (kept / "persona_ratings.csv").read_bytes() == before_ratings
    assert (kept / "recommendations.json").read_bytes() == before_recommendations
    assert "persona_ratings.csv" in outcome["changed"] and "technical_metrics.csv" not in outcome["changed"]
    assert run.integrity.verifiable and run.integrity.edited == []
    [info] = list_runs(tmp_path)
    assert info.rater == "test-model" and info.integrity.edited == []
    listing = _cli("runs", "list", "--output", str(tmp_path))
    assert "as written" in listing.stdout and "EDITED" not in listing.stdout
    verified = _cli("runs", "verify", str(first.output_path))
    assert verified.returncode == 0 and "AS WRITTEN" in verified.stdout.upper(), verified.stdout
    manifest = json.loads((first.output_path / "run.json").read_text())
    assert manifest["amendments"][-1]["what"].startswith("extended with ratings by the LLM rater")


def test_runs_clean_removes_interrupted_runs_and_prunes_the_store(tmp_path):
    evaluate(usecase="heart", output_dir=tmp_path, config_overrides=SEQUENTIAL)
    assert list(store_folder(tmp_path).glob("*.piece"))
    stopped = tmp_path / "heart" / ".resume-20261128-120000-abcdef"
    (stopped / "pieces").mkdir(parents=True)
    (stopped / "resume.json").write_text(json.dumps({"run_id": "20261128-120000-abcdef", "started": "",
                                                     "stage": "technical", "arguments": {}}))
    (stopped / "lock").write_text("")
    listing = _cli("runs", "list", "--output", str(tmp_path))
    assert "resumable: heart/20261128-120000-abcdef" in listing.stdout
    cleaned = _cli("runs", "clean", "--output", str(tmp_path), env={"HEXEVAL_STORE_LIMIT_MB": "0"})
    assert cleaned.returncode == 0, cleaned.stderr
    assert not stopped.exists() and not list(store_folder(tmp_path).glob("*.piece"))
    assert len(list_runs(tmp_path)) == 1  # the saved run stays


def test_a_run_missing_part_of_its_pieces_computes_only_those_and_matches(tmp_path, monkeypatch):
    """LIME's calls are stored in chunks of 25 cases: with some chunks and the whole stage's result gone (as after
    an interruption), only the missing pieces are computed and the tables are those of the first run."""
    counted = _Counted(monkeypatch)
    settings = {**SEQUENTIAL, "evaluation": {**SEQUENTIAL["evaluation"], "sample_size": 30,
                                             "explainers": {**SEQUENTIAL["evaluation"]["explainers"],
                                                            "anchor": {"max_instances": 30},
                                                            "dice": {"max_instances": 30}}}}
    first = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=settings)
    stage = _stage_entry(tmp_path)
    stage.unlink()  # the whole stage's result
    for path in sorted(store_folder(tmp_path).glob("*.piece"), key=lambda p: p.stat().st_size)[::2]:
        path.unlink()
    counted.calls = 0
    second = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=settings)
    reuse = second.manifest["reuse"]
    assert reuse["explanations_reused"] > 0 and reuse["explanations_computed"] > 0
    assert reuse["explanations_reused"] + reuse["explanations_computed"] == first.manifest["reuse"]["explanations_computed"]
    assert _comparable(second.output_path) == _comparable(first.output_path)


def test_a_run_whose_explanations_are_stored_measures_and_checks_none_of_them_again(tmp_path, monkeypatch):
    """With the whole stage's entry gone (a run interrupted before its end), every method's metrics, the paired
    metrics and the randomisation check's re-fit and re-explanations come from the store: none is computed, and the
    tables and checks are those of the first run."""
    first = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=SEQUENTIAL)
    _stage_entry(tmp_path).unlink()  # the whole stage's result
    calls = []
    for module, name in ((measuring, "compute_instance_metrics"), (measuring, "paired_rows"),
                         (technical_run, "summarise"), (sanity, "_fit_permuted"), (sanity, "_redone")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    second = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=SEQUENTIAL)
    reuse = second.manifest["reuse"]
    assert calls == [] and reuse["explanations_computed"] == 0 and not reuse["technical_stage_reused"]
    # each method's metrics, the paired ones, and their summaries (means and intervals)
    assert reuse["metric_sets_reused"] == len(second.technical_metrics) + 2
    # the fit, and each method's re-runs: one piece per searched case for a search (Anchor, DiCE), else one
    pieces = [sanity.SEARCH_CASES if m in ("Anchor", "DiCE") else 1 for m in second.sanity["randomisation"]["methods"]]
    assert reuse["sanity_work_reused"] == 1 + sum(pieces)
    assert second.sanity == first.sanity
    assert _comparable(second.output_path) == _comparable(first.output_path)


def test_keeping_pieces_changes_no_result(tmp_path):
    """The same run with no store (the runner called directly) and with one (chunked, stored, with the helper
    process): the same tables."""
    settings = {"evaluation": {"sample_size": 40, "bootstrap_resamples": 200}, "personas": {"sample_instances": 2}}
    plain = evaluate(usecase="heart", config_overrides=settings, save=False, reuse=False)
    kept = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=settings)
    assert plain.manifest["reuse"]["store"] == "off" and kept.manifest["reuse"]["explanations_computed"] > 0
    for mine, theirs in ((plain.technical_metrics.drop(columns="seconds"), kept.technical_metrics.drop(columns="seconds")),
                         (plain.technical.per_instance, kept.technical.per_instance),
                         (plain.technical.metrics_long, kept.technical.metrics_long),
                         (plain.persona_ratings.drop(columns=["latency_s"]), kept.persona_ratings.drop(columns=["latency_s"]))):
        assert mine.to_csv(index=False) == theirs.to_csv(index=False)
    assert json.dumps(plain.recommendations, sort_keys=True, default=str) == json.dumps(
        kept.recommendations, sort_keys=True, default=str)
