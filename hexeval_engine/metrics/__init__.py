"""Technical metrics, one family per module (Quantus style), with a registry of what exists.

Metrics are pure functions of (model, instances, explanations) returning per-instance values;
aggregation (mean and bootstrap confidence interval) happens once, in :mod:`.aggregate`.

=====================  =====================================================================
module                 metrics
=====================  =====================================================================
``fidelity``           fidelity_deletion, fidelity_insertion
``parsimony``          num_important_features, gini_sparseness, entropy_complexity
``stability``          stability, lime_seed_agreement
``rules``              rule_precision, rule_coverage, rule_length
``counterfactuals``    counterfactual_validity / _sparsity / _proximity / _diversity / _plausibility
``compute``            all of the above for a list of explanations (long per-instance table)
``aggregate``          bootstrap_ci, summarise (mean and CI per method and metric)
``registry``           METRICS, ALIASES, get_spec (direction, meaning, source of every metric)
=====================  =====================================================================
"""

from .aggregate import bootstrap_ci, summarise
from .baseline import make_baseline
from .compute import INSTANCE_COLUMNS, compute_instance_metrics
from .counterfactuals import CounterfactualSpace, counterfactual_metrics
from .fidelity import deletion_insertion_auc, deletion_insertion_auc_loop
from .parsimony import entropy_complexity, gini_sparseness, num_important_features
from .registry import ALIASES, METRICS, MetricSpec, get_spec
from .rules import rule_coverage, rule_length, rule_precision
from .stability import attribution_similarity, explanation_vector, instance_stability, seed_agreement

__all__ = [
    "ALIASES", "INSTANCE_COLUMNS", "METRICS", "CounterfactualSpace", "MetricSpec", "attribution_similarity",
    "bootstrap_ci", "compute_instance_metrics", "counterfactual_metrics", "deletion_insertion_auc",
    "deletion_insertion_auc_loop", "entropy_complexity", "explanation_vector", "get_spec", "gini_sparseness",
    "instance_stability", "make_baseline", "num_important_features", "rule_coverage", "rule_length",
    "rule_precision", "seed_agreement", "summarise",
]
