"""Typed evaluation config. Key paths keep the meaning they had in the original HEXEval config.

Every section forbids unknown keys, so a typo (``sample_sise``) is an error that names the key path
instead of a silently ignored setting.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Domain(Section):
    name: str = "Binary classification"
    prediction_task: str = "the predicted outcome"
    decision_verb: str = "decide on"
    decision_noun: str = "case"
    stakeholder_context: str = ""
    end_user_context: str = ""
    positive_outcome: str = "positive outcome"
    negative_outcome: str = "negative outcome"
    terms: dict[str, str] = Field(default_factory=dict)
    feature_descriptions: dict[str, str] = Field(default_factory=dict, description="feature -> meaning with units")
    value_labels: dict[str, dict[str, str]] = Field(default_factory=dict, description="feature -> raw value -> label")
    units: dict[str, str] = Field(default_factory=dict, description="feature -> unit its numbers are written with "
                                                                    "(USD, %, share, years, mm Hg …)")


class DataSettings(Section):
    target: str | None = None
    positive_label: str | int | bool | None = None
    test_size: float = Field(0.2, gt=0, lt=1)
    split_seed: int = Field(42, ge=0, description="seed of the train/test split. Kept apart from "
                                                  "evaluation.random_state: another evaluation seed explains other "
                                                  "held-out cases, never rows the bundled models were trained on "
                                                  "(they were trained on this split)")
    categorical_features: list[str] = Field(default_factory=list)
    drop_duplicates: bool = Field(False, description="drop exact duplicate rows before splitting (they leak "
                                                     "between train and test)")
    plausible_ranges: dict[str, tuple[float, float]] = Field(default_factory=dict)
    implausible_values: Literal["keep", "exclude", "clip"] = Field(
        "keep", description="rows with values outside the plausible ranges: keep them, exclude the rows, or clip "
                            "the values to the nearest plausible one (before splitting)")
    categorical_encoding: Literal["auto", "label", "ordinal"] = Field(
        "auto", description="how text columns reach the model: auto = as text (a pipeline encodes them); label = "
                            "sorted-category integer codes (scikit-learn's LabelEncoder); ordinal = codes in the "
                            "order given by category_order")
    category_order: dict[str, list[str | int | float | bool]] = Field(
        default_factory=dict, description="column -> its categories in code order (0, 1, 2, ...) for "
                                          "categorical_encoding: ordinal")
    task: Literal["auto", "binary", "multiclass", "regression"] = Field(
        "auto", description="what the model predicts: auto = from the target (two values: binary; 3 to 20 "
                            "whole-number or text values: multiclass); set it when the target is ambiguous")
    class_names: dict[str, str] = Field(
        default_factory=dict, description="target value -> the name texts use for that class (multi-class), "
                                          "e.g. {0: Barolo, 1: Grignolino, 2: Barbera}")
    regression_band: float = Field(
        0.25, gt=0, le=5, description="regression: the band around a case's prediction, as a share of the target's "
                                      "standard deviation: Anchor's rule keeps the prediction within it, DiCE's "
                                      "counterfactuals move the prediction beyond it")
    counterfactual_range: tuple[float | None, float | None] | None = Field(
        None, description="regression: the range DiCE's counterfactuals move the prediction into, [low, high] in the "
                          "target's units (null for an open end, e.g. [null, 150]); default: away from the "
                          "explained side by counterfactual_shift")
    counterfactual_shift: float | None = Field(
        None, gt=0, le=5, description="regression without counterfactual_range: how far DiCE's counterfactuals move "
                                      "the prediction, as a share of the target's standard deviation (default: "
                                      "regression_band)")
    counterfactual_target: str | int | None = Field(
        None, description="multi-class: the class DiCE's counterfactuals aim for (a target value); default the "
                          "runner-up class of each case")

    @field_validator("class_names", mode="before")
    @classmethod
    def _class_names_as_text(cls, value):
        """YAML reads ``{0: Barolo}`` with whole-number keys; class names are looked up by the value as text."""
        return {str(k): v for k, v in value.items()} if isinstance(value, dict) else value

    @model_validator(mode="after")
    def _range_is_a_range(self):
        if self.counterfactual_range is None:
            return self
        low, high = self.counterfactual_range
        if low is None and high is None:
            raise ValueError("counterfactual_range [null, null] names no range: give the lowest and/or highest "
                             "prediction counterfactuals should reach, e.g. [null, 150] or [200, 250]")
        if low is not None and high is not None and not low < high:
            raise ValueError(f"counterfactual_range [{low:g}, {high:g}] has its low end at or above its high end: "
                             f"write it as [low, high], e.g. [{min(low, high):g}, {max(low, high):g}]")
        return self

    @model_validator(mode="after")
    def _ordinal_needs_order(self):
        if self.categorical_encoding == "ordinal" and not self.category_order:
            raise ValueError("categorical_encoding 'ordinal' needs category_order: for each text column the list of "
                             "its categories in code order, e.g. {loan_grade: [A, B, C, D, E, F, G]}")
        return self


class Fidelity(Section):
    steps: int = Field(20, ge=2, le=200)
    min_gap: float = Field(0.05, ge=0, le=1, description="smallest f(x) - f(baseline) a normalised score is given for")
    tie_draws: int = Field(5, ge=1, le=100, description="random orders averaged when features tie in relevance")
    soft_draws: int = Field(20, ge=1, le=1000, description="masks per case for soft sufficiency/comprehensiveness")
    baseline: Literal["training_average", "other_class_average"] = Field(
        "other_class_average", description="what a removed feature becomes: the training average, or the average of "
                                        "training rows predicted as the other class")


class CounterfactualChecks(Section):
    k_neighbours: int = Field(5, ge=1, le=100, description="training rows a counterfactual's distance averages over")
    max_knn_ratio: float = Field(2.0, gt=0, description="largest k-NN distance ratio of a plausible counterfactual")
    reference_rows: int = Field(500, ge=10, le=100000, description="training rows that set the typical k-NN distance")


class Stability(Section):
    noise_std: float = Field(0.02, ge=0, le=1, description="noise as a share of each numeric feature's std")
    repeats: int = Field(3, ge=1, le=50)
    methods: list[Literal["SHAP", "LIME", "Random"]] = Field(
        default_factory=lambda: ["SHAP", "LIME", "Random"],
        description="methods that re-explain the noisy copies (Anchor and DiCE never do: seconds per case)")


#: Per-instance time budget of every explainer (``time_budget_seconds``).
_BUDGET = dict(gt=0, le=86400, description="seconds one instance's explanation may take; an instance over it is "
                                            "recorded as a failed explanation and the run goes on")


class ShapSettings(Section):
    enabled: bool = True
    background_size: int = Field(100, ge=1, le=10000)
    time_budget_seconds: float = Field(60.0, **_BUDGET)


class LimeSettings(Section):
    enabled: bool = True
    num_samples: int = Field(500, ge=50, le=20000)
    num_features: int = Field(10, ge=1, le=200)
    stability_test: bool = True
    stability_subset: int = Field(10, ge=1, le=1000)
    seed_reruns: bool = Field(True, description="with stability_test, LIME also re-explains the stability cases "
                                                "with other seeds (its seed agreement)")
    time_budget_seconds: float = Field(60.0, **_BUDGET)


class AnchorSettings(Section):
    enabled: bool = True
    precision_threshold: float = Field(0.9, gt=0, le=1)
    max_instances: int = Field(20, ge=1, le=1000)
    time_budget_seconds: float = Field(60.0, **_BUDGET)


class DiceSettings(Section):
    enabled: bool = True
    num_counterfactuals: int = Field(3, ge=1, le=20)
    max_instances: int = Field(20, ge=1, le=1000)
    time_budget_seconds: float = Field(60.0, **_BUDGET)
    method: Literal["random", "genetic", "kdtree"] = "random"
    immutable_features: list[str] = Field(default_factory=list, description="deprecated: use the top-level "
                                          "actionability section (these features are read as immutable)")
    feature_ranges: dict[str, tuple[float, float]] = Field(default_factory=dict, description="allowed numeric ranges")


class Explainers(Section):
    """The built-in explainers' settings, the plugins to load, and each plugin's settings under its own key.

    Keys other than the built-in ones are kept as given and checked when the methods are resolved
    (``explainers.registry``): a key no loaded plugin claims is an error that names it.
    """

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    shap: ShapSettings = Field(default_factory=ShapSettings)
    lime: LimeSettings = Field(default_factory=LimeSettings)
    anchor: AnchorSettings = Field(default_factory=AnchorSettings)
    dice: DiceSettings = Field(default_factory=DiceSettings)
    plugins: list[str] = Field(default_factory=list, description="explainer plugins of the operator's own packages, "
                               "as 'package.module:Class' (docs/plugins.md); packages declaring the entry-point "
                               "group 'hexeval.explainers' are loaded too. Uploads never bring code.")

    #: Canonical method name -> the key of its settings, in the canonical method order.
    KEYS: ClassVar[dict[str, str]] = {"SHAP": "shap", "LIME": "lime", "Anchor": "anchor", "DiCE": "dice"}

    def settings_for(self, method: str):
        """The settings section of ``method`` (``"SHAP"``, ``"LIME"``, ``"Anchor"`` or ``"DiCE"``)."""
        return getattr(self, self.KEYS[method])

    def section(self, key: str, model: type | None = None):
        """The settings under ``key``: a built-in section, or a plugin's raw settings validated by ``model``."""
        if key in type(self).model_fields:
            return getattr(self, key)
        raw = dict((self.model_extra or {}).get(key) or {})
        return model.model_validate(raw) if model is not None else raw

    def extra_keys(self) -> list[str]:
        """Settings keys beyond the built-in ones (plugins' settings, or typos)."""
        return sorted(self.model_extra or {})

    def enabled_methods(self) -> list[str]:
        """The methods switched on, in the canonical order."""
        return [m for m in self.KEYS if self.settings_for(m).enabled]


