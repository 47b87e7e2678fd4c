"""Use-case context: domain, model card, features and personas, rendered from files."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hexeval_engine.models.model_words import model_words
from hexeval_engine.personas.schema import LEVEL_FIELDS

from .components import bullet_list

# Persona fields shown in this order; anything else in the YAML is shown after them.
PERSONA_SECTIONS = (("priorities", "Priorities"), ("mental_model", "Mental model"),
                    ("heuristics", "Heuristics"), ("explanation_preferences", "Explanation preferences"))


def render_domain(domain, usecase) -> None:
    st.markdown(f"**{domain.name}** — the model predicts *{domain.prediction_task}*; positive class: "
                f"**{usecase.positive_class_meaning}** (`{usecase.target}`).")
    rows = [("Decision supported", f"{domain.decision_verb} ({domain.decision_noun})"),
            ("Stakeholder setting", domain.stakeholder_context), ("End user", domain.end_user_context),
            ("Positive outcome", domain.positive_outcome), ("Negative outcome", domain.negative_outcome)]
    rows += [(f"Term: {k.replace('_', ' ')}", v) for k, v in domain.terms.items()]
    st.dataframe(pd.DataFrame([r for r in rows if r[1]], columns=["Aspect", "In this use case"]), hide_index=True)


def _metric(card: dict, name: str):
    value = card.get(f"test_{name}", card.get(name))
    return f"{value:.3f}" if isinstance(value, (int, float)) else "—"


def render_model_card(card: dict, domain, *, features: bool = True) -> None:
    """Held-out performance (overall, per class, confusion matrix) and, optionally, the feature list."""
    n_train, n_test = card.get("n_train"), card.get("n_test")
    if card.get("task") == "regression":
        _render_value_card(card)
        if features and card.get("features"):
            st.dataframe(_feature_table(card, domain), hide_index=True)
        return
    labels = card.get("class_labels") or ["0", "1"]
    many = len(labels) > 2
    decision = (f"{len(labels)}-class classification, the most probable class is predicted" if many
                else f"decision threshold {card.get('threshold', 0.5)}")
    st.markdown(f"**{model_words(card.get('model_type'))}** · trained on {_count(n_train)} rows, tested on "
                f"{_count(n_test)} held-out rows · {decision}")
    leaking = card.get("leaking_test_rows") or 0
    if leaking:
        st.warning(f"{leaking:,} of the {_count(n_test)} test rows also appear among the training rows, so these "
                   "scores are inflated. Drop duplicate rows before splitting to measure on unseen rows.",
                   icon=":material/warning:")
    cols = st.columns(5)
    for col, (name, label, help_) in zip(cols, _MULTI_CLASS_METRICS if many else _BINARY_METRICS):
        col.metric(label, _metric(card, name), help=help_, border=True)
    left, right = st.columns([3, 2])
    with left:
        st.markdown("**Per class** (held-out test rows)")
        per_class = card.get("per_class")
        if per_class:
            st.dataframe(per_class_table(per_class, domain), hide_index=True)
        else:
            st.caption("Not recorded in this model card; retrain the use case (make prepare) to add it.")
    with right:
        st.markdown("**Confusion matrix** (test rows)")
        matrix = card.get("confusion_matrix")
        if matrix and many:
            st.caption("Rows: the actual class; columns: the class the model predicts.")
            table = confusion_table(matrix, labels)
            st.dataframe(table, height=min(36 * (len(table) + 1) + 3, 420))  # scrolls at 10 classes
        elif matrix:
            negative, positive = _class_names(card, domain)
            st.table(pd.DataFrame(matrix, index=[f"Actual: {negative}", f"Actual: {positive}"],  # static: no header cut
                                      columns=[f"Predicted: {negative}", f"Predicted: {positive}"]))
        else:
            st.caption("Not recorded in the model card.")
    if features and card.get("features"):
        st.markdown("**Features** (the raw CSV columns every explanation speaks in)")
        table = _feature_table(card, domain)
        st.dataframe(table, hide_index=True, height=min(36 * (len(table) + 1) + 3, 600))


_BINARY_METRICS = (
    ("roc_auc", "Test ROC-AUC", "Area under the ROC curve on the held-out test rows (1 = perfect ranking)."),
    ("accuracy", "Accuracy", "Share of test rows classified correctly."),
    ("precision", "Precision", "Of the rows predicted positive, the share that are positive."),
    ("recall", "Recall", "Of the positive rows, the share the model finds."),
    ("f1", "F1", "Harmonic mean of precision and recall."))
_MULTI_CLASS_METRICS = (
    ("roc_auc", "Macro ROC-AUC", "Each class against the rest, averaged over the classes (1 = perfect ranking)."),
    ("accuracy", "Accuracy", "Share of test rows given their actual class."),
    ("precision", "Macro precision", "Per class: of the rows predicted as it, the share that are; averaged."),
    ("recall", "Macro recall", "Per class: of its rows, the share the model finds; averaged."),
    ("f1", "Macro F1", "Per class: harmonic mean of precision and recall; averaged."))


def _render_value_card(card: dict) -> None:
    """A regressor's card: MAE, RMSE and R² on held-out rows beside predicting the training mean, and the
    residuals (actual minus predicted)."""
    st.markdown(f"**{model_words(card.get('model_type'))}** · regression · trained on {_count(card.get('n_train'))} rows, "
                f"tested on {_count(card.get('n_test'))} held-out rows")
    cols = st.columns(3)
    for col, (name, label, help_) in zip(cols, (
            ("mae", "MAE", "Mean absolute error on the held-out rows."),
            ("rmse", "RMSE", "Root mean squared error on the held-out rows."),
            ("r2", "R²", "Share of the target's variance the model explains (0 = no better than the mean)."))):
        baseline = card.get(f"mean_prediction_{name}")
        col.metric(label, _metric(card, name), help=help_, border=True,
                   delta=f"mean only: {baseline:.3g}" if isinstance(baseline, float) else None, delta_color="off")
    residuals = card.get("residuals") or {}
    if residuals:
        st.caption("Residuals (actual − predicted): " + ", ".join(
            f"{label} {residuals[key]:.3g}" for key, label in (("q05", "5%"), ("q25", "25%"), ("q50", "median"),
                                                              ("q75", "75%"), ("q95", "95%")) if key in residuals))


def confusion_table(matrix: list[list[int]], labels: list[str]) -> pd.DataFrame:
    """A K x K confusion matrix labelled with the class names (rows actual, columns predicted)."""
    names = [str(label) for label in labels]
    return pd.DataFrame(matrix, index=pd.Index(names, name="actual"), columns=names)


def per_class_table(per_class: list[dict], domain) -> pd.DataFrame:
    """One row per class: its label and meaning, precision, recall, F1 and the number of test rows."""
    meaning = {"negative": domain.negative_outcome, "positive": domain.positive_outcome}
    return pd.DataFrame([{"Class": f"{c['class']} ({meaning[c['role']]})" if c["role"] in meaning else c["class"],
                          "Precision": f"{c['precision']:.3f}", "Recall": f"{c['recall']:.3f}",
                          "F1": f"{c['f1']:.3f}", "Test rows": f"{c['support']:,}"} for c in per_class])


def _class_names(card: dict, domain) -> tuple[str, str]:
    labels = card.get("class_labels") or ["0", "1"]
    return (f"{labels[0]} ({domain.negative_outcome})", f"{labels[1]} ({domain.positive_outcome})")


def _count(value) -> str:
    return f"{value:,}" if isinstance(value, int) else "?"


def _feature_table(card: dict, domain) -> pd.DataFrame:
    categorical = set(card.get("categorical_features", []))
    rows = []
    for f in card.get("features", []):
        labels = domain.value_labels.get(f, {})
        rows.append({"Feature": f, "Kind": "categorical" if f in categorical else "numeric",
                     "Meaning": domain.feature_descriptions.get(f, ""),
                     "Values": ", ".join(f"{k} = {v}" for k, v in labels.items())})
    return pd.DataFrame(rows, columns=["Feature", "Kind", "Meaning", "Values"])


def render_persona(persona: dict) -> None:
    """One persona as an expander: what they need on the left, who they are on the right."""
    name, role = persona.get("name", "Unnamed persona"), persona.get("role", "")
    with st.expander(f"**{name}** — {role}" if role else f"**{name}**"):
        facts = [f"{persona['audience'].replace('_', ' ')}" if persona.get("audience") else "",
                 f"{persona['experience_years']} years' experience" if persona.get("experience_years") else ""]
        if any(facts):
            st.caption(" · ".join(f for f in facts if f))
        shown = {"name", "role", "audience", "experience_years"}
        needs, profile = st.columns([3, 2])
        with needs:
            for key, title in PERSONA_SECTIONS:
                if key in persona:
                    st.markdown(f"**{title}**\n\n{_as_markdown(persona[key])}")
                    shown.add(key)
        with profile:
            for key in ("risk_profile", "decision_style"):
                if key in persona:
                    st.markdown(f"**{_title(key)}**\n\n{_as_markdown(persona[key])}")
                    shown.add(key)
            levels = {k: persona[k] for k in LEVEL_FIELDS if persona.get(k) is not None}
            if levels:
                st.markdown("**Rater profile**")
                st.dataframe(pd.DataFrame({"Trait": [_title(k) for k in levels],
                                           "Level": [str(v).replace("_", " ") for v in levels.values()]}),
                             hide_index=True)
                shown |= set(levels)
        for key, value in persona.items():
            if key not in shown and value not in (None, "", [], {}):
                st.markdown(f"**{_title(key)}**\n\n{_as_markdown(value)}")


def _title(key: str) -> str:
    return key.replace("_", " ").capitalize().replace("Ai ", "AI ")


def _as_markdown(value) -> str:
    if isinstance(value, list):
        return bullet_list(_as_markdown(v) if isinstance(v, (dict, list)) else v for v in value)
    if isinstance(value, dict):
        return bullet_list(f"*{k.replace('_', ' ')}*: {v}" for k, v in value.items())
    return str(value)
