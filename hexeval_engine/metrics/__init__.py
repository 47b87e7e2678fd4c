"""Technical metrics, one family per module (Quantus style), with a registry of what exists.

Metrics are pure functions of (model, instances, explanations) returning per-instance values;
aggregation (mean and bootstrap confidence interval) happens once, in :mod:`.aggregate`.
"""

from .baseline import make_baseline
from .fidelity import deletion_insertion_auc, deletion_insertion_auc_loop
from .registry import ALIASES, METRICS, MetricSpec, get_spec

__all__ = [
    "ALIASES", "METRICS", "MetricSpec", "deletion_insertion_auc", "deletion_insertion_auc_loop", "get_spec",
    "make_baseline",
]
