"""Registry of every technical metric HEXEval reports.

Public interface (stable)
-------------------------
``MetricSpec(name, direction, meaning, source, families, category, alias_of=None, cross_family=False)``
``METRICS: dict[str, MetricSpec]``  canonical metrics, in table-column order
``ALIASES: dict[str, str]``         original HEXEval column name -> canonical name
``get_spec(name) -> MetricSpec``     looks up a canonical name or an alias
``MetricPass(name, scope, compute)`` one function that computes a group of metrics
``PASSES``                          the passes the measuring step calls, in order
``method_rows(...)``, ``paired_rows(...)``  run every pass of a scope (what the measuring step calls)

A new metric is its family module (a function with the pass signature below) plus its spec(s) here and, if it is
a new group, one :class:`MetricPass` in ``PASSES``: the measuring step, tables, charts and report read them.

Each metric declares its direction (``"higher"`` or ``"lower"`` is better) and a one-line
meaning as data, so charts and the recommender never hard-code them. ``families`` lists the
method families (``"attribution"``, ``"rule"``, ``"counterfactual"``, ``"baseline"``) for which the
metric is computed; for the rule and counterfactual families, the vector metrics are computed on
*derived* importance vectors (see ``docs/metrics.md``). ``cross_family`` marks the metrics computed
identically for every method with an importance vector, the only ones fit to compare methods of
different families.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace

ALL_FAMILIES = ("attribution", "rule", "counterfactual", "example", "baseline")
VECTOR_FAMILIES = ALL_FAMILIES  # every family whose explanations carry an importance vector


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
        ``question`` (the four skills), ``question_detail``, ``fidelity``, ``claim`` (older runs), ``parsimony``,
        ``stability``, ``rule`` or ``counterfactual``.
    alias_of : str or None
        For an alias, the canonical metric it repeats.
    label : str
        What a column, a chart panel or a report row calls it, in plain words.
    help : str
        One sentence a newcomer reads without the paper.
    panel : str or None
        The chart panel of the Results page that shows it (``None``: tables only).
    cross_family : bool
        Computed the same way for every method with an importance vector (comparable across
        families).
    """

    name: str
    direction: str
    meaning: str
    source: str
    families: tuple[str, ...]
    category: str
    alias_of: str | None = None
    cross_family: bool = False
    label: str = ""
    help: str = ""
    panel: str | None = None

    @property
    def higher_is_better(self) -> bool:
        return self.direction == "higher"


_COVERT = ("Covert, Lundberg & Lee (2021), Explaining by Removing, JMLR 22; "
           "Petsiuk, Das & Saenko (2018), RISE, BMVC")
_NORMALISED = (_COVERT + "; Samek et al. (2017), Evaluating the visualization of what a deep neural network has "
               "learned, IEEE TNNLS; Hedström et al. (2023), Quantus, JMLR 24")
_SOFT = ("Zhao & Aletras (2023), Incorporating attribution importance for improving faithfulness metrics, ACL; "
         "EvalxNLP, Mersha et al. (2025)")
_ANCHOR = "Ribeiro, Singh & Guestrin (2018), Anchors: high-precision model-agnostic explanations, AAAI"
_MANIFOLD = ("Laugel et al. (2019), The dangers of post-hoc interpretability: unjustified counterfactual "
             "explanations, IJCAI; Pawelczyk et al. (2021), CARLA, NeurIPS Datasets and Benchmarks")
_RANGES = ("Verma, Dickerson & Hines (2020), Counterfactual explanations for machine learning: a review; "
           "Ustun, Spangher & Liu (2019), Actionable recourse, FAT*")


_ERASER = ("DeYoung et al. (2020), ERASER: a benchmark to evaluate rationalized NLP models, ACL; "
           "Covert, Lundberg & Lee (2021), Explaining by Removing, JMLR 22")
_READER = ("Doshi-Velez & Kim (2017), Towards a rigorous science of interpretable machine learning; Ribeiro, Singh "
           "& Guestrin (2018), Anchors, AAAI; Hase & Bansal (2020), Evaluating explainable AI: which algorithmic "
           "explanations help users predict model behavior?, ACL")
