"""``Examples``: the nearest real cases with the other outcome (and with the same one), and how they differ.

"People like you who got the other outcome." For each explained case the explainer shows the
``n_examples`` training cases nearest to it that the model answers the other way, then the ``n_same``
nearest that it answers the same way, each with the features in which it differs from the case. Example-based
explanations helped people most in counterfactual simulation (Hase & Bansal 2020, *Evaluating explainable AI:
which algorithmic explanations help users predict model behavior?*, ACL); unlike a counterfactual search,
every example is a real person, so it is plausible by construction.

Distance (over ``data.X_train`` only: test rows are never shown): a numeric feature contributes its absolute
difference in training standard deviations, a categorical one 1 when the values differ; a missing value on
either side counts 1 (0 when both are missing). The distance is the mean over the features. The model's answer
for each training row is its prediction (not the recorded label): the question is what the *model* does.

A feature *differs* when its difference is at least ``min_difference`` standard deviations (any category
change); ``differs`` lists those, largest first. A same-outcome case identical to the explained one on every
feature (a duplicate) shows nothing and is skipped.

Actionability (``explainers.actionability``): an example whose every difference is in a feature the person
cannot change (``immutable``, ``not_actionable``, or a one-way feature moved against its direction) is marked
``only_fixed_differences`` and said so in the text: it got the other outcome, but the person cannot become it.

Multi-class and regression models are explained through their counterfactual view (``aims_at_target``): the
"other outcome" is the class aimed for (``data.counterfactual_target``, else the runner-up) or the other side of
a regression band, exactly as for DiCE (``technical.class_groups``).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError
from ..explanation import Explanation, SimilarCase
from .actionability import feature_actionability, forbidden_changes
from .spec import MethodSpec
from ..plain_values import finite_number


class ExamplesSettings(BaseModel):
    """Settings under ``evaluation.explainers.examples``."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    n_examples: int = Field(3, ge=1, le=20, description="nearest training cases with the other outcome")
    n_same: int = Field(1, ge=0, le=20, description="nearest training cases with the same outcome")
    max_differences: int = Field(3, ge=1, le=50, description="differences shown per similar case (largest first; "
                                 "personas.top_k_features caps it too)")
    max_instances: int = Field(50, ge=1, le=1000)
    min_difference: float = Field(0.25, ge=0.0, le=10.0, description="a numeric feature differs from this many "
                                  "training standard deviations on")

    @classmethod
    def model_validate(cls, obj, **kwargs):
        """The settings, or a ``ConfigError`` naming each bad key, its value and what it must be."""
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as err:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'the section'} = {e.get('input')!r}: {e['msg']}"
                                 for e in err.errors())
            raise ConfigError(f"evaluation.explainers.examples has a bad setting ({problems}). Fix it in the config "
                              f"(keys: {', '.join(cls.model_fields)}).") from err


