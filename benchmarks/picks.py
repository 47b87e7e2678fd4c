"""Picks per stakeholder over the bundled use cases and seeds, this code against an older release (issue 32).

Runs every bundled use case (heart, credit_risk, wine, diabetes) at its default settings once per seed
(``evaluation.random_state``), in memory (nothing saved), and prints:

* per use case and stakeholder: the pick at each seed, how many of them are clear leads, the deciding question
  at each seed, and the older release's picks at the same seeds (``--old PATH``: a checkout of that release, run
  with this interpreter and ``PYTHONPATH`` pointing at it; its ``usecases/*/model.skops`` must be there);
* per use case: the mean skill per question and method over the shared cases (mean over the seeds of each
  seed's mean), at the methods' own display size.

Each line carries the 1-minute load average at the end of its use case's runs (the machine is shared).

    PYTHONPATH=. .venv/bin/python benchmarks/picks.py [--seeds 0 1 2 3 4] [--usecases heart ...]
                                                      [--old ../verdicts_old] [--save picks.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
USECASES = ("heart", "credit_risk", "wine", "diabetes")
QUESTIONS = ("why", "what_if", "will_it_hold", "how_to_change")
SHORT = {"why": "why", "what_if": "what-if", "will_it_hold": "hold", "how_to_change": "change", None: "-"}


def _question_means(per_instance) -> dict:
    """``{question: {method: mean skill}}`` over the cases where every method has that question's skill."""
    out = {}
    if per_instance is None or not len(per_instance) or "metric" not in per_instance:
        return out
    for q in QUESTIONS:
        rows = per_instance[per_instance["metric"] == f"skill_{q}"]
        if not len(rows):
            continue
        table = rows.pivot_table(index="instance_id", columns="method", values="value", aggfunc="mean").dropna()
        out[q] = {m: float(table[m].mean()) for m in table.columns} if len(table) else {}
    return out


def collect(usecases, seeds) -> list[dict]:
    """One record per use case and seed, from whichever engine is importable (this one or ``--old``'s)."""
    import hexeval_engine
    from hexeval_engine import evaluate

    print(f"engine: {Path(hexeval_engine.__file__).parent}", file=sys.stderr, flush=True)

    records = []
    for usecase in usecases:
        for seed in seeds:
            level = logging.root.manager.disable
            logging.disable(logging.WARNING)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = evaluate(usecase=usecase, config_overrides={"evaluation": {"random_state": seed}},
                                      save=False)
            finally:
                logging.disable(level)
            recs = result.recommendations
            cards = {title: {"pick": c.get("recommended_method"), "lead": c.get("lead"),
                             "deciding": c.get("deciding_question")}
                     for title, c in recs.get("stakeholders", {}).items()}
            records.append({"usecase": usecase, "seed": seed, "cards": cards,
                            "warnings": [w.get("code") for w in recs.get("warnings", [])],
                            "questions": _question_means(getattr(result.technical, "per_instance", None)),
                            "load": os.getloadavg()[0]})
            print(f"{usecase} seed {seed}: done (load {os.getloadavg()[0]:.2f})", file=sys.stderr, flush=True)
    return records


def _run_children(roots: list[Path], usecases, seeds) -> list[list[dict]]:
    """:func:`collect` in one child process per root (at the same time), each importing the engine under it."""
    with tempfile.TemporaryDirectory() as tmp:
        children = []
        for i, root in enumerate(roots):
            out = Path(tmp) / f"picks{i}.json"
            env = {**os.environ, "PYTHONPATH": str(root)}
            cmd = [sys.executable, str(Path(__file__).resolve()), "--collect", str(out), "--seeds",
                   *map(str, seeds), "--usecases", *usecases]
            children.append((root, out, subprocess.Popen(cmd, cwd=root, env=env)))
        failed = [(root, p.wait()) for root, _, p in children]
        failed = [(root, code) for root, code in failed if code != 0]
        if failed:
            raise SystemExit("; ".join(f"the run under {r} failed (exit {c}); see its output above" for r, c in failed))
        return [json.loads(out.read_text()) for _, out, _ in children]