CLAIM_FAMILIES = ("attribution", "rule", "counterfactual", "example", "baseline")


def _claim(name, meaning, *, source=None) -> MetricSpec:
    """A claim-scoped metric: computed identically for every family, on what the explanation shows."""
    return MetricSpec(name, "higher", meaning, source or _ERASER, CLAIM_FAMILIES, "claim", cross_family=True)


def _vector(name, direction, meaning, source, category) -> MetricSpec:
    # full-ranking deletion/insertion rewards ordering features an explanation never named: reported, but
    # not comparable across families (the claim-scoped metrics are)
    return MetricSpec(name, direction, meaning, source, VECTOR_FAMILIES, category, cross_family=category != "fidelity")


_SPECS = [
    _vector("fidelity_deletion", "lower",
            "Area under the explained-class probability as the most relevant features are removed first",
            _COVERT, "fidelity"),
    _vector("fidelity_insertion", "higher",
            "Area under the explained-class probability as the most relevant features are restored first",
            _COVERT, "fidelity"),
    _vector("fidelity_deletion_norm", "lower",
            "Deletion area measured between the case's own prediction (1) and the prediction with every feature "
            "removed (0); 0.5 = a straight line", _NORMALISED, "fidelity"),
    _vector("fidelity_insertion_norm", "higher",
            "Insertion area measured between the case's own prediction (1) and the prediction with every feature "
            "removed (0); 0.5 = a straight line", _NORMALISED, "fidelity"),
    _vector("fidelity_combined", "higher",
            "Average of normalised insertion and one minus normalised deletion: the fidelity score compared across "
            "methods and with the random baseline", _NORMALISED, "fidelity"),
    _vector("soft_sufficiency", "lower",
            "Share of the prediction lost when mostly the features called relevant are kept (at random, weighted "
            "by relevance)", _SOFT, "fidelity"),
    _vector("soft_comprehensiveness", "higher",
            "Share of the prediction lost when mostly the features called relevant are removed (at random, "
            "weighted by relevance)", _SOFT, "fidelity"),
    _vector("num_important_features", "lower",
            "Number of features carrying at least an equal share of the explanation's total weight",
            "Miller (2019), Explanation in AI: insights from the social sciences (explanations should be selective)",
            "parsimony"),
    _vector("gini_sparseness", "higher",
            "Gini index of the absolute importances: 1 = all weight on one feature, 0 = spread evenly",
            "Chalasani et al. (2020), Concise explanations of neural networks using adversarial training, ICML "
            "(Quantus Sparseness)", "parsimony"),
    _vector("entropy_complexity", "lower",
            "Entropy of the share of importance per feature: low = few features explain the prediction",
            "Bhatt, Weller & Moura (2020), Evaluating and aggregating feature-based model explanations, IJCAI "
            "(Quantus Complexity)", "parsimony"),
    _vector("max_sensitivity", "lower",
            "Largest change of the explanation, relative to its size, when the case is nudged slightly",
            "Yeh et al. (2019), On the (in)fidelity and sensitivity of explanations, NeurIPS (Quantus MaxSensitivity)",
            "stability"),
    _vector("local_lipschitz", "lower",
            "Largest change of the explanation per unit of change in the case (in standard deviations)",
            "Alvarez-Melis & Jaakkola (2018), On the robustness of interpretability methods, ICML WHI "
            "(Quantus LocalLipschitzEstimate)", "stability"),
    _claim("claim_comprehensiveness",
           "Share of the prediction that goes when only the features the explanation names are removed"),
    _claim("claim_sufficiency",
           "Share of the prediction the features the explanation names carry on their own"),
    _claim("claim_comprehensiveness_at_rule_k",
           "Claim comprehensiveness with as many features as the case's rule names (attributions cut to that size)"),
    _claim("claim_sufficiency_at_rule_k",
           "Claim sufficiency with as many features as the case's rule names (attributions cut to that size)"),
    _claim("claim_comprehensiveness_at_counterfactual_k",
           "Claim comprehensiveness with as many features as the case's counterfactuals change"),
    _claim("claim_sufficiency_at_counterfactual_k",
           "Claim sufficiency with as many features as the case's counterfactuals change"),
    _claim("reader_precision",
           "Share of nearby cases where a reader of the explanation expects the model's answer, among those "
           "the reader answers", source=_READER),
    _claim("reader_coverage", "Share of nearby cases a reader of the explanation can answer for", source=_READER),
    _claim("reader_accuracy",
           "Share of nearby cases where a reader of the explanation anticipates the model, a case the reader "
           "cannot answer counting as a coin toss", source=_READER),
    _claim("technical_claim_score",
           "Cross-family technical score: the average of claim sufficiency and reader accuracy",
           source=_ERASER + "; " + _READER),
    MetricSpec("stability", "higher",
               "Cosine similarity between the explanation and explanations of slightly noisy copies of the case "
               "(for reference; not used to score)",
               "Alvarez-Melis & Jaakkola (2018), On the robustness of interpretability methods, ICML WHI; "
               "Yeh et al. (2019), On the (in)fidelity and sensitivity of explanations, NeurIPS",
               VECTOR_FAMILIES, "stability"),
    MetricSpec("lime_seed_agreement", "higher",
               "Cosine similarity between LIME explanations of the same case run with different seeds",
               "Visani et al. (2022), Statistical stability indices for LIME, JORS; "
               "Zafar & Khan (2021), Deterministic local interpretable model-agnostic explanations",
               ("attribution",), "stability"),
    MetricSpec("rule_precision", "higher",
               "Share of cases meeting the rule for which the model predicts the same class, as estimated by the "
               "rule search", _ANCHOR, ("rule",), "rule"),
    MetricSpec("rule_coverage", "higher", "Share of cases the rule applies to, as estimated by the rule search",
               _ANCHOR, ("rule",), "rule"),
    MetricSpec("rule_precision_test", "higher",
               "Share of held-out test cases meeting the rule for which the model predicts the same class",
               _ANCHOR, ("rule",), "rule"),
    MetricSpec("rule_precision_lift", "higher",
               "Held-out rule precision minus the share of all test cases predicted as that class (0 = the rule "
               "adds nothing)", _ANCHOR, ("rule",), "rule"),
    MetricSpec("rule_support_test", "higher", "Number of held-out test cases the rule applies to",
               _ANCHOR, ("rule",), "rule"),
    MetricSpec("rule_coverage_test", "higher", "Share of held-out test cases the rule applies to",
               _ANCHOR, ("rule",), "rule"),
    MetricSpec("rule_length", "lower",
               "Number of conditions in the rule",
               "Ribeiro, Singh & Guestrin (2018); Lakkaraju et al. (2016), Interpretable decision sets, KDD",
               ("rule",), "rule"),
    MetricSpec("counterfactual_validity", "higher",
               "Per case, the share of the proposed counterfactuals that actually change the model's prediction (a "
               "case for which none was found counts 0)",
               "Mothilal, Sharma & Tan (2020), Explaining ML classifiers through diverse counterfactual "
               "explanations (DiCE), FAT*", ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_non_actionable", "lower",
               "Share of the proposed counterfactuals that change a feature the person cannot change (immutable, "
               "not actionable, or against a one-way feature's direction; the config's actionability section)",
               "Ustun, Spangher & Liu (2019), Actionable recourse in linear classification, FAT*",
               ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_sparsity", "lower",
               "Average number of features a counterfactual changes",
               "Mothilal, Sharma & Tan (2020), DiCE, FAT*; Wachter, Mittelstadt & Russell (2017)",
               ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_proximity", "lower",
               "Average normalised distance between a counterfactual and the case (0 = identical)",
               "Wachter, Mittelstadt & Russell (2017), Counterfactual explanations without opening the black box; "
               "Mothilal et al. (2020)", ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_diversity", "higher",
               "Average normalised distance between the counterfactuals offered for the same case",
               "Mothilal, Sharma & Tan (2020), DiCE, FAT*", ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_knn_ratio", "lower",
               "Distance from a counterfactual to the nearest real cases of its class, relative to how close real "
               "cases are to each other (1 = typical)", _MANIFOLD, ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_in_range", "higher",
               "Share of counterfactuals whose changed values stay within the range seen in training",
               _RANGES, ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_plausible", "higher",
               "Per case, the share of counterfactuals that change the prediction, stay in range, respect the fixed "
               "features and lie close to real cases (a case for which none was found counts 0)", _MANIFOLD + "; " + _RANGES, ("counterfactual",), "counterfactual"),
    MetricSpec("counterfactual_plausibility", "higher",
               "Share of counterfactuals that respect the configured constraints: fixed features unchanged, allowed "
               "ranges kept", _RANGES, ("counterfactual",), "counterfactual"),
]

