"""The one page a study participant sees (served by ``study_app.py``): their link's study and nothing else.

The token comes from the address (``?token=...``); a wrong token, or any token of a closed study,
shows only "This is not a valid study link." Every answer is saved before the next item appears,
so closing the tab and reopening the link resumes where the participant stopped. An answer only
saves the answer: the calibration and the recommendations with human evidence are recomputed when
the operator asks (``hexeval study status``/``close``, the Results page's study section).
"""

from __future__ import annotations

import streamlit as st

from hexeval_engine.study.answers import (INVALID_LINK, AnswerError, InvalidLink, next_item, open_link, save_answer,
                                          set_role, shown_item)
from hexeval_engine.vocabulary import dimension_label

from .ratings_view import escape_markdown

OTHER_ROLE = "Another role (type it)"


def render(run_dir, token) -> None:
    """Render the participant's study (or only the invalid-link sentence)."""
    try:
        study, pid, record = open_link(run_dir, token) if run_dir else (_invalid())
    except InvalidLink:
        st.write(INVALID_LINK)
        return
    st.title("Which explanation helps you?")
    if not record.get("role"):
        _introduction(run_dir, token, study)
        return
    item = next_item(study, pid, record)
    total = len(study["participants"][pid]["order"])
    if item is None:
        st.success("Thank you: all your answers are saved. You can close this page.")
        return
    _item(run_dir, token, study, pid, record, item, total)


def _invalid():
    raise InvalidLink()


def _introduction(run_dir, token, study: dict) -> None:
    st.markdown("You will see a few cases, each with the system's prediction and an explanation of it. For each "
                "explanation, answer six questions from 1 (not at all) to 5 (very much), add a comment if you like, "
                "and answer one question about what the system would predict if one thing were different. "
                "Your answers are saved after every case; you can close the page and come back with the same link.")
    choice = st.selectbox("Your role", [*study["roles"], OTHER_ROLE], key="role_choice")
    typed = st.text_input("Your role in your own words", key="role_typed") if choice == OTHER_ROLE else ""
    if st.button("Start", type="primary"):
        try:
            set_role(run_dir, token, typed if choice == OTHER_ROLE else choice)
        except AnswerError as err:
            st.error(str(err))
            return
        st.rerun()


def _item(run_dir, token, study: dict, pid: str, record: dict, item: dict, total: int) -> None:
    view = shown_item(study, pid, record, item)
    done = len(record.get("answers", {}))
    st.progress(done / total, text=f"Case {done + 1} of {total}")
    st.subheader("The case")
    st.markdown(escape_markdown(view["case"]).replace("\n", "  \n"))
    st.markdown(escape_markdown(view["prediction"]))
    st.subheader(view["label"])
    st.info(escape_markdown(view["text"]))
    with st.form(f"item-{view['item_id']}", clear_on_submit=True):
        scores = {d: st.radio(f"{dimension_label(d)}: {study['questions'][d]}", [1, 2, 3, 4, 5], index=None,
                              horizontal=True, key=f"{view['item_id']}-{d}") for d in study["dimensions"]}
        comment = st.text_area("Comment (optional)", key=f"{view['item_id']}-comment", max_chars=2000)
        answer = None
        if view["question"]:
            answer = st.radio(view["question"], view["options"], index=None, key=f"{view['item_id']}-whatif")
        submitted = st.form_submit_button("Save and continue", type="primary")
    if submitted:
        missing = [dimension_label(d) for d, v in scores.items() if v is None]
        if missing or (view["question"] and answer is None):
            st.error("Answer every question before continuing" + (f" (missing: {', '.join(missing)})." if missing else "."))
            return
        try:
            save_answer(run_dir, token, view["item_id"], scores=scores, comment=comment,
                        simulation_answer=None if answer is None else view["options"].index(answer))
        except AnswerError as err:
            st.error(str(err))
            return
        except InvalidLink:
            st.write(INVALID_LINK)
            return
        st.rerun()
