"""``hexeval evaluate``, ``hexeval runs list|show|verify|compare|delete|clean`` and ``hexeval report``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from ..charts.labels import metric_title
from ..errors import RunError
from ..evaluate import evaluate
from ..explainers.plugin_warnings import plugin_messages
from ..llm.failures import all_failed
from ..plain_values import show_time
from ..paths import NAME_PATTERN, default_outputs_root, generic_personas_path, shown
from ..raters.run import uses_generic_personas
from ..recommend.ratings_source import ratings_source
from ..recommend.wording import LEAD_LABELS
from ..report.html import write_report
from ..runs.folders import is_orphan_run_folder, remove_orphan_run_folders, remove_stale_temp_folders, temp_folders
from ..runs.compare import compare_runs
from ..runs.files import REPORT
from ..runs.integrity import check_integrity, expected_hashes
from ..runs.store import delete_run, list_runs, load_run, read_manifest
from ..vocabulary import plural
from .inputs import UsageError, check_inputs
from .reuse_commands import check_resume_args, clean_resumable, print_resumable, register_extend, reuse_line


def register(sub, add_inputs) -> None:
    p = sub.add_parser("evaluate", help="run the whole evaluation and save it as a run folder")
    add_inputs(p)
    p.add_argument("--output", help="runs root (default: outputs/); the run goes to OUTPUT/<use-case>/<run-id>/")
    p.add_argument("--rater", choices=["simulated", "openai"], help="persona rater (default: from the config)")
    p.add_argument("--llm-model", help="LLM model name for --rater openai (default gpt-4o-mini)")
    p.add_argument("--llm-base-url", help="OpenAI-compatible server, e.g. http://localhost:11434/v1")
    p.add_argument("--sample-size", type=int, help="instances for the technical evaluation")
    p.add_argument("--personas", metavar="FILE", help="persona YAML (default: the config's personas.file; for your "
                   "own model without one: the generic personas, configs/generic/personas.yaml)")
    p.add_argument("--no-personas", action="store_true", help="technical evaluation only")
    p.add_argument("--narratives", action=argparse.BooleanOptionalAction, default=None,
                   help="also tell the source attributions as narratives, checked for faithfulness (default: from "
                        "the config, narratives.enabled)")
    p.add_argument("--narrator", choices=["simulated", "openai"],
                   help="who writes the narratives: the built-in template or an LLM (default: from the config)")
    p.add_argument("--categorical-encoding", choices=["auto", "label", "ordinal"],
                   help="how text columns reach a bare model: auto = as text (its pipeline encodes them), label = "
                        "sorted-category integer codes as scikit-learn's LabelEncoder, ordinal = the config's "
                        "data.category_order (default: the config's data.categorical_encoding)")
    p.add_argument("--allow-failed-ratings", action="store_true",
                   help="exit 0 even when every LLM persona rating failed (the run is saved either way and says why)")
    p.add_argument("--quiet", action="store_true", help="no progress bar (it is also off when stderr is not a terminal)")
    p.add_argument("--resume", metavar="RUN", help="continue an interrupted run (listed as resumable by `hexeval runs "
                   "list`) with its own inputs and settings, reusing every piece it had finished")
    p.set_defaults(func=evaluate_cmd)

    runs = sub.add_parser("runs", help="list, show, compare, delete or clean up saved runs")
    runs_sub = runs.add_subparsers(dest="runs_command", required=True)
    r = runs_sub.add_parser("list", help="saved runs, newest first (damaged ones with the reason)")
    r.add_argument("--usecase")
    r.add_argument("--output", help="runs root (default outputs/)")
    r.set_defaults(func=runs_list)
    r = runs_sub.add_parser("show", help="one run's summary")
    r.add_argument("run", help="run folder or run id")
    r.add_argument("--output")
    r.set_defaults(func=runs_show)
    r = runs_sub.add_parser("verify", help="check a run's signature and every file's hash: exit 0 only when it is "
                                           "verified as HEXEval wrote it")
    r.add_argument("run", help="run folder or run id")
    r.add_argument("--output")
    r.set_defaults(func=runs_verify)
    r = runs_sub.add_parser("compare", help="differences between two runs of the same use case")
    r.add_argument("run_a")
    r.add_argument("run_b")
    r.add_argument("--output")
    r.set_defaults(func=runs_compare)
    r = runs_sub.add_parser("delete", help="delete a saved run")
    r.add_argument("run")
    r.add_argument("--output")
    r.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    r.set_defaults(func=runs_delete)
    r = runs_sub.add_parser("clean", help="remove unfinished run folders (.tmp-*) left by evaluations that were killed, "
                                          "run folders that lost their run.json and interrupted (resumable) runs, "
                                          "and prune the explanation store and the remembered model checks to their size "
                                          "limits")
    r.add_argument("--output", help="runs root (default outputs/)")
    r.set_defaults(func=runs_clean)
    register_extend(runs_sub, _find, _print_tables)

    p = sub.add_parser("report", help="write a self-contained HTML report of a run")
    p.add_argument("run", help="run folder or run id")
    p.add_argument("--out", help="HTML file to write (default: RUN/report.html)")
    p.add_argument("--output", help="runs root used to find a run id")
    p.set_defaults(func=report_cmd)


def evaluate_cmd(args: argparse.Namespace) -> int:
    if args.resume:
        check_resume_args(args)
    else:
        check_inputs(args)  # evaluate() itself resolves a use case's files and trains its model if needed
    overrides: dict = {}
    if args.sample_size is not None:
        overrides.setdefault("evaluation", {})["sample_size"] = args.sample_size
    if args.categorical_encoding:
        overrides.setdefault("data", {})["categorical_encoding"] = args.categorical_encoding
    personas = overrides.setdefault("personas", {})
    if args.no_personas:
        personas["enabled"] = False
    if args.personas:
        personas["file"] = args.personas
    if args.rater:
        personas["rater"] = args.rater
    if args.llm_model:
        personas["llm_model"] = args.llm_model
    if args.llm_base_url:
        personas["base_url"] = args.llm_base_url
    if args.narratives is not None:
        overrides.setdefault("narratives", {})["enabled"] = args.narratives
    if args.narrator:
        overrides.setdefault("narratives", {})["narrator"] = args.narrator
    bar = _ProgressBar(disabled=args.quiet)
    try:
        result = evaluate(args.model, args.data, args.target, args.config, args.output, overrides,
                          usecase=args.usecase, on_progress=bar, allow_pickle=True, resume=args.resume)
    finally:
        bar.close()
    _print_summary(result)
    for warning in result.warnings:
        if warning.get("code") in ("persona_ratings_failed", "narratives_failed"):
            print(f"{'error' if warning.get('severity') == 'error' else 'warning'}: {warning['message']}",
                  file=sys.stderr)
    if all_failed(result.warnings, "personas") and not args.allow_failed_ratings:
        print("Every persona rating failed, so this run has no human-centred evidence (it was saved to show why). "
              "Fix the LLM server or settings named above and run again, or pass --allow-failed-ratings to accept "
              "a technical-only result.", file=sys.stderr)
        return 1
    return 0


def runs_list(args) -> int:
    root = _root(args)
    infos = list_runs(root, args.usecase)
    complete = [r for r in infos if r.status == "complete"]
    if not complete:
        print("No saved runs" + (f" for {shown(args.usecase)}" if args.usecase else "") + f" under {root}.")
    else:
        table = pd.DataFrame([{"run_id": r.run_id, "usecase": r.usecase, "created": show_time(r.created, short=True) if r.created else "", "rater": r.rater,
                               "sample": r.sample_size, "failed methods": ", ".join(r.methods_failed) or "-",
                               "files": _files_state(r.integrity), "study": r.study or "-"}
                              for r in complete])
        print(table.to_string(index=False))
        for r in complete:
            if r.integrity.warning:  # edited, or not verifiable: said as loudly as an edit
                print(f"warning: run {r.run_id}: {r.integrity.warning}")
    for r in infos:
        if r.status != "complete":
            fix = " Remove it with `hexeval runs clean` or `hexeval runs delete`." if is_orphan_run_folder(r.path) else ""
            print(f"damaged: {r.usecase}/{r.run_id}: {r.reason}{fix}")
    leftovers = [t for t in temp_folders(root) if not args.usecase or t.path.parent.name == args.usecase]
    stale = [t for t in leftovers if t.stale]
    if stale:
        print(f"{plural(len(stale), 'unfinished run folder')} {'was' if len(stale) == 1 else 'were'} left by "
              "evaluations that were stopped: "
              + ", ".join(f"{t.path.parent.name}/{shown(t.path.name)}" for t in stale)
              + ". Remove them with `hexeval runs clean`.")
    if len(leftovers) > len(stale):
        print(f"{len(leftovers) - len(stale)} run(s) being saved right now.")
    print_resumable(root, args.usecase)
    return 0


def runs_clean(args) -> int:
    root = _root(args)
    removed = remove_stale_temp_folders(root)
    orphans = remove_orphan_run_folders(root)
    for path in removed + orphans:
        print(f"Removed {path.parent.name}/{shown(path.name)}")
    busy = sum(1 for t in temp_folders(root) if t.writer_alive)
    print(f"Removed {plural(len(removed), 'unfinished run folder')} and {plural(len(orphans), 'run folder')} "
          f"without run.json under {root}." + (f" Left {busy} that a running evaluation is still writing." if busy else ""))
    clean_resumable(root)
    return 0


def runs_show(args) -> int:
    run = load_run(_find(args.run, args))
    m = run.manifest
    print(f"Run {run.run_id} ({m['usecase']}), created {show_time(m.get('created', ''))}; {run.rater_label}")
    source = ratings_source(m, run.recommendations)
    if source.kind == "people":  # the recommendations below rest on a study's people, not on the personas
        print(source.sentence)
    print(f"Folder: {run.path}")
    if run.integrity.warning:
        print(f"warning: {run.integrity.warning}")
    _print_tables(run.technical_metrics, run.recommendations)
    return 0


def runs_verify(args) -> int:
    """Say whether a run is verified as written (exit 0), edited or not verifiable (exit 1), and why."""
    path = _find(args.run, args)
    manifest = read_manifest(path)
    integrity = check_integrity(path, manifest)
    files = expected_hashes(manifest) or {}
    amendments = manifest.get("amendments") if isinstance(manifest.get("amendments"), list) else []
    print(f"Run {shown(path.name)} ({shown(manifest['usecase'])}): {integrity.state.upper()}")
    print(f"Signature: {_SIGNATURE_WORDS.get(integrity.signature, integrity.signature)}"
          + (f" (key {integrity.signer})" if integrity.signer else ""))
    print(f"Files: {plural(len(files), 'file')} recorded, {plural(len(amendments), 'amendment')} by HEXEval; "
          + (f"edited: {', '.join(integrity.edited)}" if integrity.edited else "none differs from its hash"
             if files else "no hashes recorded"))
    if integrity.warning:
        print(f"warning: {integrity.warning}")
    return 0 if integrity.state == "as written" else 1


_SIGNATURE_WORDS = {"valid": "valid, made with this installation's key", "invalid": "FAILS",
                    "unsigned": "none (saved before HEXEval signed runs)",
                    "other_key": "made by another installation's key: cannot be checked here",
                    "no_key": "cannot be checked: this installation has no key yet",
                    "no_hashes": "none (saved before HEXEval recorded hashes)"}


def runs_compare(args) -> int:
    diff = compare_runs(load_run(_find(args.run_a, args)), load_run(_find(args.run_b, args)))
    for warning in diff["warnings"]:
        print(f"warning: {warning}")
    print(f"Metric differences (b − a, 95% interval), a = {diff['a']}, b = {diff['b']}:")
    metric_cols = ["method", "metric", "a", "b", "difference", "difference_low", "difference_high", "verdict"]
    print(diff["metrics"].dropna(subset=["difference"])[metric_cols].to_string(
        index=False, float_format=lambda v: f"{v:.3f}"))
    ratings = diff["ratings"]
    if len(ratings):
        cols = ["persona_role", "explanation_type", "dimension", "n_a", "n_b", "difference", "difference_low",
                "difference_high", "verdict"]
        print("\nMean rating differences (b − a, bootstrap 95% interval, n ratings per run):")
        shown = ratings[ratings["dimension"].isin(["trust", "satisfaction"])][cols]
        print(shown.to_string(index=False, float_format=lambda v: f"{v:+.2f}"))
    for role, (a, b) in diff["recommendation_changes"].items():
        print(f"Recommendation for {role}: {a or 'none'} → {b or 'none'}")
    for side in ("a", "b"):
        if diff[f"only_in_{side}"]:
            print(f"Only in run {side} (not compared): {', '.join(diff[f'only_in_{side}'])}")
    return 0


def runs_delete(args) -> int:
    path = _find(args.run, args)
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(f"refusing to delete {path} without confirmation; pass --yes")
        if input(f"Delete run {path}? [y/N] ").strip().lower() != "y":
            print("Nothing deleted.")
            return 0
    delete_run(path, _root(args))
    print(f"Deleted {path}")
    return 0


def report_cmd(args) -> int:
    run = load_run(_find(args.run, args))
    out = Path(args.out) if args.out else run.path / REPORT
    print(f"Report written to {write_report(run, out)}")
    return 0


def _files_state(integrity) -> str:
    """The listing's word for a run's files: as written (signature and hashes verified), EDITED, or NOT VERIFIABLE."""
    return integrity.state if integrity.state == "as written" else integrity.state.upper()


def _root(args) -> Path:
    return Path(args.output) if getattr(args, "output", None) else default_outputs_root()


def _find(ref: str, args) -> Path:
    """The run folder ``ref`` names: a path to a folder, or a run id (or its unique start) under the root.

    A whole run id wins over longer ids that start with it; only a partial id can be ambiguous.
    """
    path = Path(ref)
    if path.is_dir():
        return path
    if not NAME_PATTERN.fullmatch(ref):
        raise RunError(f"'{shown(ref)}' is neither a run folder nor a run id (letters, digits, '_' and '-'). "
                       "List runs with `hexeval runs list`.")
    root = _root(args)
    matches = [p for p in root.glob("*/*") if p.is_dir() and p.name.startswith(ref) and not p.name.startswith(".")]
    exact = [p for p in matches if p.name == ref]
    if exact:  # a whole id names its run even when a longer id starts with it
        matches = exact
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RunError(f"No run '{ref}' under {root}. List runs with `hexeval runs list`.")
    raise RunError(f"'{ref}' matches several runs ({', '.join(shown(p.name) for p in matches)}); give more of the id.")


def _print_summary(result) -> None:
    print(f"\nRun {result.run_id} ({result.usecase}) saved to {result.output_path}")
    task = result.manifest.get("task", {})
    if task.get("kind") == "regression":
        print(f"Task: regression of {task.get('quantity')}; each case is explained on one side of a band around its "
              "prediction (why it is this high, or this low).")
    if task.get("kind") == "multiclass":
        print(f"Task: {task['description']} ({', '.join(task['class_names'])}); each case is explained for the "
              "class the model predicts, against its strongest rival.")
    reuse = result.manifest.get("reuse") or {}
    if reuse.get("explanations_reused"):
        print(reuse_line(reuse))
    rater = result.manifest.get("rater", {})
    if rater.get("kind") == "simulated":
        print("Persona ratings: SIMULATED (built-in rater, no LLM).")
    elif rater.get("kind") not in (None, "none"):
        s = result.persona_stats
        print(f"Persona ratings: {rater.get('model')} — calls {s.get('calls_made', '?')}, cached {s.get('cached', '?')}, "
              f"failed {s.get('failed', '?')}, tokens {s.get('tokens_used', '?')}")
    if uses_generic_personas(result.config):
        print(f"Personas: the generic, domain-neutral set ({generic_personas_path()}), because no persona file was "
              "given; pass --personas FILE for personas of your field.")
    for warning in result.validation.get("warnings", []):
        print(f"warning: {warning}")
    for message in plugin_messages(result.warnings):
        print(f"warning: {message}")
    _print_tables(result.technical_metrics, result.recommendations)


def _print_tables(metrics: pd.DataFrame, recommendations: dict) -> None:
    cols = [c for c in ("method", "fidelity_deletion", "fidelity_insertion", "num_important_features", "stability",
                        "rule_precision", "rule_coverage", "counterfactual_validity", "seconds", "error")
            if c in metrics.columns]
    n = int(metrics["n_instances"].max()) if "n_instances" in metrics.columns and len(metrics) else 0
    print(f"\nTechnical metrics (means over the {n} cases every method explained):")
    names = {c: metric_title(c) for c in cols} | {"method": "Method", "seconds": "Seconds", "error": "Error"}
    table = metrics[cols].rename(columns=names)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="-"))
    stakeholders = recommendations.get("stakeholders", {})
    if recommendations.get("mode") == "disabled":
        print("\n" + " ".join(recommendations.get("notes", [])))
    if stakeholders:
        label = (" (measured on the questions each stakeholder asks)" if recommendations.get("basis") == "questions"
                 else "")
        print(f"\nRecommendations{label}:")
        for role, rec in stakeholders.items():
            if rec.get("recommended_method") is None:
                print(f"  {role}: no recommendation ({rec.get('reason') or 'see the run'})")
                continue
            lead = LEAD_LABELS.get(rec.get("lead"), LEAD_LABELS["none"])
            score = rec.get("score")  # a run saved by an older HEXEval may have none, or another kind of score
            skill = f"skill {score:+.2f} over no explanation, " if isinstance(score, (int, float)) else ""
            print(f"  {role}: {rec.get('recommended_method')} ({skill}{lead})")
            if rec.get("decided_by"):
                print(f"    why this pick: {rec['decided_by'].replace('*', '')}")
            if rec.get("gap"):
                print(f"    perceived and measured disagree: {rec['gap']}")


class _ProgressBar:
    """tqdm bar fed by the engine's on_progress callback; off when stderr is not a terminal (a log file, CI),
    where each redraw would pile up on one huge line."""

    def __init__(self, *, disabled: bool):
        # disable=None: tqdm turns itself off when the file is not a TTY
        self.bar = tqdm(total=100, disable=True if disabled else None, file=sys.stderr,
                        bar_format="{l_bar}{bar}| {elapsed}")
        self.done = 0

    def __call__(self, done: int, total: int, message: str) -> None:
        self.bar.set_description_str(message[:60])
        if done > self.done:
            self.bar.update(done - self.done)
            self.done = done

    def close(self) -> None:
        self.bar.close()