_QUESTION_SOURCE = ("Hase & Bansal (2020), Evaluating explainable AI: which algorithmic explanations help users predict "
                    "model behavior?, ACL; Doshi-Velez & Kim (2017), Towards a rigorous science of interpretable machine "
                    "learning; Ribeiro, Singh & Guestrin (2018), Anchors, AAAI; Wachter, Mittelstadt & Russell (2017), "
                    "Counterfactual explanations without opening the black box, Harvard JOLT")
#: The four questions' skills: (question, label, help). Skill = the method's score minus that of a reader who saw
#: no explanation (metrics/questions): that reader scores exactly 0, a Random explanation 0 in expectation.
_QUESTION_WORDS = (
    ("why", "Why: the named inputs matter",
     "How much more the prediction moves when the inputs the explanation names are redrawn from real cases than "
     "when as many inputs chosen at random are; 0 means no better than chance."),
    ("what_if", "What if: a reader predicts nearby cases",
     "How much better than always saying it stays the same a reader of the explanation predicts the model on nearby "
     "cases, cases that keep and that change the answer counting equally; 0 means no help."),
    ("will_it_hold", "Will it hold: a reader knows when it stays",
     "How well the explanation's claim of when the answer stays apart nearby cases that keep the answer from those "
     "that change it; 0 means no better than a random region covering as many cases."),
    ("how_to_change", "How to change it: the suggested action works",
     "How much more often the change the explanation suggests, using only what the person can change, gets the "
     "other outcome than a random change of as many features; 0 means no better than chance."),
)
#: Supporting columns of the questions: (name, direction, label, help).
_QUESTION_SUPPORT = (
    ("why_move", "higher", "Prediction moved by redrawing the named inputs",
     "How far the explained prediction moves, on average, when the inputs the explanation names take values of "
     "real cases."),
    ("what_if_balanced_accuracy", "higher", "Reader right on nearby cases (balanced)",
     "How often a reader of the explanation predicts the model on nearby cases, cases that keep and that change the "
     "answer counting equally."),
    ("will_it_hold_precision", "higher", "Claim of staying holds",
     "Of the nearby cases the explanation says keep the answer, the share that do."),
    ("will_it_hold_coverage", "higher", "Nearby cases the claim of staying covers",
     "The share of nearby cases the explanation says keep the answer."),
    ("how_to_change_success", "higher", "Suggested actions that get the other outcome",
     "The share of actions the explanation suggests, within what the person can change, that get the other "
     "outcome (a case where it suggests none counts 0)."),
    ("how_to_change_reference", "higher", "Random actions that get the other outcome",
     "The share of random changes of as many features, within what the person can change, that get the other "
     "outcome."),
    ("how_to_change_cost", "lower", "Effort of the actions that work",
     "How far the actions that get the other outcome move each changed input, in steps of the data's spread "
     "(a category change counts one)."),
    ("how_to_change_size", "lower", "Inputs the suggested action changes",
     "How many inputs the action the explanation suggests changes."),
    ("shown_size", "lower", "Inputs the explanation shows",
     "How many inputs the explanation names, as a reader sees it."),
)
_COMMON_LABEL = " (equal size)"


