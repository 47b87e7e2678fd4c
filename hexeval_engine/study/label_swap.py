"""The label-swap check of an LLM judge: the same item under another neutral label must get the same scores.

Personas see an explanation under a neutral label ("Explanation A" ... "Explanation F", one fixed
letter per method). An LLM judge may prefer a letter rather than the explanation (position and label
bias of LLM judges: Zheng et al. 2023, "Judging LLM-as-a-judge with MT-Bench and Chatbot Arena").
The check re-rates every persona rating of the study's items with the labels rotated (each method
gets the next method's letter, so every label changes and the text stays byte-identical) and
compares each re-rating with the stored rating of the same persona, case and method: per question,
the mean paired difference (re-rated minus stored) with its bootstrap interval, the share of
identical scores the mean absolute change and the real n. A judge without label bias changes no score beyond its
own test-retest noise (reported beside it); a bias towards one letter shows in the share of
identical scores even when, over a full rotation, the mean changes cancel out. The built-in simulator never reads the label, so the check
does not apply to it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..paired_stats import paired_difference
from ..ratings_summary import DIMENSIONS

SIMULATOR_NOTE = ("The label-swap check does not apply: the personas are the built-in simulator, which scores "
                  "the content it is shown and never reads the label an explanation is given.")


def rotated_labels(labels: dict[str, str]) -> dict[str, str]:
    """``{method: label}`` with every method given the next method's label (in label order)."""
    methods = sorted(labels, key=lambda m: labels[m])
    if len(methods) < 2:
        return dict(labels)
    return {m: labels[methods[(i + 1) % len(methods)]] for i, m in enumerate(methods)}


def compare(stored: pd.DataFrame, swapped: pd.DataFrame, *, seed: int = 0) -> dict:
    """The check's numbers from the stored ratings and the re-ratings under rotated labels.

    Parameters
    ----------
    stored, swapped : DataFrame
        ``persona_name, explanation_type, instance_index`` and the six dimensions; ``swapped`` also
        ``status`` and ``error`` (failed re-ratings are counted, not compared).
    """
    keys = ["persona_name", "explanation_type", "instance_index"]
    ok = swapped[swapped["status"] == "ok"]
    paired = stored.groupby(keys)[list(DIMENSIONS)].first().join(
        ok.set_index(keys)[list(DIMENSIONS)], rsuffix="_swapped", how="inner")
    result = {"applies": True, "measured": bool(len(paired)), "n_items": int(len(paired)),
              "n_failed": int((swapped["status"] != "ok").sum()),
              "failures": sorted(set(swapped.loc[swapped["status"] != "ok", "error"].astype(str)))[:3],
              "dimensions": {}}
    same_all = np.ones(len(paired), dtype=bool)
    for d in DIMENSIONS:
        before = paired[d].to_numpy(dtype=float)
        after = paired[f"{d}_swapped"].to_numpy(dtype=float)
        diff = paired_difference(after, before, seed=seed).to_dict()
        same = before == after
        same_all &= same
        result["dimensions"][d] = {"mean_difference": diff["mean"], "ci_low": diff["ci_low"],
                                   "ci_high": diff["ci_high"], "n": diff["n"],
                                   "share_identical": float(same.mean()) if len(same) else None,
                                   "mean_abs_difference": float(np.abs(after - before).mean()) if len(same) else None}
    result["share_identical_items"] = float(same_all.mean()) if len(paired) else None
    return result


def summary_text(check: dict | None) -> str:
    """The check in one sentence for a person."""
    if not check:
        return "The label-swap check was not run for this study."
    if not check.get("applies", True):
        return check.get("note") or SIMULATOR_NOTE
    if not check.get("measured"):
        return ("The label-swap check could not be measured: " + (check.get("note") or "no re-rating succeeded")
                + (f" ({check['failures'][0]})" if check.get("failures") else "") + ".")
    moved = [d for d, e in check["dimensions"].items()
             if e.get("ci_low") is not None and (e["ci_low"] > 0 or e["ci_high"] < 0)]
    share = check.get("share_identical_items") or 0.0
    head = (f"With the labels swapped, {share:.0%} of {check['n_items']} re-rated items got identical scores on "
            "all six questions (a judge that reads only the explanation, without sampling noise, keeps 100%; "
            "the test-retest figure shows how much change is noise alone)")
    if moved:
        return head + "; the mean score moved beyond its interval on " + \
            ", ".join(d.replace("_", " ") for d in moved) + "."
    return head + "; no question's mean score moved beyond its interval."
