"""The command line's side of resuming, reusing and extending runs: ``hexeval runs extend``, the resumable lines of
``hexeval runs list``, what ``hexeval runs clean`` removes from the store, and the summary's reuse line."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..evaluate import extend_run
from ..paths import default_outputs_root, shown
from ..plain_values import show_time
from ..runs import model_audits
from ..runs.explanation_store import PieceStore, store_folder, store_limit, store_secret
from ..runs.resumable import remove_resumable, resumable_runs
from ..vocabulary import plural
from .inputs import UsageError


def register_extend(runs_sub, find_run, print_tables) -> None:
    """``hexeval runs extend RUN ...`` (``find_run(ref, args)`` finds the folder, ``print_tables`` prints the result)."""
    r = runs_sub.add_parser("extend", help="add LLM ratings, personas, narratives, methods or cases to a saved run "
                                           "(only what depends on them is recomputed; recorded as an amendment)")
    r.add_argument("run", help="run folder or run id")
    r.add_argument("--output", help="runs root (default outputs/)")
    r.add_argument("--rater", choices=["simulated", "openai"], help="rate the run's explanations with this rater")
    r.add_argument("--llm-model", help="LLM model name for --rater openai (default gpt-4o-mini)")
    r.add_argument("--llm-base-url", help="OpenAI-compatible server, e.g. http://localhost:11434/v1")
    r.add_argument("--personas", metavar="FILE", help="have these personas rate the run's explanations")
    r.add_argument("--narratives", action="store_true", help="also tell the source attributions as narratives")
    r.add_argument("--methods", nargs="+", metavar="METHOD", choices=["SHAP", "LIME", "Anchor", "DiCE"],
                   help="explanation methods to add (SHAP, LIME, Anchor, DiCE)")
    r.add_argument("--sample-size", type=int, help="a larger number of cases for the technical evaluation")
    r.set_defaults(func=lambda args: extend_cmd(args, find_run, print_tables))


def extend_cmd(args, find_run, print_tables) -> int:
    asked = {"rater": args.rater, "llm_model": args.llm_model, "llm_base_url": args.llm_base_url,
             "personas": args.personas, "narratives": args.narratives or None, "methods": args.methods,
             "sample_size": args.sample_size}
    if not any(v for k, v in asked.items() if k not in ("llm_model", "llm_base_url")):
        raise UsageError("say what to add: --rater, --personas, --narratives, --methods or --sample-size")
    if (args.llm_model or args.llm_base_url) and args.rater != "openai":
        raise UsageError("--llm-model and --llm-base-url go with --rater openai")
    run_dir = find_run(args.run, args)
    outcome = extend_run(run_dir, **asked, allow_pickle=True)  # the operator's own runs folder
    print(f"Run {outcome['run_id']} extended: {outcome['what']}.")
    print(reuse_line(outcome["reuse"]))
    if outcome["changed"]:
        print(f"Files added or replaced: {', '.join(outcome['changed'])}; the earlier versions are in "
              f"{outcome['kept']}.")
    for role, (before, after) in outcome["recommendation_changes"].items():
        print(f"Recommendation for {role}: {before or 'none'} → {after or 'none'}")
    print_tables(outcome["technical_metrics"], outcome["recommendations"])
    return 0


def reuse_line(reuse: dict) -> str:
    """One sentence: how many explanations were reused (and from which run) and how many computed."""
    reused, computed = int(reuse.get("explanations_reused", 0)), int(reuse.get("explanations_computed", 0))
    source = f" from run {reuse['reused_from']}" if reuse.get("reused_from") else ""
    damaged = int(reuse.get("damaged_entries_ignored", 0))
    note = (f" {plural(damaged, 'stored entry', 'stored entries')} {'was' if damaged == 1 else 'were'} damaged or "
            "foreign: ignored and computed again." if damaged else "")
    return f"Reused {plural(reused, 'explanation')}{source}; computed {computed}.{note}"


def print_resumable(root: Path, usecase: str | None) -> None:
    """``runs list``'s lines for interrupted runs (resumable) and runs in progress."""
    for info in resumable_runs(root, usecase):
        started = show_time(info.started, short=True) if info.started else "an unknown time"
        if info.running:
            print(f"running: {info.usecase}/{info.run_id} (started {started}, now in {info.stage_words})")
            continue
        print(f"resumable: {info.usecase}/{info.run_id}: interrupted in {info.stage_words} (started {started}, "
              f"{plural(info.pieces, 'finished piece')} kept). Continue it with `hexeval evaluate --resume "
              f"{info.run_id}`" + (f" --output {shown(root, 200)}" if _custom_root(root) else "")
              + ", or remove it with `hexeval runs clean`.")


def clean_resumable(root: Path) -> None:
    """``runs clean``: remove the interrupted runs nobody runs, prune the store and the remembered model audits to
    their size limits."""
    removed = remove_resumable(root)
    for path in removed:
        print(f"Removed the interrupted run {path.parent.name}/{shown(path.name[len('.resume-'):])}")
    folder = store_folder(root)
    if not folder.is_dir():
        print(f"Removed {plural(len(removed), 'interrupted run')}; no explanation store under {root}.")
    else:
        store = PieceStore(folder, store_secret())
        entries, freed = store.prune()
        print(f"Removed {plural(len(removed), 'interrupted run')}. The explanation store holds "
              f"{plural(len(store.keys()), 'entry', 'entries')} ({store.size() / 1e6:.1f} MB, limit "
              f"{store_limit() / 1e6:.0f} MB); {plural(entries, 'entry', 'entries')} removed ({freed / 1e6:.1f} MB).")
    entries, freed = model_audits.prune()
    kept, size = model_audits.size()
    print(f"The remembered model checks hold {plural(kept, 'entry', 'entries')} ({size / 1e6:.1f} MB, limit "
          f"{model_audits.limit() / 1e6:.0f} MB); {plural(entries, 'entry', 'entries')} removed ({freed / 1e6:.1f} MB).")


def check_resume_args(args: argparse.Namespace) -> None:
    """``evaluate --resume`` takes the interrupted run's own inputs and settings: refuse others beside it."""
    given = [name for name, value in (("--usecase", args.usecase), ("MODEL", args.model), ("DATA", args.data),
                                      ("--config", args.config), ("--sample-size", args.sample_size),
                                      ("--personas", args.personas)) if value]
    if given:
        raise UsageError(f"--resume continues a run with its own inputs and settings; drop {', '.join(given)}")


def _custom_root(root: Path) -> bool:
    """Whether ``root`` is not the default runs root (then the hint names it with ``--output``)."""
    return Path(root).resolve() != default_outputs_root().resolve()
