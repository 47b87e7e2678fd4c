"""*What if*: can a reader of the explanation tell which nearby cases keep the answer and which flip it?

Public interface
----------------
``reader_keeps(shown, case, rows, *, changed, categorical) -> ndarray``  1 keeps, 0 flips, -1 abstains
``what_if_skill(expected, keeps) -> (skill, balanced_accuracy, reason)``

Forward simulation (Doshi-Velez & Kim 2017; Hase & Bansal 2020, *Evaluating explainable AI: which
algorithmic explanations help users predict model behavior?*, ACL): the readers of
:mod:`hexeval_engine.metrics.readers`, which know only what the explanation shows, say for each neighbour of
the case (:mod:`.rows`) whether the model keeps its answer:

* attributions: the shown probability minus the shown weights of the shown features whose value changed,
  against 1/2 (log-odds against 0); it always answers;
* a rule: "keeps" inside its conditions, abstains outside (an anchor says nothing outside itself;
  Ribeiro et al. 2018);
* counterfactuals: "flips" where a shown counterfactual is followed, "keeps" elsewhere.

The score is the *balanced* accuracy over the neighbours that keep and those that flip (each group weighs
one half, an abstention counts 1/2, a coin toss), and the skill subtracts 1/2:

    skill_what_if = (accuracy on kept + accuracy on flipped) / 2 - 1/2

A reader who ignores the explanation and always says "it stays" scores exactly 0 (accuracy 1 on kept, 0 on
flipped), as does one who always abstains or guesses at random, however most neighbours answer: with plain
accuracy that reader scored 0.86 to 0.88 on the bundled data and an exact rule, abstaining outside itself,
fell below it (issue 32). A case with no neighbour that flips (or none that keeps) gets ``NaN`` and the
reason: nothing there separates a reader who knows from one who guesses.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..readers import ABSTAIN, AttributionReader, CounterfactualReader, RuleReader
from .shown import ATTRIBUTION, RULE

NO_FLIP = "no neighbour of the case gets another answer from the model, so a reader cannot be told from a guess"
NO_KEEP = "no neighbour of the case keeps the model's answer, so a reader cannot be told from a guess"


def reader_keeps(shown, case, rows, *, changed, categorical=()) -> np.ndarray:
    """The reader's answer for each row: 1 "keeps the answer", 0 "flips", -1 abstains.

    Parameters
    ----------
    shown : Shown
    case : pandas.Series
        The case's raw values.
    rows : pandas.DataFrame
        The neighbours.
    changed : hexeval_engine.metrics.readers.ChangedMemo
        Of ``rows`` (shared by every reader of the case).
    categorical : sequence of str
    """
    if shown.kind == ATTRIBUTION:  # the readers answer in class indices; explained class 1 makes 1 "keeps"
        reader = AttributionReader(case, shown.weights, 1, shown.probability, log_odds=shown.log_odds)
    elif shown.kind == RULE:
        reader = RuleReader(shown.conditions, 1, categorical=categorical)
    else:
        reader = CounterfactualReader([SimpleNamespace(changes=c) for c in shown.changes], 1)
    return reader.predict(rows, changed=changed)


def what_if_skill(expected, keeps) -> tuple[float, float, str | None]:
    """``(skill, balanced accuracy, reason)`` of a reader's answers ``expected`` (1 / 0 / -1) against whether the
    model kept its answer on each row (``keeps``); ``NaN`` and the reason when one group is empty."""
    expected, keeps = np.asarray(expected, dtype=int), np.asarray(keeps, dtype=bool)
    if not (~keeps).any():
        return float("nan"), float("nan"), NO_FLIP
    if not keeps.any():
        return float("nan"), float("nan"), NO_KEEP
    credit = np.where(expected == ABSTAIN, 0.5, (expected == 1) == keeps)
    balanced = 0.5 * (float(credit[keeps].mean()) + float(credit[~keeps].mean()))
    return balanced - 0.5, balanced, None