def _common_help(help_: str) -> str:
    return "With every method cut to the same number of inputs on each case: " + help_[0].lower() + help_[1:]


def _question_specs() -> list[MetricSpec]:
    specs = []
    for suffix in ("", "_common"):
        label_end = _COMMON_LABEL if suffix else ""
        worded = _common_help if suffix else str
        for question, label, help_ in _QUESTION_WORDS:
            specs.append(MetricSpec(f"skill_{question}{suffix}", "higher", label + label_end, _QUESTION_SOURCE,
                                    CLAIM_FAMILIES, "question", cross_family=True, label=label + label_end,
                                    help=worded(help_)))
        for name, direction, label, help_ in _QUESTION_SUPPORT:
            specs.append(MetricSpec(f"{name}{suffix}", direction, label + label_end, _QUESTION_SOURCE, CLAIM_FAMILIES,
                                    "question_detail", cross_family=True, label=label + label_end,
                                    help=worded(help_)))
    return specs


_SPECS += _question_specs()


#: Each metric's label: what a column, a chart panel or a report row calls it (no paper's name for the measure).
_LABELS = {
    "fidelity_deletion": "Prediction left as top features go",
    "fidelity_insertion": "Prediction rebuilt from top features",
    "fidelity_deletion_norm": "Prediction left as top features go (scaled)",
    "fidelity_insertion_norm": "Prediction rebuilt from top features (scaled)",
    "fidelity_combined": "Faithfulness to the model",
    "soft_sufficiency": "Prediction lost keeping mostly top features",
    "soft_comprehensiveness": "Prediction lost removing mostly top features",
    "num_important_features": "Features that matter",
    "gini_sparseness": "Focus on few features",
    "entropy_complexity": "Spread over many features",
    "max_sensitivity": "Largest change on a nudged case",
    "local_lipschitz": "Change per small step of the case",
    "stability": "Same answer on noisy copies",
    "lime_seed_agreement": "LIME agrees with itself",
    "rule_precision": "Rule holds (search estimate)",
    "rule_coverage": "Cases the rule covers (search estimate)",
    "rule_precision_test": "Rule holds on test cases",
    "rule_precision_lift": "Rule's gain over guessing",
    "rule_support_test": "Test cases the rule covers",
    "rule_coverage_test": "Share of test cases the rule covers",
    "rule_length": "Conditions in the rule",
    "counterfactual_validity": "Changes that flip the outcome",
    "counterfactual_non_actionable": "Changes the person cannot make",
    "counterfactual_sparsity": "Features changed",
    "counterfactual_proximity": "Distance from the case",
    "counterfactual_diversity": "Variety of the suggestions",
    "counterfactual_knn_ratio": "Distance from real cases",
    "counterfactual_in_range": "Changes within values seen",
    "counterfactual_plausible": "Realistic suggestions",
    "counterfactual_plausibility": "Suggestions within the limits set",
    "technical_claim_score": "Technical score (what it claims)",
    "claim_comprehensiveness": "Named features: removed", "claim_sufficiency": "Named features: kept alone",
    "claim_comprehensiveness_at_rule_k": "Removed, at the rule's size",
    "claim_sufficiency_at_rule_k": "Kept alone, at the rule's size",
    "claim_comprehensiveness_at_counterfactual_k": "Removed, at the counterfactuals' size",
    "claim_sufficiency_at_counterfactual_k": "Kept alone, at the counterfactuals' size",
    "reader_accuracy": "Reader's accuracy", "reader_precision": "Reader's precision",
    "reader_coverage": "Reader's coverage",
}

