"""Technical metrics, one family per module (Quantus style), with a registry of what exists.

Metrics are pure functions of (model, instances, explanations) returning per-instance values;
aggregation (mean and bootstrap confidence interval) happens once, in :mod:`.aggregate`.

=====================  =====================================================================
module                 metrics
=====================  =====================================================================
``fidelity``           fidelity_deletion, fidelity_insertion (raw), their _norm versions, fidelity_combined
``soft_removal``       soft_sufficiency, soft_comprehensiveness
``claims``             what an explanation shows: the features it names, at its own size
``claim_comprehensiveness``, ``claim_sufficiency``  ERASER's two scores on those features (one per file)
``readers``            the reader's test: make_reader, Reader.predict, neighbours, precision / coverage / accuracy
``claim_evidence``     claim-scoped scores at own and equal k, readers and technical_claim_score, all methods at once
``masking``            the masked rows both send to the model, and the seeded random draws they share
``baseline``           the row(s) a removed feature takes its value from (training average, or per class)
``parsimony``          num_important_features, gini_sparseness, entropy_complexity
``sensitivity``        max_sensitivity, local_lipschitz
``stability``          stability (mean cosine, for reference), lime_seed_agreement
``rules``              rule_precision, rule_coverage, rule_length, and on held-out rows rule_precision_test,
                       rule_support_test, rule_coverage_test, rule_precision_lift
``counterfactuals``    counterfactual_validity / _sparsity / _proximity / _diversity
``plausibility``       counterfactual_knn_ratio, counterfactual_in_range, counterfactual_plausible
``compute``            all of the above for a list of explanations (long per-instance table)
``aggregate``          bootstrap_ci, summarise (mean and CI per method and metric)
``registry``           METRICS, ALIASES, get_spec (direction, meaning, source of every metric)
=====================  =====================================================================
"""

from .aggregate import bootstrap_ci, summarise
from .baseline import make_baseline, make_class_baselines
from .compute import INSTANCE_COLUMNS, compute_instance_metrics, relevance_vector
from .counterfactuals import CounterfactualSpace, counterfactual_metrics
from .fidelity import deletion_insertion_auc, fidelity_scores
from .parsimony import entropy_complexity, gini_sparseness, num_important_features
from .plausibility import CounterfactualManifold, plausibility_metrics
from .registry import ALIASES, METRICS, MetricSpec, get_spec
from .rules import held_out_rule_metrics, rule_coverage, rule_length, rule_mask, rule_precision
from .sensitivity import local_lipschitz, max_sensitivity
from .soft_removal import soft_removal_scores
from .stability import attribution_similarity, explanation_vector, instance_stability, seed_agreement

__all__ = [
    "ALIASES", "INSTANCE_COLUMNS", "METRICS", "CounterfactualManifold", "CounterfactualSpace", "MetricSpec",
    "attribution_similarity", "bootstrap_ci", "compute_instance_metrics", "counterfactual_metrics",
    "deletion_insertion_auc", "entropy_complexity", "explanation_vector",
    "fidelity_scores", "get_spec", "gini_sparseness", "held_out_rule_metrics", "instance_stability",
    "local_lipschitz", "make_baseline", "make_class_baselines", "max_sensitivity", "num_important_features",
    "plausibility_metrics", "relevance_vector", "rule_coverage", "rule_length", "rule_mask", "rule_precision",
    "seed_agreement", "soft_removal_scores", "summarise"
]
