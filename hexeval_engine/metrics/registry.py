"""Registry of every technical metric HEXEval reports.

Public interface (stable)
-------------------------
``MetricSpec(name, direction, meaning, source, families, category, alias_of=None)``
``METRICS: dict[str, MetricSpec]``  canonical metrics, in table-column order
``ALIASES: dict[str, str]``         original HEXEval column name -> canonical name
``get_spec(name) -> MetricSpec``     looks up a canonical name or an alias

Each metric declares its direction (``"higher"`` or ``"lower"`` is better) and a one-line
meaning as data, so charts and the recommender never hard-code them. ``families`` lists the
method families (``"attribution"``, ``"rule"``, ``"counterfactual"``) for which the metric is
computed; for the rule and counterfactual families, fidelity and parsimony are computed on
*derived* importance vectors (see ``docs/metrics.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

ALL_FAMILIES = ("attribution", "rule", "counterfactual")


@dataclass(frozen=True)
class MetricSpec:
    """Description of one metric.

    Attributes
    ----------
    name : str
        Column name in the output tables.
    direction : {"higher", "lower"}
        Which values are better.
    meaning : str
        One line a non-specialist can read.
    source : str
        The paper the metric comes from.
    families : tuple of str
        Method families the metric applies to.
    category : str
        ``fidelity``, ``parsimony``, ``stability``, ``rule`` or ``counterfactual``.
    alias_of : str or None
        For an alias, the canonical metric it repeats.
    """

    name: str
    direction: str
    meaning: str
    source: str
    families: tuple[str, ...]
    category: str
    alias_of: str | None = None

    @property
    def higher_is_better(self) -> bool:
        return self.direction == "higher"


_COVERT = ("Covert, Lundberg & Lee (2021), Explaining by Removing, JMLR 22; "
           "Petsiuk, Das & Saenko (2018), RISE, BMVC")
_SPECS = [
    MetricSpec("fidelity_deletion", "lower",
               "Area under the explained-class probability as the most important features are removed first",
               _COVERT, ALL_FAMILIES, "fidelity"),
    MetricSpec("fidelity_insertion", "higher",
               "Area under the explained-class probability as the most important features are restored first",
               _COVERT, ALL_FAMILIES, "fidelity"),
    MetricSpec("num_important_features", "lower",
               "Number of features carrying at least an equal share of the explanation's total weight",
               "Miller (2019), Explanation in AI: insights from the social sciences (explanations should be selective)",
               ALL_FAMILIES, "parsimony"),
    MetricSpec("gini_sparseness", "higher",
               "Gini index of the absolute importances: 1 = all weight on one feature, 0 = spread evenly",
               "Chalasani et al. (2020), Concise explanations of neural networks using adversarial training, ICML "
               "(Quantus Sparseness)", ALL_FAMILIES, "parsimony"),
    MetricSpec("entropy_complexity", "lower",
               "Entropy of the share of importance per feature: low = few features explain the prediction",
               "Bhatt, Weller & Moura (2020), Evaluating and aggregating feature-based model explanations, IJCAI "
               "(Quantus Complexity)", ALL_FAMILIES, "parsimony"),
    MetricSpec("stability", "higher",
               "Cosine similarity between the explanation and explanations of slightly noisy copies of the instance",
               "Alvarez-Melis & Jaakkola (2018), On the robustness of interpretability methods, ICML WHI; "
               "Yeh et al. (2019), On the (in)fidelity and sensitivity of explanations, NeurIPS",
               ("attribution",), "stability"),
    MetricSpec("lime_seed_agreement", "higher",
               "Cosine similarity between LIME explanations of the same instance run with different seeds",
               "Visani et al. (2022), Statistical stability indices for LIME, JORS; "
               "Zafar & Khan (2021), Deterministic local interpretable model-agnostic explanations",
               ("attribution",), "stability"),
    MetricSpec("rule_precision", "higher",
               "Share of cases satisfying the rule for which the model predicts the same class",
               "Ribeiro, Singh & Guestrin (2018), Anchors: high-precision model-agnostic explanations, AAAI",
               ("rule",), "rule"),
    MetricSpec("rule_coverage", "higher",
               "Share of cases the rule applies to",
               "Ribeiro, Singh & Guestrin (2018), Anchors: high-precision model-agnostic explanations, AAAI",
               ("rule",), "rule"),
    MetricSpec("rule_length", "lower",
               "Number of conditions in the rule",
               "Ribeiro, Singh & Guestrin (2018); Lakkaraju et al. (2016), Interpretable decision sets, KDD",
               ("rule",), "rule"),
    MetricSpec("counterfactual_validity", "higher",
               "Share of the proposed counterfactuals that actually change the model's prediction",
               "Mothilal, Sharma & Tan (2020), Explaining ML classifiers through diverse counterfactual "
               "explanations (DiCE), FAT*", ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_sparsity", "lower",
               "Average number of features a counterfactual changes",
               "Mothilal, Sharma & Tan (2020), DiCE, FAT*; Wachter, Mittelstadt & Russell (2017)",
               ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_proximity", "lower",
               "Average normalised distance between a counterfactual and the instance (0 = identical)",
               "Wachter, Mittelstadt & Russell (2017), Counterfactual explanations without opening the black box; "
               "Mothilal et al. (2020)", ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_diversity", "higher",
               "Average normalised distance between the counterfactuals offered for the same instance",
               "Mothilal, Sharma & Tan (2020), DiCE, FAT*", ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_plausibility", "higher",
               "Share of counterfactuals that leave immutable features alone and stay within valid ranges",
               "Verma, Dickerson & Hines (2020), Counterfactual explanations for machine learning: a review; "
               "Ustun, Spangher & Liu (2019), Actionable recourse, FAT*", ("counterfactual",), "counterfactual"),
]

METRICS: dict[str, MetricSpec] = {s.name: s for s in _SPECS}

ALIASES: dict[str, str] = {
    "rule_accuracy": "rule_precision",
    "counterfactual_success": "counterfactual_validity",
}
"""Column names of the original HEXEval kept as copies of the canonical metric."""


def get_spec(name: str) -> MetricSpec:
    """The spec of a canonical metric or an alias (an alias carries ``alias_of``).

    Raises
    ------
    KeyError
        If ``name`` is neither a metric nor an alias; the message lists the known names.
    """
    if name in METRICS:
        return METRICS[name]
    if name in ALIASES:
        base = METRICS[ALIASES[name]]
        return MetricSpec(name, base.direction, base.meaning + f" (same as {base.name})", base.source,
                          base.families, base.category, alias_of=base.name)
    raise KeyError(f"Unknown metric '{name}'. Known: {', '.join([*METRICS, *ALIASES])}.")