def _picks(records, usecase, seeds, title, key="pick") -> list:
    by_seed = {r["seed"]: r for r in records if r["usecase"] == usecase}
    return [(by_seed[s]["cards"].get(title) or {}).get(key) if s in by_seed else None for s in seeds]


def print_tables(new: list[dict], old: list[dict] | None, seeds) -> None:
    """The picks table and the per-question skill table (see the module docstring)."""
    print(f"Picks per stakeholder at seeds {', '.join(map(str, seeds))} (evaluation.random_state), default settings; "
          "'-' = no method recommended. clear = clear leads of the seeds. deciding = the deciding question per seed.")
    head = f"{'use case':<12}{'stakeholder':<34}{'picks (this branch)':<36}{'clear':>6}  {'deciding':<40}"
    head += f"{'old picks (4db5ee1)':<36}{'old clear':>10}" if old is not None else ""
    print(head + "  load")
    counts, old_counts = Counter(), Counter()
    for usecase in dict.fromkeys(r["usecase"] for r in new):
        recs = [r for r in new if r["usecase"] == usecase]
        load = max(r["load"] for r in recs)
        titles = list(dict.fromkeys(t for r in recs for t in r["cards"]))
        for title in titles:
            picks = _picks(new, usecase, seeds, title)
            leads = _picks(new, usecase, seeds, title, "lead")
            deciding = _picks(new, usecase, seeds, title, "deciding")
            counts.update(p or "none" for p in picks)
            line = (f"{usecase:<12}{title[:33]:<34}{' '.join(p or '-' for p in picks):<36}"
                    f"{sum(x == 'clear' for x in leads):>6}  {' '.join(SHORT.get(d, d) for d in deciding):<40}")
            if old is not None:
                old_picks = _picks(old, usecase, seeds, title)
                old_leads = _picks(old, usecase, seeds, title, "lead")
                old_counts.update(p or "none" for p in old_picks)
                line += f"{' '.join(p or '-' for p in old_picks):<36}{sum(x == 'clear' for x in old_leads):>10}"
            print(line + f"  {load:.2f}")
        blocked = sorted({w for r in recs for w in r["warnings"] if w == "model_has_no_signal"})
        if blocked:
            print(f"{usecase:<12}(warning at some seed: {', '.join(blocked)})")
    print(f"\nAll picks, this branch: {dict(counts.most_common())}")
    if old is not None:
        print(f"All picks, 4db5ee1:     {dict(old_counts.most_common())}")
    print("\nMean skill per question and method (own display size), mean over the seeds; shared cases per seed.")
    methods = list(dict.fromkeys(m for r in new for q in r["questions"].values() for m in q))
    print(f"{'use case':<12}{'question':<16}" + "".join(f"{m:>9}" for m in methods) + "  load")
    for usecase in dict.fromkeys(r["usecase"] for r in new):
        recs = [r for r in new if r["usecase"] == usecase]
        load = max(r["load"] for r in recs)
        for q in QUESTIONS:
            cells = []
            for m in methods:
                vals = [r["questions"].get(q, {}).get(m) for r in recs]
                vals = [v for v in vals if v is not None]
                cells.append(f"{sum(vals) / len(vals):>+9.3f}" if vals else f"{'-':>9}")
            print(f"{usecase:<12}{q:<16}" + "".join(cells) + f"  {load:.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--usecases", nargs="+", default=list(USECASES), choices=USECASES)
    parser.add_argument("--old", type=Path, help="a checkout of the older release to compare picks with")
    parser.add_argument("--save", type=Path, help="also write every record as JSON")
    parser.add_argument("--collect", type=Path, help=argparse.SUPPRESS)  # child mode: records to this file
    args = parser.parse_args(argv)
    if args.collect:
        args.collect.write_text(json.dumps(collect(args.usecases, args.seeds)))
        return 0
    runs = _run_children([ROOT] + ([args.old.resolve()] if args.old else []), args.usecases, args.seeds)
    new, old = runs[0], (runs[1] if args.old else None)
    if args.save:
        args.save.write_text(json.dumps({"new": new, "old": old}, indent=1))
    print_tables(new, old, args.seeds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
