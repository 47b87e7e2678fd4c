"""Do recommendations hold up across seeds? Random never recommended; a clear lead stays on top.

Runs each bundled use case at its own config (20 shared cases, every knob from the use case's
config except the seed) for several ``evaluation.random_state`` values, once technical-only and once
with the simulated personas, and prints one row per (use case, mode, stakeholder, seed) plus a
verdict table:

* ``random_recommended``: how often the Random baseline was recommended (must be 0);
* ``clear_leads`` / ``clear_lead_kept``: leads declared clear, and how many of them had the same
  method on top (recommended) in every other seed of the same stakeholder;

then, per use case and mode, how often each family was picked (with the format: plain or told as a
narrative), and for the most common pick one sentence of why: its mean technical evidence and
weighted stakeholder rating against the mean of the other qualifying methods.

Usage: ``.venv/bin/python benchmarks/recommendation_stability.py [--seeds 1 2 3 4 5] [--usecases heart credit_risk]``
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter, defaultdict

from hexeval_engine import evaluate


def run(usecase: str, seed: int, personas: bool) -> dict:
    overrides = {"evaluation": {"random_state": seed}, "personas": {"enabled": personas}}
    result = evaluate(usecase=usecase, config_overrides=overrides, save=False)
    return result.recommendations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--usecases", nargs="+", default=["heart", "credit_risk"])
    args = parser.parse_args()
    rows = []
    started = time.perf_counter()
    for usecase in args.usecases:
        for personas in (False, True):
            mode = "simulated personas" if personas else "technical only"
            for seed in args.seeds:
                recs = run(usecase, seed, personas)
                for title, entry in recs["stakeholders"].items():
                    rows.append({"usecase": usecase, "mode": mode, "stakeholder": title, "seed": seed,
                                 "method": entry["recommended_method"] or "none", "lead": entry["lead"],
                                 "cases": entry["n_cases"], "format": entry.get("recommended_format", "plain"),
                                 "alternatives": entry["alternatives"]})
    print(f"machine load (1/5/15 min): {os.getloadavg()}; wall {time.perf_counter() - started:.0f} s")
    print(f"{'use case':12} {'mode':19} {'stakeholder':42} {'seed':>4} {'method':9} {'format':9} {'lead':16} "
          f"{'cases':>5}")
    for r in rows:
        print(f"{r['usecase']:12} {r['mode']:19} {r['stakeholder'][:42]:42} {r['seed']:>4} {r['method']:9} "
              f"{r['format']:9} {r['lead']:16} {r['cases']:>5}")
    groups = defaultdict(list)
    for r in rows:
        groups[(r["usecase"], r["mode"], r["stakeholder"])].append(r)
    print()
    print(f"{'use case':12} {'mode':19} {'recommendations':>15} {'random_recommended':>18} {'clear_leads':>11} "
          f"{'clear_lead_kept':>15} {'no_recommendation':>17}")
    for usecase in args.usecases:
        for mode in ("technical only", "simulated personas"):
            mine = [g for k, g in groups.items() if k[0] == usecase and k[1] == mode]
            flat = [r for g in mine for r in g]
            clear = kept = 0
            for g in mine:
                for r in g:
                    if r["lead"] == "clear":
                        clear += 1
                        kept += all(o["method"] == r["method"] for o in g)
            print(f"{usecase:12} {mode:19} {len(flat):>15} {sum(r['method'] == 'Random' for r in flat):>18} "
                  f"{clear:>11} {kept:>15} {sum(r['method'] == 'none' for r in flat):>17}")
    print()
    for usecase in args.usecases:
        for mode in ("technical only", "simulated personas"):
            flat = [r for r in rows if r["usecase"] == usecase and r["mode"] == mode]
            if not flat:
                continue
            picks = Counter(r["method"] for r in flat)
            told = Counter(r["method"] for r in flat if r["format"] == "narrative")
            print(f"{usecase} / {mode}: " + ", ".join(
                f"{m} {n}" + (f" ({told[m]} told as a narrative)" if told[m] else "") for m, n in picks.most_common())
                  + f" of {len(flat)}")
            top = picks.most_common(1)[0][0]
            if top != "none":
                print("  why " + top + ": " + _reason(top, [r for r in flat if r["method"] == top]))


def _mean_component(rows, method, component, *, others: bool = False):
    values = [a["components"].get(component, {}).get("value") for r in rows for a in r["alternatives"]
              if (a["method"] != method if others else a["method"] == method)
              and a.get("qualifies") is not False and a["method"] != "Random" and a.get("recommendable")]
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _reason(method: str, rows) -> str:
    """One sentence: the pick's mean technical and stakeholder evidence against the other qualifying methods."""
    parts = []
    for component, word in (("technical_fidelity", "technical evidence"), ("stakeholder_score", "weighted rating")):
        mine, rest = _mean_component(rows, method, component), _mean_component(rows, method, component, others=True)
        if mine is not None and rest is not None:
            parts.append(f"{word} {mine:.2f} against {rest:.2f}")
    leads = Counter(r["lead"] for r in rows)
    return (f"picked {len(rows)} times with mean {' and '.join(parts) or 'no comparable evidence'} for the other "
            f"qualifying methods when it was picked; leads: "
            + ", ".join(f"{k} {v}" for k, v in leads.most_common()) + ".")


if __name__ == "__main__":
    main()
