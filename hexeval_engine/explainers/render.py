"""Turn an :class:`~hexeval_engine.explanation.Explanation` into words.

Public interface
----------------
``render(explanation, row, data, config) -> (text, technical_text)``
``render_into(explanation, row, data, config) -> Explanation``  fills ``text`` and ``technical_text``
``rendered(explanations, X_raw, data, config) -> list``  fills every explanation's texts from its row of ``X_raw``

``text`` is for a non-expert: domain outcome names (``domain.positive_outcome`` /
``negative_outcome``) and every feature and value worded by :class:`~hexeval_engine.vocabulary.Vocabulary`
(feature descriptions, value labels, units, rule conditions as sentences), at most
``personas.top_k_features`` items. ``technical_text`` is compact: raw column names, signed weights,
rule precision/coverage, counterfactual probabilities.
"""

from __future__ import annotations

import numpy as np

from ..explanation import shown_similar_cases
from ..vocabulary import Vocabulary, join_words, plural


def render_into(explanation, row: dict, data, config):
    """Fill ``explanation.text`` and ``technical_text`` in place and return the explanation."""
    explanation.text, explanation.technical_text = render(explanation, row, data, config)
    return explanation


def render(explanation, row: dict, data, config) -> tuple[str, str]:
    """Plain-language and technical renderings of one explanation.

    Parameters
    ----------
    explanation : Explanation
    row : dict
        The instance's raw values (feature -> value).
    data : Dataset
        Its ``coder`` labels values.
    config : HexevalConfig
        Domain wording and ``personas.top_k_features``.
    """
    words = _Words(data, config)
    if not explanation.ok:
        message = f"No {explanation.method} explanation is available for this case ({explanation.error})."
        return message, f"{explanation.method}: failed: {explanation.error}"
    head = words.prediction(explanation)
    if explanation.attributions is not None:
        body, tech = _attributions(explanation, row, words)
    elif explanation.rule is not None:
        body, tech = _rule(explanation, words)
    elif explanation.examples is not None:
        body, tech = _examples(explanation, words)
    else:
        body, tech = _counterfactuals(explanation, words)
    return f"{head} {body}".strip(), tech


class _Words:
    def __init__(self, data, config):
        self.coder = data.coder
        self.vocabulary = Vocabulary.from_domain(config.domain, coder=data.coder)
        self.data = data
        self.domain = config.domain
        self.k = config.personas.top_k_features

    def name(self, feature: str) -> str:
        return self.vocabulary.name(feature)

    def value(self, feature: str, value) -> str:
        """Raw value for the technical form (labels applied, no units)."""
        return self.coder.label(feature, value)

    def outcome(self, cls: int) -> str:
        return self.domain.positive_outcome if cls == 1 else self.domain.negative_outcome

    def prediction(self, e) -> str:
        value = e.extra.get("value_view")
        if value:  # a regressor, explained on one side of a band around its prediction (technical.class_groups)
            return (f"The model predicts {value['prediction_text']} for this {self.domain.decision_noun}. This "
                    f"explains why the prediction is this {'high' if value['direction'] > 0 else 'low'} "
                    f"({value['side']}).")
        view = e.extra.get("class_view")
        if view:  # a multi-class model, explained for the class it predicts (technical.class_groups)
            return (f"The model predicts: {view['name']} (probability {view['probability']:.0%}) for this "
                    f"{self.domain.decision_noun}. This explains why {view['name']} rather than {view['rivals']}.")
        return (f"The model predicts: {self.outcome(e.predicted_class)} "
                f"(probability {e.probability:.0%}) for this {self.domain.decision_noun}.")


def _attributions(e, row, w: _Words) -> tuple[str, str]:
    ranked = sorted(e.attributions.items(), key=lambda kv: -abs(kv[1]))
    top = [(f, v) for f, v in ranked if v != 0][: w.k]
    towards = [w.vocabulary.is_(f, row.get(f)) for f, v in top if v > 0]
    against = [w.vocabulary.is_(f, row.get(f)) for f, v in top if v < 0]
    parts = []
    if towards:
        parts.append("Main reasons for this prediction: " + "; ".join(towards) + ".")
    if against:
        parts.append("Pointing the other way: " + "; ".join(against) + ".")
    if not parts:
        parts.append("No single factor stood out.")
    label = e.method
    items = ", ".join(f"{f}={w.value(f, row.get(f))} {v:+.3f}" for f, v in top)
    extra = ""
    if "base_value" in e.extra:
        extra = f"; base {e.extra['base_value']:.3f}"
    if "local_r2" in e.extra:
        extra = f"; local R² {e.extra['local_r2']:.2f}"
    return " ".join(parts), f"{label} [{e.algorithm}] towards class {e.predicted_class}{extra}: {items}"


def _condition_words(c, w: _Words) -> str:
    return w.vocabulary.condition(c.feature, c.op, c.value)


