"""Plain labels and one-sentence help of metrics, with the direction read from the metrics table.

A label is what a column, a chart panel or a report row is called; the help is the sentence a person reads
in a tooltip (Results) or under the label (report). Both avoid the papers' names for the measures
(Lipschitz, Gini, entropy, AUC …): the papers are cited in ``docs/metrics.md`` and the registry.
"""

from __future__ import annotations

from ..metrics.registry import ALIASES
from ..vocabulary import humanise

ARROWS = {"higher": "↑", "lower": "↓"}
#: Labels of the registered metrics (``hexeval_engine.metrics.registry``); others are humanised.
METRIC_LABELS = {
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

#: One sentence per registered metric, in words a newcomer reads without the paper.
METRIC_HELP = {
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
    "counterfactual_validity": "The share of suggested changes that really change the model's prediction.",
    "counterfactual_non_actionable": "The share of suggested changes that touch something the person cannot "
                                     "change (such as age or a fixed attribute).",
    "counterfactual_sparsity": "How many features a suggested change alters on average; fewer is easier to act on.",
    "counterfactual_proximity": "How far a suggested change moves the case, on average (0 means no change at all).",
    "counterfactual_diversity": "How different the suggestions for the same case are from each other.",
    "counterfactual_knn_ratio": "How far a suggested case lies from real cases, compared with how far real cases lie "
                                "from each other (1 is typical).",
    "counterfactual_in_range": "The share of suggested changes whose values stay within those seen in the data.",
    "counterfactual_plausible": "The share of suggestions that change the prediction, stay within values seen, keep "
                                "fixed features and lie close to real cases.",
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


def metric_title(metric: str) -> str:
    """``fidelity_insertion`` -> ``Prediction rebuilt from top features``; an unknown metric (or an original
    HEXEval alias, shown next to its canonical metric) as words."""
    return METRIC_LABELS.get(metric, humanise(metric))


def metric_help(metric: str, fallback: str = "") -> str:
    """The metric's one-sentence help; ``fallback`` (a run's stored meaning) for a metric this release does not know."""
    metric = ALIASES.get(metric, metric)
    if metric in METRIC_HELP:
        return METRIC_HELP[metric]
    text = (fallback or "").strip()
    return text if not text or text.endswith(".") else text + "."


def direction_label(metric: str, direction: str) -> str:
    """``Prediction rebuilt from top features ↑ (higher is better)``."""
    return f"{metric_title(metric)} {ARROWS[direction]} ({direction} is better)"