class Parallel(Section):
    backend: Literal["auto", "sequential", "loky", "dask"] = "auto"
    n_jobs: int = Field(2, ge=1, le=256)
    helper_min_work: int = Field(50_000, ge=0, description="backend auto: the helper process takes a run's LIME, "
                                 "Anchor and DiCE jobs when their rows x LIME num_samples reach this "
                                 "(on data of 100 or more feature columns: whenever it has an Anchor or DiCE case)")
    scheduler_address: str | None = Field(None, description="dask.distributed scheduler, e.g. tcp://10.0.0.5:8786")

    @model_validator(mode="after")
    def _dask_needs_address(self):
        if self.backend == "dask" and not self.scheduler_address:
            raise ValueError("backend 'dask' needs scheduler_address (e.g. tcp://127.0.0.1:8786)")
        return self


class Sanity(Section):
    """Sanity checks behind every recommendation (see ``hexeval_engine.technical.sanity``)."""

    min_probability_std: float = Field(0.01, ge=0, le=0.5, description="below this the model counts as constant")
    auc_resamples: int = Field(500, ge=50, le=10000, description="bootstrap resamples of the test ROC-AUC")
    randomisation_check: bool = Field(True, description="re-fit the model on shuffled labels and re-explain")
    randomisation_cases: int = Field(10, ge=1, le=1000, description="shared cases re-explained for that check")
    max_similarity: float = Field(0.7, gt=0, le=1, description="rank similarity at which an explainer 'ignores' "
                                                                 "the model")