#: Each metric's help: one sentence a newcomer reads without the paper (a tooltip, a line under the label).
_HELP = {
    "fidelity_deletion": "How much of the prediction is left, on average, as the features the explanation ranks "
                         "highest are taken away one by one; a faithful explanation makes it fall fast.",
    "fidelity_insertion": "How much of the prediction comes back, on average, as the features the explanation ranks "
                          "highest are put back one by one; a faithful explanation makes it rise fast.",
    "fidelity_deletion_norm": "The same as the prediction left as top features go, scaled so that 1 is the case's "
                              "own prediction, 0 the prediction with every feature removed and 0.5 a straight line.",
    "fidelity_insertion_norm": "The same as the prediction rebuilt from top features, scaled so that 1 is the case's "
                               "own prediction, 0 the prediction with every feature removed and 0.5 a straight line.",
    "fidelity_combined": "How well the explanation's ranking of features matches what the model actually relies on, "
                         "from 0 to 1, compared across methods and with the random baseline.",
    "soft_sufficiency": "How much of the prediction is lost when mostly the features the explanation calls "
                        "important are kept; little loss means they carry the prediction.",
    "soft_comprehensiveness": "How much of the prediction is lost when mostly the features the explanation calls "
                              "important are removed; a large loss means they matter.",
    "num_important_features": "How many features carry a real share of the explanation's weight; fewer is easier "
                              "to read.",
    "gini_sparseness": "How much the explanation puts its weight on a few features rather than spreading it over "
                       "all of them, from 0 (even) to 1 (one feature).",
    "entropy_complexity": "How evenly the explanation spreads its weight over the features; lower means a few "
                          "features explain the prediction.",
    "max_sensitivity": "The biggest change in the explanation when the case is nudged very slightly; a steady "
                       "explanation barely moves.",
    "local_lipschitz": "How much the explanation changes for each small step the case moves; a steady explanation "
                       "changes little.",
    "stability": "How similar the explanation stays on slightly noisy copies of the case, from 0 to 1 (shown for "
                 "reference, not used to score).",
    "lime_seed_agreement": "How similar LIME's explanations of the same case are when run again with other random "
                           "draws, from 0 to 1.",
    "rule_precision": "Of the cases that meet the rule, the share the model predicts the same way, as the rule "
                      "search estimated it.",
    "rule_coverage": "The share of all cases the rule applies to, as the rule search estimated it.",
    "rule_precision_test": "Of the held-out test cases that meet the rule, the share the model predicts the same way.",
    "rule_precision_lift": "How much more often the rule is right than simply guessing the most common answer "
                           "(0 means the rule adds nothing).",
    "rule_support_test": "How many held-out test cases the rule applies to.",
    "rule_coverage_test": "The share of held-out test cases the rule applies to.",
    "rule_length": "How many conditions the rule has; shorter is easier to read.",
    "counterfactual_validity": "Per case, the share of suggested changes that really change the model's "
                               "prediction; a case where none was found counts 0, so the mean is also lower when "
                               "fewer cases get a suggestion.",
    "counterfactual_non_actionable": "The share of suggested changes that touch something the person cannot "
                                     "change (such as age or a fixed attribute).",
    "counterfactual_sparsity": "How many features a suggested change alters on average; fewer is easier to act on.",
    "counterfactual_proximity": "How far a suggested change moves the case, on average (0 means no change at all).",
    "counterfactual_diversity": "How different the suggestions for the same case are from each other.",
    "counterfactual_knn_ratio": "How far a suggested case lies from real cases, compared with how far real cases lie "
                                "from each other (1 is typical).",
    "counterfactual_in_range": "The share of suggested changes whose values stay within those seen in the data.",
    "counterfactual_plausible": "Per case, the share of suggestions that change the prediction, stay within values "
                                "seen, keep fixed features and lie close to real cases; a case where none was found "
                                "counts 0.",
    "counterfactual_plausibility": "The share of suggestions that keep the features set as fixed and the ranges "
                                   "set as allowed.",
    "technical_claim_score": "The score compared across all methods: the average of how much of the prediction the "
                             "named features carry alone and how often a reader of the explanation anticipates the "
                             "model.",
    "claim_comprehensiveness": "How much of the prediction goes when only the features the explanation names are "
                               "removed.",
    "claim_sufficiency": "How much of the prediction the features the explanation names carry on their own.",
    "claim_comprehensiveness_at_rule_k": "How much of the prediction goes when as many named features as the rule "
                                         "has are removed (feature weights cut to that size).",
    "claim_sufficiency_at_rule_k": "How much of the prediction as many named features as the rule has carry on their "
                                   "own (feature weights cut to that size).",
    "claim_comprehensiveness_at_counterfactual_k": "How much of the prediction goes when as many named features as "
                                                   "the suggested changes alter are removed.",
    "claim_sufficiency_at_counterfactual_k": "How much of the prediction as many named features as the suggested "
                                             "changes alter carry on their own.",
    "reader_precision": "On nearby cases a reader of the explanation would answer for, how often the reader expects "
                        "the model's answer.",
    "reader_coverage": "The share of nearby cases a reader of the explanation can answer for at all.",
    "reader_accuracy": "How often a reader of the explanation anticipates the model on nearby cases, a case the "
                       "reader cannot answer counting as a coin toss.",
}


