"""*What if*: can a reader of the explanation tell which nearby cases keep the answer and which flip it?

Public interface
----------------
``reader_keeps(shown, case, rows, *, changed, categorical) -> ndarray``  1 keeps, 0 flips, -1 abstains
``what_if_skill(expected, keeps) -> (skill, balanced_accuracy, reason)``
``what_if_skills(expected_rows, keeps, groups) -> list of (skill, balanced_accuracy, reason)``  several readers of one
case's neighbours at once

Forward simulation (Doshi-Velez & Kim 2017; Hase & Bansal 2020, *Evaluating explainable AI: which
algorithmic explanations help users predict model behavior?*, ACL): the readers of
:mod:`hexeval_engine.metrics.readers`, which know only what the explanation shows, say for each neighbour of
the case (:mod:`.rows`) whether the model keeps its answer:

* attributions: the shown probability plus the change the shown weights predict, against 1/2 (log-odds
  against 0); it always answers. A shown numeric feature whose new value lies on the same side of the
  training median as the case's keeps its contribution, one that crossed the median contributes the
  opposite (the estimate loses twice the weight), and a changed category loses its weight. The reader of
  :class:`hexeval_engine.metrics.readers.AttributionReader` takes every change as a loss of the weight
  (the expectation over a value drawn from the data); it cannot tell a neighbour that moved a feature
  further in the case's direction from one that moved it the other way, which a rule's reader can (it
  reads the new value against the threshold), so on a dense linear model an exact rule of two features
  predicted neighbours better than six correct attributions. The median is public knowledge of the data, as
  in the *how to change* reading;
* a rule: "keeps" inside its conditions, abstains outside (an anchor says nothing outside itself;
  Ribeiro et al. 2018);
* counterfactuals: "flips" where a shown counterfactual is followed, "keeps" elsewhere;
* similar cases: a neighbour is answered like the nearest shown case to it (the case itself and the shown cases
  with the same outcome "keep", those with the other outcome "flip"; a tie between the two abstains), nearest
  over the named features only (what the reader is shown): a number's gap in units of the spread of the shown
  values of that feature, a category's mismatch 1, a missing value 1.

The score is the *balanced* accuracy over the neighbours that keep and those that flip (each group weighs
one half, an abstention counts 1/2, a coin toss), computed among neighbours that changed the same number of
features and averaged over those groups (:mod:`.strata`: a reader who counts changes needs no explanation),
and the skill subtracts 1/2:

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

from ..readers import ABSTAIN, CounterfactualReader, ExampleReader, RuleReader
from .shown import ATTRIBUTION, EXAMPLE, RULE
from .strata import stratified, stratified_rows



def reader_keeps(shown, case, rows, *, changed, categorical=(), medians=None) -> np.ndarray:
    """The reader's answer for each row: 1 "keeps the answer", 0 "flips", -1 abstains.

    Parameters
    ----------
    shown : Shown
    case : pandas.Series
        The case's raw values.
    rows : pandas.DataFrame or None
        The neighbours (``None``: ``changed``'s; an attribution's reader reads only ``changed``).
    changed : hexeval_engine.metrics.readers.ChangedMemo
        Of ``rows`` (shared by every reader of the case).
    categorical : sequence of str
    medians : dict, optional
        ``{numeric feature: training median}`` (without it every change of a shown feature loses its weight).
    """
    if shown.kind == ATTRIBUTION:
        return _attribution_keeps(shown, case, changed=changed, medians=medians or {})
    rows = changed.rows if rows is None else rows
    if shown.kind == EXAMPLE:  # class 1 = "keeps": the case and its same-outcome cases
        return ExampleReader(case, shown.changes, shown.same, shown.features, 1).predict(rows)
    if shown.kind == RULE:
        reader = RuleReader(shown.conditions, 1, categorical=categorical)  # class 1 = "keeps"
    else:
        reader = CounterfactualReader([SimpleNamespace(changes=c) for c in shown.changes], 1)
    return reader.predict(rows, changed=changed)


def _attribution_keeps(shown, case, *, changed, medians) -> np.ndarray:
    p = min(max(shown.probability, 1e-9), 1 - 1e-9)
    estimate = np.full(changed.length, np.log(p / (1 - p)) if shown.log_odds else p - 0.5)
    for feature, weight in shown.weights.items():
        value = case[feature]
        median = medians.get(feature)
        # the same for every attribution of the case that shows the feature: worked out once per case
        lost = changed.derived(("attribution loss", feature, type(value).__name__, repr(value), median),
                               lambda: _lost(changed, feature, value, median))
        estimate -= float(weight) * lost
    return np.where(estimate >= 0, 1, 0)


def _lost(changed, feature, value, median) -> np.ndarray:
    """Per row, how many times its weight a shown feature loses: 0 unchanged or on the case's side of the median,
    2 across it, 1 a changed category or missing number (see the module docstring)."""
    lost = changed(feature, value).astype(float)
    x = _number(value)
    z = changed.numbers(feature) if median is not None and x is not None and x != median else None
    if z is not None:  # a numeric feature
        with np.errstate(invalid="ignore"):
            same_side = (z - median) * (x - median) >= 0
        lost = np.where(np.isfinite(z), np.where(same_side, 0.0, 2.0), 1.0) * (lost > 0)
    return lost


def _number(value):
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):  # a label
        return None
    return None if np.isnan(number) else number


def what_if_skill(expected, keeps, strata=None) -> tuple[float, float, str | None]:
    """``(skill, balanced accuracy, reason)`` of a reader's answers ``expected`` (1 / 0 / -1) against whether the
    model kept its answer on each row (``keeps``), within groups of rows that changed as many features
    (``strata``, :mod:`.strata`; one group when omitted); ``NaN`` and the reason when no group holds both."""
    expected, keeps = np.asarray(expected, dtype=int), np.asarray(keeps, dtype=bool)
    strata = np.zeros(len(keeps), dtype=int) if strata is None else strata
    credit = np.where(expected == ABSTAIN, 0.5, (expected == 1) == keeps)

    def balanced(groups):
        kept, flipped = groups.means(credit)
        return 0.5 * (kept + flipped)

    value, reason = stratified(keeps, strata, balanced)
    return value - 0.5, value, reason


def what_if_skills(expected_rows, keeps, groups) -> list[tuple[float, float, str | None]]:
    """:func:`what_if_skill` of several readers of the same neighbours (one row of ``expected_rows`` each) within
    the case's :class:`.strata.Groups`, computed together: the same values."""
    expected, keeps = np.asarray(expected_rows, dtype=int), np.asarray(keeps, dtype=bool)
    credit = np.where(expected == ABSTAIN, 0.5, (expected == 1) == keeps[None, :])

    def balanced(g):
        kept, flipped = g.means_of_rows(credit)
        return 0.5 * (kept + flipped)

    values, reason = stratified_rows(groups, balanced, len(expected))
    return [(value - 0.5, value, reason) for value in values]
