"""What an explanation *shows*: the features it names, at its own size as displayed.

Public interface (stable)
-------------------------
``named_features(explanation, *, feature_names, top_k) -> list[str] | None``
``ranked_features(explanation, *, feature_names) -> list[str] | None``
``DISPLAY_TOP_K``  default number of attributions a reader is shown (``personas.top_k_features``)

Claim-scoped metrics (:mod:`.claim_comprehensiveness`, :mod:`.claim_sufficiency`) and the readers
(:mod:`.readers`) judge an explanation only on what it claims (DeYoung et al. 2020, ERASER, ACL):

* attributions (SHAP, LIME, Random): the ``top_k`` features with a non-zero attribution, by absolute
  value, exactly as the explanation text lists them;
* a rule (Anchor): the features of its conditions;
* counterfactuals (DiCE): the features changed by any of the first ``top_k`` counterfactuals shown;
* similar cases (Examples): the features in which any of the first ``top_k`` shown cases with the other
  outcome differs from the case (each case's first ``top_k`` differences, as its text lists them).

A feature the explanation does not name never enters these metrics, so no method can gain from how
it orders features it did not name.
"""

from __future__ import annotations

from ..explanation import shown_similar_cases

#: How many attributions the explanation text shows (the default of ``personas.top_k_features``).
DISPLAY_TOP_K = 5


def ranked_features(explanation, *, feature_names) -> list[str] | None:
    """Features with a non-zero attribution, by decreasing absolute attribution (ties by column order).

    ``None`` for an explanation without attributions (a rule, counterfactuals, a narrative).
    """
    if explanation.attributions is None:
        return None
    order = {f: j for j, f in enumerate(feature_names)}
    weights = {f: float(v) for f, v in explanation.attributions.items() if f in order and float(v) != 0.0}
    return sorted(weights, key=lambda f: (-abs(weights[f]), order[f]))


def named_features(explanation, *, feature_names, top_k: int = DISPLAY_TOP_K) -> list[str] | None:
    """The features the explanation names, in the order it names them.

    Parameters
    ----------
    explanation : Explanation
    feature_names : sequence of str
        The data's columns (names outside it are ignored).
    top_k : int
        Attributions and counterfactuals shown to a reader (``personas.top_k_features``).

    Returns
    -------
    list of str or None
        ``None`` when the explanation has neither attributions, a rule nor counterfactuals (it makes
        no claim these metrics can test); possibly empty (a rule with no condition, no counterfactual).
    """
    columns = set(feature_names)
    ranked = ranked_features(explanation, feature_names=feature_names)
    if ranked is not None:
        return ranked[: int(top_k)]
    if explanation.rule is not None:
        return list(dict.fromkeys(c.feature for c in explanation.rule.conditions if c.feature in columns))
    if explanation.counterfactuals is not None:
        changed = [f for cf in explanation.counterfactuals[: int(top_k)] for f in cf.changes]
        return list(dict.fromkeys(f for f in changed if f in columns))
    if explanation.examples is not None:
        differing = [f for x in shown_examples(explanation, top_k=top_k) for f in x]
        return list(dict.fromkeys(f for f in differing if f in columns))
    return None


def shown_examples(explanation, *, top_k: int = DISPLAY_TOP_K, same: bool = False) -> list[dict]:
    """The differences ``{feature: (case value, example value)}`` of the similar cases a reader is shown: the first
    ``top_k`` cases with the other outcome (``same``: with the same outcome), each cut to the differences its text
    lists (:func:`hexeval_engine.explanation.shown_similar_cases`)."""
    return [shown for _, shown in shown_similar_cases(explanation, top_k, same=same)]