class SimilarCasesExplainer:
    """Nearest training cases by the model's answer (see the module docstring).

    Parameters
    ----------
    model : HexevalModel
        The (possibly one-class or band) view whose ``predict`` gives the answers compared.
    data : Dataset
    config : HexevalConfig
    seed : int, optional
        Unused (the method draws nothing); part of the uniform factory.
    """

    method = "Examples"

    def __init__(self, model, data, config, *, seed: int | None = None):
        self.model, self.data = model, data
        self.settings = config.evaluation.explainers.section("examples", ExamplesSettings)
        self.features = list(data.feature_names)
        self.kinds = feature_actionability(config, self.features)
        train = data.X_train[self.features].reset_index(drop=True)
        self.train = train
        self.numeric = [f for f in self.features if f not in set(data.categorical_features)]
        std = train[self.numeric].apply(pd.to_numeric, errors="coerce").std() if self.numeric else pd.Series(dtype=float)
        self.scales = {f: (float(std[f]) if np.isfinite(std[f]) and std[f] > 0 else 1.0) for f in self.numeric}
        self.proba = np.asarray(model.predict_proba(train), dtype=float)[:, 1]
        self.answers = (self.proba >= float(model.threshold)).astype(int)

    def distances(self, row: dict) -> tuple[np.ndarray, dict]:
        """Mean standardised distance of every training row to ``row`` (feature -> raw value), and the per-feature
        gaps."""
        gaps = {}
        for f in self.features:
            column = self.train[f]
            if f in self.scales:
                z = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
                x = finite_number(row[f])
                if x is None:
                    gap = np.where(np.isnan(z), 0.0, 1.0)
                else:
                    gap = np.where(np.isnan(z), 1.0, np.abs(z - x) / self.scales[f])
            else:
                missing = column.isna().to_numpy()
                if pd.isna(row[f]):
                    gap = np.where(missing, 0.0, 1.0)
                else:
                    same = (column.to_numpy(dtype=object) == row[f]) | (column.astype(str).to_numpy() == str(row[f]))
                    gap = np.where(missing | ~same, 1.0, 0.0)
            gaps[f] = gap
        return np.mean(np.vstack(list(gaps.values())), axis=0), gaps

    def explain(self, X_raw: pd.DataFrame, instance_ids, classes, probabilities, seeds, *,
                on_instance=None) -> list[Explanation]:
        """One :class:`Explanation` per row of ``X_raw`` with its ``examples``."""
        out = []
        for i, iid in enumerate(instance_ids):
            start = time.perf_counter()
            row = {f: X_raw[f].iloc[i] for f in self.features}  # per column: a row Series would turn ints to floats
            cls = int(classes[i])
            distance, gaps = self.distances(row)
            examples = (self._nearest(row, cls, distance, gaps, same=False, n=self.settings.n_examples)
                        + self._nearest(row, cls, distance, gaps, same=True, n=self.settings.n_same))
            other = [e for e in examples if not e.same_outcome]
            extra = {"actionability": dict(self.kinds), "n_training_cases": len(self.train),
                     "shown_differences": int(self.settings.max_differences),
                     "fixed_only_examples": sum(e.only_fixed_differences for e in other)}
            if not other:
                extra["no_other_outcome"] = ("No training case gets the other answer from the model, so there is "
                                             "no similar case with the other outcome to show.")
            out.append(Explanation(
                method=self.method, instance_id=int(iid), predicted_class=cls, probability=float(probabilities[i]),
                examples=examples, importance=_difference_shares(other, self.features), importance_derived=True,
                algorithm="nearest training cases (standardised distance)", seconds=time.perf_counter() - start,
                extra=extra))
            if on_instance is not None:
                on_instance()
        return out

    def _nearest(self, row, cls: int, distance, gaps, *, same: bool, n: int) -> list[SimilarCase]:
        if n <= 0:
            return []
        wanted = (self.answers == cls) if same else (self.answers != cls)
        if same:
            wanted &= distance > 0  # a duplicate of the case shows nothing
        candidates = np.flatnonzero(wanted)
        order = candidates[np.argsort(distance[candidates], kind="stable")][:n]
        out = []
        for j in order:
            example = {f: _plain(self.train[f].iloc[j]) for f in self.features}
            notable = [(f, float(gaps[f][j])) for f in self.features
                       if gaps[f][j] > 0 and (f not in self.scales or gaps[f][j] >= self.settings.min_difference)]
            notable.sort(key=lambda fg: -fg[1])
            differs = {f: (_plain(row[f]), example[f]) for f, _ in notable}
            fixed = set(forbidden_changes(differs, self.kinds))
            p = float(self.proba[j])
            out.append(SimilarCase(row=example, prediction=int(self.answers[j]),
                                   probability=p if cls == 1 else 1.0 - p, differs=differs, same_outcome=same,
                                   only_fixed_differences=bool(differs) and fixed == set(differs),
                                   index=int(j), distance=float(distance[j])))
        return out


def _difference_shares(examples: list[SimilarCase], features: list[str]) -> dict:
    """Derived importance: the share of the other-outcome examples that differ in each feature."""
    if not examples:
        return {f: 0.0 for f in features}
    return {f: sum(f in e.differs for e in examples) / len(examples) for f in features}




def _plain(value):
    """numpy scalars -> Python scalars, missing -> None."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        value = value.item()
        return None if isinstance(value, float) and np.isnan(value) else value
    return value


SPEC = MethodSpec(
    "Examples", "example", "similar real cases with the other outcome, and how they differ",
    "Similar cases: the nearest real cases the model answered the other way (and the same way), and what differs.",
    factory=SimilarCasesExplainer, settings_key="examples", settings_model=ExamplesSettings,
    color="#D55E00", dash="6px,3px,2px,3px,2px,3px", symbol="hexagon",  # vermillion; dash-dot-dot
    aims_at_target=True, instance_cap="max_instances")