def _worded(spec: MetricSpec) -> MetricSpec:
    """``spec`` with its label and help from the tables above (a spec may also carry its own)."""
    return replace(spec, label=spec.label or _LABELS.get(spec.name, ""), help=spec.help or _HELP.get(spec.name, ""),
                   panel=spec.panel or _PANELS.get(spec.category))


#: The Results page's chart panels by category (the fidelity and parsimony charts).
_PANELS = {"fidelity": "fidelity", "parsimony": "parsimony"}

METRICS: dict[str, MetricSpec] = {s.name: _worded(s) for s in _SPECS}

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
        return replace(base, name=name, meaning=base.meaning + f" (same as {base.name})", alias_of=base.name)
    raise KeyError(f"Unknown metric '{name}'. Known: {', '.join([*METRICS, *ALIASES])}.")


@dataclass(frozen=True)
class MetricPass:
    """One function that computes a group of per-instance metrics.

    Attributes
    ----------
    name : str
        What the pass is called in logs and failures.
    scope : {"method", "paired"}
        ``method``: called with one method's explanations at a time; ``paired``: called once with every method's
        explanations of the shared cases (metrics that compare methods on the same neighbours, baselines and
        sizes).
    compute : str
        ``"module:function"`` in this package, called as ``function(model, data, explanations, config, *, shared,
        perturbed, seed_runs)`` and returning rows ``(method, instance_id, metric, value, derived)``.
    """

    name: str
    scope: str
    compute: str

    def run(self, model, data, explanations, config, **inputs) -> list[tuple]:
        module, _, function = self.compute.partition(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), function)(
            model, data, explanations, config, **inputs)