class Evaluation(Section):
    sample_size: int = Field(20, ge=1, le=100000)
    explain_unshared: bool = Field(False, description="SHAP, LIME and Random also explain (and measure) the sample's "
                                   "cases beyond Anchor's and DiCE's max_instances; those cases are never compared")
    random_state: int = 42
    bootstrap_resamples: int = Field(1000, ge=100, le=100000)
    confidence_level: float = Field(0.95, gt=0.5, lt=1)
    fidelity: Fidelity = Field(default_factory=Fidelity)
    stability: Stability = Field(default_factory=Stability)
    counterfactual: CounterfactualChecks = Field(default_factory=CounterfactualChecks)
    explainers: Explainers = Field(default_factory=Explainers)
    parallel: Parallel = Field(default_factory=Parallel)
    sanity: Sanity = Field(default_factory=Sanity)


class Personas(Section):
    enabled: bool = True
    file: str | None = None
    rater: Literal["simulated", "openai"] = "simulated"
    llm_model: str = "gpt-4o-mini"
    base_url: str | None = None
    runs_per_method: int = Field(1, ge=1, le=20, description="ratings per explanation, averaged per case")
    sample_instances: int = Field(8, ge=1, le=100, description="shared cases each persona rates per method")
    top_k_features: int = Field(5, ge=1, le=50)
    include: list[str] | None = None
    show_method_names: bool = False
    include_baseline: bool = Field(True, description="also rate the Random baseline (a sanity reference)")
    concurrency: int = Field(8, ge=1, le=64)
    timeout_seconds: float = Field(60.0, gt=0, le=600)
    max_retries: int = Field(3, ge=0, le=10)
    call_deadline_seconds: float | None = Field(
        None, gt=0, le=3600, description="one LLM call in all (retries and a slow reply included); "
                                         "null: timeout_seconds x (max_retries + 1)")
    stage_deadline_seconds: float | None = Field(
        None, gt=0, description="one LLM stage (all ratings, or all narratives); requests not sent by then fail "
                                "with that reason; null: no limit")
    max_prompt_tokens: int = Field(2_000_000, ge=1, description="the persona stage refuses a plan whose estimated "
                                                                "prompt tokens exceed this, before sending anything")
    temperature: float = Field(0.2, ge=0, le=2)
    cache: bool = True


