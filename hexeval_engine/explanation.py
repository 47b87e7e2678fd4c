"""The one Explanation type shared by all four methods.

Metrics read the structure (attributions, rule, counterfactuals); personas read ``text``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

#: The four explainers a config can switch on, in display order.
METHODS = ("SHAP", "LIME", "Anchor", "DiCE")
#: The random-attribution sanity baseline: measured like every method, never recommendable.
BASELINE_METHOD = "Random"
#: Explanations told as a story (built from an attribution method's output).
NARRATIVE_METHOD = "Narrative"
#: Every method name that can appear in a run's tables, in display order.
ALL_METHODS = (*METHODS, NARRATIVE_METHOD, BASELINE_METHOD)
METHOD_FAMILY = {"SHAP": "attribution", "LIME": "attribution", "Anchor": "rule", "DiCE": "counterfactual",
                 NARRATIVE_METHOD: "narrative", BASELINE_METHOD: "baseline"}
#: Families whose methods can never be recommended (they exist to be beaten).
NON_RECOMMENDABLE_FAMILIES = frozenset({"baseline"})


@dataclass
class Condition:
    feature: str
    op: str  # one of "=", "!=", "<", "<=", ">", ">=", "in"
    value: object
    text: str  # e.g. "loan_grade = D"


@dataclass
class Rule:
    conditions: list[Condition]
    precision: float
    coverage: float


@dataclass
class Counterfactual:
    changes: dict[str, tuple]  # feature -> (original raw value, new raw value)
    probability: float  # model probability of the originally predicted class for the changed row
    flips: bool  # the prediction changes
    row: dict  # the full counterfactual row in raw values


@dataclass
class Explanation:
    """One method's explanation of one instance, in raw CSV columns.

    ``instance_id`` is the row position in ``Dataset.X_test``; ``predicted_class`` (0/1) is the
    class explained and ``probability`` the model's probability of that class.
    """

    method: str
    instance_id: int
    predicted_class: int
    probability: float
    attributions: dict[str, float] | None = None  # signed, towards the explained class
    rule: Rule | None = None
    counterfactuals: list[Counterfactual] | None = None
    importance: dict[str, float] | None = None  # importance vector used by fidelity (derived for Anchor/DiCE)
    importance_derived: bool = False
    text: str = ""  # plain language for a non-expert
    technical_text: str = ""  # compact technical form
    algorithm: str = ""  # e.g. "TreeExplainer (exact)", "KernelExplainer", "LimeTabular"
    seconds: float = 0.0
    error: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict:
        return asdict(self)