def _rule(e, w: _Words) -> tuple[str, str]:
    rule = e.rule
    conditions = rule.conditions
    if w.data is not None and conditions:
        w.vocabulary = w.vocabulary.with_ranges(w.data.X_train, [c.feature for c in conditions])
    if not conditions:
        text = (f"The model gives this prediction for most cases whatever the details "
                f"({rule.precision:.0%} of similar cases).")
    else:
        text = (f"Rule: as long as {join_words(_condition_words(c, w) for c in conditions)}, the model gives this "
                f"same prediction in {rule.precision:.0%} of similar cases. The rule applies to "
                f"{rule.coverage:.0%} of cases.")
    tech = (f"IF {' AND '.join(c.text for c in conditions) or 'TRUE'} THEN class {e.predicted_class} "
            f"(precision {rule.precision:.3f}, coverage {rule.coverage:.3f})")
    if e.extra.get("meets_threshold") is False:
        text += " No rule reached the required reliability; this is the best one found."
        tech += " [below precision threshold]"
    return text, tech


def _counterfactuals(e, w: _Words) -> tuple[str, str]:
    cfs = e.counterfactuals or []
    other = w.outcome(1 - e.predicted_class)
    fixed = e.extra.get("immutable_features") or []
    if not cfs:  # said as what was looked for and not found, in one sentence
        kept = f" ({join_words(w.name(f) for f in fixed)} kept as they are)" if fixed else ""
        return (f"No counterfactual for this case: DiCE found no change{kept} that would make the prediction "
                f"'{other}'.", "DiCE: no counterfactual found")
    options = []
    for cf in cfs[: w.k]:
        changes = [w.vocabulary.change(f, old, new) for f, (old, new) in cf.changes.items()]
        options.append("change " + join_words(changes) if changes else "no change")
    text = f"The prediction would become '{other}' if you " + "; or ".join(options) + "."
    if fixed:
        text += " Not changed in any suggestion: " + join_words(w.name(f) for f in fixed) + "."
    tech = " | ".join(
        f"CF{n + 1} (p={cf.probability:.2f}{', flips' if cf.flips else ', no flip'}): "
        + ", ".join(f"{f}: {w.value(f, old)}→{w.value(f, new)}" for f, (old, new) in cf.changes.items())
        for n, cf in enumerate(cfs))
    return text, "DiCE " + tech


def _examples(e, w: _Words) -> tuple[str, str]:
    """Similar real cases: the other outcome first (with what differs), then the same outcome."""
    other = shown_similar_cases(e, w.k)
    same = shown_similar_cases(e, w.k, same=True)
    parts = []
    if not other:
        parts.append("No similar case in the data got the other answer.")
    for n, (x, shown) in enumerate(other):
        lead = "The most similar case" if n == 0 else "Another similar case"
        said = f"{lead} that got '{w.outcome(1 - e.predicted_class)}' differs in "
        if not x.differs:
            parts.append(f"{lead} that got '{w.outcome(1 - e.predicted_class)}' differs in no notable way.")
            continue
        more = len(x.differs) - len(shown)
        items = [f"{w.name(f)} ({w.vocabulary.label(f, new)} instead of {w.vocabulary.label(f, old)})"
                 for f, (old, new) in shown.items()]
        text = said + join_words(items + ([plural(more, "other feature")] if more > 0 else []))
        if x.only_fixed_differences:
            text += ": all things this person cannot change"
        parts.append(text + ".")
    for x, shown in same[:1]:
        if shown:
            parts.append("A similar case that got the same answer differs in "
                         + join_words(f"{w.name(f)} ({w.vocabulary.label(f, new)})" for f, (_, new) in shown.items())
                         + ".")
    tech = " | ".join(
        f"{'same' if x.same_outcome else 'other'} #{x.index} (d={x.distance:.2f}, p={x.probability:.2f}"
        f"{', fixed only' if x.only_fixed_differences else ''}): "
        + (", ".join(f"{f}: {w.value(f, old)}→{w.value(f, new)}" for f, (old, new) in x.differs.items()) or "no difference")
        for x in e.examples)
    return " ".join(parts), f"{e.method} [{e.algorithm}] " + (tech or "no example")


def row_dicts(X_raw) -> list[dict]:
    """Rows of a raw frame as dicts that keep each column's own type (ints stay ints)."""
    columns = {c: X_raw[c].tolist() for c in X_raw.columns}
    return [{c: _plain(columns[c][i]) for c in X_raw.columns} for i in range(len(X_raw))]


def _plain(value):
    if isinstance(value, float) and np.isnan(value):
        return float("nan")
    return value


def rendered(explanations, X_raw, data, config) -> list:
    """Fill the texts of ``explanations`` (in the order of ``X_raw``'s rows) and return them."""
    rows = row_dicts(X_raw[list(data.feature_names)])
    for e, row in zip(explanations, rows):
        render_into(e, row, data, config)
    return explanations