PASSES = (
    MetricPass("vector metrics", "method", "compute:vector_pass"),
    MetricPass("rule metrics", "method", "compute:rule_pass"),
    MetricPass("counterfactual metrics", "method", "compute:counterfactual_pass"),
    MetricPass("stability metrics", "method", "compute:stability_pass"),
    MetricPass("seed agreement", "method", "compute:seed_agreement_pass"),
    # the claim-scoped metrics (claim_evidence:claim_pass) scored the older recommendation; their specs stay so
    # older runs still read, but the evidence per question replaced them
    MetricPass("question skills", "paired", "questions:question_pass"),
)


def _rows(scope: str, model, data, explanations, config, **inputs) -> list[tuple]:
    rows: list[tuple] = []
    for p in PASSES:
        if p.scope == scope:
            rows += p.run(model, data, explanations, config, **inputs)
    return rows


def method_rows(model, data, explanations, config, *, shared, perturbed=None, seed_runs=None) -> list[tuple]:
    """Every ``method``-scope pass over one method's explanations (the successful ones)."""
    return _rows("method", model, data, explanations, config, shared=shared, perturbed=perturbed or {},
                 seed_runs=seed_runs or {})


def paired_rows(model, data, explanations, config, *, shared) -> list[tuple]:
    """Every ``paired``-scope pass over every method's explanations of the shared cases."""
    return _rows("paired", model, data, explanations, config, shared=shared, perturbed={}, seed_runs={})
