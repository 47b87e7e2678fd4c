"""Use-case context: domain, model card, features and personas, rendered from files."""

from __future__ import annotations

import pandas as pd
import streamlit as st

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
    st.dataframe(pd.DataFrame([r for r in rows if r[1]], columns=["aspect", "in this use case"]), hide_index=True)


def _metric(card: dict, name: str):
    value = card.get(f"test_{name}", card.get(name))
    return f"{value:.3f}" if isinstance(value, (int, float)) else "—"


def render_model_card(card: dict, domain) -> None:
    st.markdown(f"**{card.get('model_type', 'Model')}** · trained on {card.get('n_train', '?'):,} rows, "
                f"tested on {card.get('n_test', '?'):,} held-out rows · decision threshold {card.get('threshold', 0.5)}")
    cols = st.columns(5)
    for col, (name, label, help_) in zip(cols, (
            ("roc_auc", "Test ROC-AUC", "Area under the ROC curve on the held-out test rows (1 = perfect ranking)."),
            ("accuracy", "Accuracy", "Share of test rows classified correctly."),
            ("precision", "Precision", "Of the rows predicted positive, the share that are positive."),
            ("recall", "Recall", "Of the positive rows, the share the model finds."),
            ("f1", "F1", "Harmonic mean of precision and recall."))):
        col.metric(label, _metric(card, name), help=help_, border=True)
    matrix = card.get("confusion_matrix")
    left, right = st.columns([2, 3])
    with left:
        st.markdown("**Confusion matrix** (test rows)")
        if matrix:
            st.dataframe(pd.DataFrame(matrix, index=["Actual negative", "Actual positive"],
                                      columns=["Predicted negative", "Predicted positive"]))
            st.caption(f"Positive = {domain.positive_outcome}.")
        else:
            st.caption("Not recorded in the model card.")
    with right:
        st.markdown("**Features** (the raw CSV columns every explanation speaks in)")
        table = _feature_table(card, domain)
        st.dataframe(table, hide_index=True, height=min(36 * (len(table) + 1) + 3, 600))


def _feature_table(card: dict, domain) -> pd.DataFrame:
    categorical = set(card.get("categorical_features", []))
    rows = []
    for f in card.get("features", []):
        labels = domain.value_labels.get(f, {})
        rows.append({"feature": f, "kind": "categorical" if f in categorical else "numeric",
                     "meaning": domain.feature_descriptions.get(f, ""),
                     "values": ", ".join(f"{k} = {v}" for k, v in labels.items())})
    return pd.DataFrame(rows, columns=["feature", "kind", "meaning", "values"])


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
                st.dataframe(pd.DataFrame({"trait": [_title(k) for k in levels],
                                           "level": [str(v).replace("_", " ") for v in levels.values()]}),
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
