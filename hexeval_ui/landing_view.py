"""The landing page: what HEXEval answers and how, in two sentences, and each bundled use case one click away."""

from __future__ import annotations

import logging

import streamlit as st

from hexeval_engine.errors import HexevalError
from hexeval_engine.vocabulary import plural

from . import state
from .components import CONFIGURE_PAGE
from .engine import persona_entries

log = logging.getLogger(__name__)

QUESTION = ("HEXEval answers one question for a tabular model: **which explanation — SHAP, LIME, Anchor rules, DiCE "
            "counterfactuals or a plain-language story — should each stakeholder see?**")
HOW = ("It explains the same cases with every method and measures how well each explanation answers the questions "
       "stakeholders ask — *why* did the model say this, *what if* the case were a little different, *will it hold*, "
       "*how can it be changed* — against a reader who saw no explanation. Each stakeholder (a cardiologist, a patient, "
       "a loan officer …) gets the method that answers **their** questions best, with the evidence beside it and how "
       "they perceive each explanation.")

#: What each bundled use case is about, in one line for a newcomer (its data caveats are on Use Case Details).
PITCH = {"heart": ("Should a patient be referred for cardiac work-up?", "the cardiologist", "the patient"),
         "credit_risk": ("Should a loan be approved?", "the loan officer", "the applicant"),
         "wine": ("Which of three grape cultivars is this wine from? (3-class)", "the lab chemist",
                  "the wine drinker"),
         "diabetes": ("How far will a patient's diabetes progress in a year? (regression)", "the endocrinologist",
                      "the patient")}
#: Cards per row on the start page.
CARDS_PER_ROW = 3


def render_landing(usecases) -> None:
    """The two sentences, then one button per bundled use case and one for your own model."""
    st.markdown(QUESTION)
    st.markdown(HOW)
    st.subheader("Try it")
    cards = list(usecases) + [None]  # None: the card for your own model
    for start in range(0, len(cards), CARDS_PER_ROW):
        for col, uc in zip(st.columns(CARDS_PER_ROW), cards[start:start + CARDS_PER_ROW]):
            _card(col, uc)
    st.caption("A run with the built-in simulated personas takes seconds (a bundled use case about 5 s on a 2-core machine) "
               "and needs no network or API key.")


def _card(col, uc) -> None:
    """One use case's card (``uc`` None: the card for your own model)."""
    with col.container(border=True):
        if uc is None:
            st.markdown("**Your own model**")
            st.caption("Upload a model file (skops, XGBoost JSON or ONNX) and the CSV it was trained on.")
            if st.button("Upload my model", key="open_custom", icon=":material/upload:", on_click=_choose,
                         args=(state.CUSTOM,), width="stretch"):
                st.switch_page(CONFIGURE_PAGE)
            return
        st.markdown(f"**{uc.title}**")
        st.caption(_pitch(uc))
        if st.button("Open this use case", key=f"open_{uc.name}", type="primary", icon=":material/play_arrow:",
                     on_click=_choose, args=(uc.name,), width="stretch"):
            st.switch_page(CONFIGURE_PAGE)


def _choose(name: str) -> None:
    """Point the sidebar's use case at ``name`` (a callback: it runs before the sidebar widget is drawn)."""
    st.session_state[state.USECASE] = name
    st.session_state[state.VIEWED_RUN] = state.LATEST


def _pitch(uc) -> str:
    """The use case's question and how many stakeholders it has, counted from its persona file."""
    if uc.name not in PITCH:
        return _first_sentence(uc.description)
    question, first, last = PITCH[uc.name]
    try:
        n = len(persona_entries(uc.personas_path))
    except HexevalError as err:  # a broken persona file is shown on Use Case Details; here the question suffices
        log.warning("Persona file of %s unreadable for the start page: %s", uc.name, err)
        return question
    return f"{question} {plural(n, 'stakeholder').capitalize()}, from {first} to {last}."


def _first_sentence(text: str) -> str:
    return (text or "").split(". ")[0].rstrip(".") + "." if text else ""
