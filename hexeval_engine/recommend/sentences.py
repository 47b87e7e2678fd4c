"""The sentences of a stakeholder's card, each built from the numbers it states (and tested against them).

Public interface (stable)
-------------------------
``QUESTION_PHRASES``                                          each question as a person asks it
``deciding_sentence(question, winner, other, support) -> str``  what the deciding question's evidence shows
``gap_sentence(role, perceived_best, measured, source, on_five, baseline_on_five=None) -> str``  perceived and
    measured disagree
``close_call_sentence(tied) -> str``
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..vocabulary import join_words, the_role

#: Each question as a stakeholder asks it (the card's words).
QUESTION_PHRASES = {"why": "why did the model say this", "what_if": "what will the model say for a similar case",
                    "will_it_hold": "when does this answer stay the same", "how_to_change": "how can this be changed"}
QUESTION_SHORT = {"why": "why", "what_if": "what if", "will_it_hold": "will it hold", "how_to_change": "how to change it"}


def _paired(support: dict[str, pd.DataFrame], metric: str, a: str, b: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The metric of ``a`` and ``b`` on the cases where both have a value (``b`` None: ``a``'s own cases)."""
    table = support.get(metric)
    if table is None or a not in table.columns or (b is not None and b not in table.columns):
        return np.array([]), np.array([])
    cols = [a] + ([b] if b else [])
    both = table[cols].dropna()
    return both[a].to_numpy(float), (both[b].to_numpy(float) if b else np.array([]))


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _two(x: float) -> str:
    return f"{x:.2f}"


#: Questions whose sentence states one mean per method: (supporting metric, the winner's clause, the
#: runner-up's clause, number format, ending).
_MEANS = {
    "why": ("why_move_common", "redrawing the inputs {m} names moved the prediction by {v} on average",
            "those {o} names by {v}", _two, ""),
    "what_if": ("what_if_balanced_accuracy_common",
                "a reader of {m} predicted the model on nearby cases with a balanced accuracy of {v}",
                "a reader of {o} {v}", _pct,
                " (nearby cases that keep and that change the answer weigh equally; no explanation: 50%)"),
}

#: Said once in every deciding sentence: its figures are at the common size, as the families are compared, not at
#: the size each method shows (the card's tables give both).
EQUAL_SIZE = "at equal size (each method cut to the fewest inputs any of them shows for the case)"


def deciding_sentence(question: str, winner: str, other: str | None, support: dict[str, pd.DataFrame]) -> str:
    """One sentence a person understands, with the numbers that decided it (``other``: the runner-up or None).

    ``support`` maps supporting metric names (``how_to_change_success_common`` …) to case × method tables.
    Every number in the sentence is computed here from those tables, on the cases both methods have. The tables
    are the common-size ones (``…_common``), and the sentence says so (:data:`EQUAL_SIZE`): a method shown at its
    own size may do better or worse (on credit risk SHAP's five features flip the outcome in more cases than
    Anchor's rule, while at the rule's size they flip it in fewer).
    """
    phrase = f"for *{QUESTION_PHRASES[question]}*, {EQUAL_SIZE}"
    if question == "how_to_change":
        a, b = _paired(support, "how_to_change_success_common", winner, other)
        if not a.size:
            return f"{phrase}, {winner} answered best"
        text = (f"{phrase}, {winner}'s suggested changes got the other outcome in {int((a > 0).sum())} of {a.size} "
                "cases")
        if other is not None:
            text += f", {other}'s in {int((b > 0).sum())}"
        return text
    if question in _MEANS:
        metric, mine, theirs, number, tail = _MEANS[question]
        a, b = _paired(support, metric, winner, other)
        if not a.size:
            return f"{phrase}, {winner} answered best"
        text = f"{phrase}, " + mine.format(m=winner, v=number(a.mean())) + f" over {a.size} cases"
        if other is not None:
            text += ", " + theirs.format(o=other, v=number(b.mean()))
        return text + tail
    a, b = _paired(support, "will_it_hold_precision_common", winner, other)
    cov_a, cov_b = _paired(support, "will_it_hold_coverage_common", winner, other)
    if not a.size or not cov_a.size:
        return f"{phrase}, {winner} answered best"
    text = (f"{phrase}, {winner}'s claim of when the answer stays held on {_pct(a.mean())} of the nearby cases it "
            f"covered ({_pct(cov_a.mean())} of them) over {a.size} cases")
    if other is not None and b.size and cov_b.size:
        text += f"; {other}'s on {_pct(b.mean())} ({_pct(cov_b.mean())} covered)"
    return text


def gap_sentence(role: str, perceived_best, measured: str, source: str, on_five: float,
                 baseline_on_five: float | None = None) -> str:
    """Perceived and measured disagree: who rated what highest, and what answers their questions better.

    ``perceived_best`` is one method or the methods tied at the top ("rated SHAP and LIME highest, tied at …") among
    the methods that can be recommended. ``baseline_on_five`` is the random baseline's rating when it is as high as
    theirs or higher: then the sentence says so (a random explanation rated as well is part of the gap).
    """
    best = [perceived_best] if isinstance(perceived_best, str) else list(perceived_best)
    who = the_role(role)
    rated = (f"rated {best[0]} highest of the methods compared ({on_five:.1f} of 5" if len(best) == 1
             else f"rated {join_words(best)} highest of the methods compared, tied ({on_five:.1f} of 5 each")
    baseline = (f"; random explanations {baseline_on_five:.1f}"
                if baseline_on_five is not None and round(baseline_on_five, 1) >= round(on_five, 1) else "")
    return (f"{who[:1].upper() + who[1:]} {rated}, {source}{baseline}), but {measured} answers their questions "
            "better when measured")


def close_call_sentence(tied: list[str]) -> str:
    """The methods the evidence cannot separate from the recommended one."""
    either = "either is" if len(tied) == 2 else "any of them is"
    return f"close call: the evidence does not separate {join_words(tied)}, so {either} defensible"


def finite(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
