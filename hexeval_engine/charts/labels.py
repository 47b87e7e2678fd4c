"""Human labels of metrics, with the direction read from the metrics table."""

from __future__ import annotations

from ..vocabulary import humanise

ARROWS = {"higher": "↑", "lower": "↓"}
#: Labels of the registered metrics (``hexeval_engine.metrics.registry``); others are humanised.
METRIC_LABELS = {
    "fidelity_deletion": "Deletion AUC", "fidelity_insertion": "Insertion AUC",
    "num_important_features": "Important features", "gini_sparseness": "Gini sparseness",
    "entropy_complexity": "Entropy complexity", "stability": "Stability", "lime_seed_agreement": "LIME seed agreement",
    "rule_precision": "Rule precision", "rule_coverage": "Rule coverage", "rule_length": "Rule length",
    "counterfactual_validity": "Counterfactual validity", "counterfactual_sparsity": "Features changed",
    "counterfactual_proximity": "Counterfactual proximity", "counterfactual_diversity": "Counterfactual diversity",
    "counterfactual_plausibility": "Counterfactual plausibility",
    "technical_claim_score": "Technical score (what it claims)",
    "claim_comprehensiveness": "Named features: removed", "claim_sufficiency": "Named features: kept alone",
    "claim_comprehensiveness_at_rule_k": "Removed, at the rule's size",
    "claim_sufficiency_at_rule_k": "Kept alone, at the rule's size",
    "claim_comprehensiveness_at_counterfactual_k": "Removed, at the counterfactuals' size",
    "claim_sufficiency_at_counterfactual_k": "Kept alone, at the counterfactuals' size",
    "reader_accuracy": "Reader's accuracy", "reader_precision": "Reader's precision",
    "reader_coverage": "Reader's coverage",
}


def metric_title(metric: str) -> str:
    """``fidelity_insertion`` -> ``Insertion AUC``; an unknown metric as words."""
    return METRIC_LABELS.get(metric, humanise(metric))


def direction_label(metric: str, direction: str) -> str:
    """``Insertion AUC ↑ (higher is better)``."""
    return f"{metric_title(metric)} {ARROWS[direction]} ({direction} is better)"
