"""What the technical stage has produced so far, passed from one step to the next, and its progress counter."""

from __future__ import annotations

from dataclasses import dataclass, field

from .timing import MethodClock


@dataclass
class Work:
    """What the evaluation has produced so far, passed from one step to the next.

    Attributes
    ----------
    progress : Progress
    explanations : list of Explanation
        The sample's explanations, by method then instance.
    failures : list of dict
        ``TechnicalResult.failures`` so far.
    failed : dict
        ``{method: error}`` for methods left out of the comparison.
    clock : MethodClock
        Each method's explanations, stability runs and metrics; see ``method_timing``.
    perturbed, seed_runs : dict
        Explanations of noisy copies and LIME's re-runs, keyed by ``(method, ...)``.
    per_instance_parts : list of DataFrame
        Per-case metric values, one frame per method plus the claim-scoped ones.
    """

    progress: Progress
    explanations: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    failed: dict = field(default_factory=dict)
    clock: MethodClock = field(default_factory=MethodClock)
    perturbed: dict = field(default_factory=dict)
    seed_runs: dict = field(default_factory=dict)
    per_instance_parts: list = field(default_factory=list)
    group_spans: list = field(default_factory=list)  # (start, end) of each case group's explanations
    group_noise: list = field(default_factory=list)  # (perturbed, seed_runs) of each case group
    #: {(method, id): explanation} made before the groups: regression's SHAP/LIME on the reference view (mapped
    #: per case), multi-class Anchor pooled over the class groups
    reference: dict = field(default_factory=dict)
    randomised_fit: object = None  # TechnicalResult.randomised_fit
    randomised_reruns: dict = field(default_factory=dict)  # TechnicalResult.randomised_reruns
    #: the group being explained: metrics measured while the helper explained ({method: (frame, identities)}),
    #: and its SharedInputs per view (id(model) -> SharedInputs); kept per group in group_early
    early: dict = field(default_factory=dict)
    shared_inputs: dict = field(default_factory=dict)
    group_early: list = field(default_factory=list)
    #: finished explanation calls to reuse and keep (hexeval_engine.runs.checkpoints.Pieces), or None
    pieces: object = None
    #: the randomisation check's re-fit and re-explanations to keep as they come (technical.check_pieces)
    checks: object = None

    def fail(self, method: str, error: str) -> None:
        """Leave ``method`` out of the comparison, recording why."""
        self.failed[method] = error
        self.failures.append({"method": method, "error": error})


class Progress:
    def __init__(self, callback, total: int):
        self.callback, self.total, self.done = callback, max(int(total), 1), 0

    def message(self, text: str) -> None:
        self.callback(self.done, self.total, text)

    def step(self, text: str) -> None:
        self.done = min(self.done + 1, self.total)
        self.callback(self.done, self.total, text)

    def skip(self, n: int, text: str) -> None:
        self.done = min(self.done + n, self.total)
        self.callback(self.done, self.total, text)