class Narratives(Section):
    """Explanations told as a story, checked for faithfulness (``docs/narratives.md``)."""

    enabled: bool = False
    narrator: Literal["simulated", "openai"] = "simulated"
    extractor: Literal["auto", "offline", "openai"] = "auto"
    source: Literal["SHAP", "LIME"] = "SHAP"
    top_n: int = Field(5, ge=1, le=20)
    audience: Literal["personas", "lay", "professional", "both"] = "personas"
    sample_instances: int | None = Field(None, ge=1, le=1000,
                                         description="cases to narrate; null: the cases the personas rate")
    min_rank_agreement: float = Field(0.8, ge=0, le=1)
    min_sign_agreement: float = Field(1.0, ge=0, le=1)
    manipulation_check: bool = True
    llm_model: str | None = Field(None, description="null: personas.llm_model")
    base_url: str | None = Field(None, description="null: personas.base_url")
    temperature: float = Field(0.2, ge=0, le=2)


class Output(Section):
    dir: str = "outputs"
    export_formats: list[Literal["csv", "json"]] = Field(default_factory=lambda: ["csv", "json"])
    save_explanations: bool = True


ActionabilityKind = Literal["actionable", "immutable", "increase_only", "decrease_only", "not_actionable"]


class Actionability(Section):
    """Whether the person a prediction is about can change each feature (``docs/recommendations.md``).

    ``immutable`` (sex) and ``not_actionable`` (a diagnostic finding, a grade someone else assigns)
    are never varied by DiCE; ``increase_only`` / ``decrease_only`` (age, years employed) may move
    one way only; ``actionable`` features may change freely. Features not listed get ``default``.
    """

    default: ActionabilityKind = "actionable"
    features: dict[str, ActionabilityKind] = Field(default_factory=dict, description="feature -> kind")


class Weights(Section):
    """How technical and stakeholder evidence are combined in a recommendation.

    ``technical`` and ``stakeholder`` are the two shares (renormalised). Each stakeholder's own
    score weighs the six rated dimensions by the persona's ``dimension_weights``. The older keys
    ``technical_fidelity`` and ``persona_trust`` + ``persona_satisfaction`` are still read as the two
    shares when the new ones are not given (deprecated); ``technical_parsimony`` > 0 lets parsimony
    break ties.
    """

    technical: float | None = Field(None, ge=0, description="share of the technical evidence")
    stakeholder: float | None = Field(None, ge=0, description="share of the stakeholder's own score")
    technical_fidelity: float = Field(0.3, ge=0, description="deprecated: use technical")
    technical_parsimony: float = Field(0.2, ge=0)
    persona_trust: float = Field(0.3, ge=0, description="deprecated: use stakeholder")
    persona_satisfaction: float = Field(0.2, ge=0, description="deprecated: use stakeholder")

    @model_validator(mode="after")
    def _not_all_zero(self):
        if self.technical_share() + self.stakeholder_share() <= 0:
            raise ValueError("the technical or the stakeholder weight must be positive")
        return self

    def technical_share(self) -> float:
        """The technical share: ``technical``, else the deprecated ``technical_fidelity``."""
        return self.technical if self.technical is not None else self.technical_fidelity

    def stakeholder_share(self) -> float:
        """The stakeholder share: ``stakeholder``, else ``persona_trust + persona_satisfaction``."""
        return self.stakeholder if self.stakeholder is not None else self.persona_trust + self.persona_satisfaction

    def deprecated_keys(self) -> list[str]:
        """Old keys set explicitly in the config (each still read)."""
        return [k for k in ("technical_fidelity", "persona_trust", "persona_satisfaction") if k in self.model_fields_set]


class Recommendations(Section):
    enabled: bool = True
    weights: Weights = Field(default_factory=Weights)


class HexevalConfig(Section):
    domain: Domain = Field(default_factory=Domain)
    data: DataSettings = Field(default_factory=DataSettings)
    evaluation: Evaluation = Field(default_factory=Evaluation)
    personas: Personas = Field(default_factory=Personas)
    narratives: Narratives = Field(default_factory=Narratives)
    output: Output = Field(default_factory=Output)
    recommendations: Recommendations = Field(default_factory=Recommendations)
    actionability: Actionability = Field(default_factory=Actionability)
    source: str | None = Field(None, description="file the config was read from (set by load_config)")
