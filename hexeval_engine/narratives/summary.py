"""``narrative_summary``: per narrator, the faithfulness means with bootstrap CIs, flags and the manipulation check.

The recommender reads it: a narrator is ``recommendable`` only when every one of its narratives
was written, read back and passed the rank and sign thresholds, and — when the manipulation
check ran — the checks caught at least :data:`MIN_TRUE_NEGATIVE_RATE` of the manipulated
narratives (otherwise passing them would say little).
"""

from __future__ import annotations

import pandas as pd

from ..metrics.aggregate import bootstrap_ci
from .faithfulness import NARRATIVE_METRICS

MIN_TRUE_NEGATIVE_RATE = 0.95


def narrative_summary(narratives: pd.DataFrame | None, config) -> dict:
    """Summarise a narratives table (``result.narratives`` or a loaded ``narratives.csv``).

    Returns
    -------
    dict
        ``{narrator: {"narrator_model", "n", "n_failed", "n_flagged", "metrics": {metric: {"mean",
        "ci_low", "ci_high", "n", "direction"}}, "by_audience": {audience: {"n", "n_flagged"}},
        "manipulation": {"n", "flagged", "true_negative_rate"} or None, "recommendable": bool,
        "reason": str}}``; empty when there are no narratives.
    """
    if narratives is None or len(narratives) == 0:
        return {}
    ev = config.evaluation
    out = {}
    for narrator, group in narratives.groupby("narrator", sort=False):
        manipulated = group["manipulated"].astype(bool)
        real, fake = group[~manipulated], group[manipulated]
        failed = real["error"].fillna("").astype(str) != ""
        written = real[~failed]
        flagged = written["flagged"].astype(bool)
        metrics = {}
        for name, spec in NARRATIVE_METRICS.items():
            mean, low, high, n = bootstrap_ci(written[name].to_numpy(dtype=float), n_resamples=ev.bootstrap_resamples,
                                              confidence=ev.confidence_level, seed=ev.random_state)
            metrics[name] = {"mean": mean, "ci_low": low, "ci_high": high, "n": n, "direction": spec.direction}
        manipulation = None
        fake_written = fake[fake["error"].fillna("").astype(str) == ""]
        if len(fake_written):
            caught = int(fake_written["flagged"].astype(bool).sum())
            manipulation = {"n": int(len(fake_written)), "flagged": caught,
                            "true_negative_rate": caught / len(fake_written)}
        ok, reason = _verdict(len(written), int(failed.sum()), int(flagged.sum()), manipulation)
        out[str(narrator)] = {
            "narrator_model": str(group["narrator_model"].iloc[0]), "n": int(len(written)),
            "n_failed": int(failed.sum()), "n_flagged": int(flagged.sum()), "metrics": metrics,
            "by_audience": {str(a): {"n": int(len(g)), "n_flagged": int(g["flagged"].astype(bool).sum())}
                            for a, g in written.groupby("audience", sort=False)},
            "manipulation": manipulation, "recommendable": ok, "reason": reason}
    return out


def _verdict(n: int, n_failed: int, n_flagged: int, manipulation: dict | None) -> tuple[bool, str]:
    if n == 0:
        return False, "no narrative was written" + (f" ({n_failed} failed)" if n_failed else "")
    if n_flagged:
        return False, (f"{n_flagged} of {n} narratives misstate the model (rank or sign agreement below the "
                       "threshold, or not checkable)")
    if n_failed:
        return False, f"{n_failed} of {n + n_failed} narratives could not be written"
    if manipulation is not None and manipulation["true_negative_rate"] < MIN_TRUE_NEGATIVE_RATE:
        return False, (f"the faithfulness checks caught only {manipulation['true_negative_rate']:.0%} of deliberately "
                       f"manipulated narratives (needed {MIN_TRUE_NEGATIVE_RATE:.0%}), so passing them proves little")
    return True, f"all {n} narratives passed the rank and sign checks"
