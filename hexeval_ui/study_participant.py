"""The one page a study participant sees (served by ``study_app.py``): their link's study and nothing else.

The token comes from the address (``?token=...``); a wrong token, or any token of a closed study,
shows only "This is not a valid study link." The introduction (the operator's text, the number of
explanations and the time they take) comes first; the participant chooses a role (nothing is
preselected) unless the link fixes it. Each explanation then opens at its top with "Explanation 2 of
6 for case 1 of 3"; an answer with a question left blank keeps every answer given, names the
questions still open (the what-if question included) and scrolls to the first of them. Every answer is
saved before the next item appears, so closing the tab and reopening the link resumes where the
participant stopped. An answer only saves the answer: the calibration and the recommendations with
human evidence are recomputed when the operator asks (``hexeval study status``/``close``, the Results
page's study section).
"""

from __future__ import annotations

import json

import streamlit as st
import streamlit.components.v1 as components

from hexeval_engine.study.answers import (INVALID_LINK, AnswerError, InvalidLink, next_item, open_link, save_answer,
                                          set_role, shown_item)
from hexeval_engine.study.create import DEFAULT_INTRO, minutes_needed, progress
from hexeval_engine.vocabulary import dimension_label, plural

from .ratings_view import escape_markdown

OTHER_ROLE = "Another role (type it)"
WHAT_IF = "the what-if question"
TOP_KEY = "study-top"
_MISSING = "_study_missing"  # {item id: [question keys still open]} after a Save with blanks
_SCROLLED = "_study_scrolled"  # the item whose top the page last scrolled to
_ERROR = "_study_error"


def render(run_dir, token) -> None:
    """Render the participant's study (or only the invalid-link sentence)."""
    try:
        study, pid, record = open_link(run_dir, token) if run_dir else (_invalid())
    except InvalidLink:
        st.write(INVALID_LINK)
        return
    top = st.container(key=TOP_KEY)
    if not record.get("role"):
        top.header("Which explanation helps you?")
        _introduction(run_dir, token, study, pid)
        return
    top.markdown("#### Which explanation helps you?")
    item = next_item(study, pid, record)
    if item is None:
        st.success("Thank you: all your answers are saved. You can close this page.")
        return
    _item(run_dir, token, study, pid, record, item)


def _invalid():
    raise InvalidLink()


def _introduction(run_dir, token, study: dict, pid: str) -> None:
    n_items = len(study["participants"][pid]["order"])
    n_cases = len({i["instance_index"] for i in study["items"] if i["item_id"] in study["participants"][pid]["order"]})
    st.markdown(escape_markdown(study.get("intro") or DEFAULT_INTRO).replace("\n", "  \n"))
    st.info(f"You will see {plural(n_cases, 'case')}, {'each ' if n_cases > 1 else ''}explained in several ways: "
            f"{plural(n_items, 'explanation')} in all. It takes about {plural(minutes_needed(study, pid), 'minute')}.",
            icon=":material/schedule:")
    fixed = study["participants"][pid].get("role")
    if fixed:
        st.markdown(f"**Your role in this study:** {escape_markdown(fixed)}")
        role = fixed
    else:
        choice = st.selectbox("Your role", [*study["roles"], OTHER_ROLE], index=None, key="role_choice",
                              placeholder="Choose the role closest to yours")
        typed = st.text_input("Your role in your own words", key="role_typed") if choice == OTHER_ROLE else ""
        role = typed if choice == OTHER_ROLE else (choice or "")
    if st.button("Start", type="primary"):
        if not role.strip():
            st.error("Choose your role (or choose “Another role” and type it) before starting.")
            return
        try:
            set_role(run_dir, token, role)
        except AnswerError as err:
            st.error(str(err))
            return
        st.rerun()


def _item(run_dir, token, study: dict, pid: str, record: dict, item: dict) -> None:
    view = shown_item(study, pid, record, item)
    item_id = view["item_id"]
    where = progress(study, pid, item_id)
    done, total = len(record.get("answers", {})), len(study["participants"][pid]["order"])
    st.progress(done / total, text=f"Explanation {where['explanation']} of {where['explanations']} "
                                   f"for case {where['case']} of {where['cases']}")
    if st.session_state.get(_SCROLLED) != item_id:  # a new item opens at its top, wherever the last one ended
        if st.session_state.get(_SCROLLED) is not None:
            st.toast("Your answer is saved.", icon=":material/check_circle:")
        st.session_state[_SCROLLED] = item_id
        _scroll_to(TOP_KEY, block="start", nonce=item_id)  # the item in the script: a new script for a new item
    st.subheader("The case")
    st.markdown(case_table(view))
    st.markdown(f"**{escape_markdown(view['prediction'])}**")
    st.subheader(view["label"])
    st.info(escape_markdown(view["text"]))
    keys = {d: f"{item_id}-{d}" for d in study["dimensions"]}
    if view["question"]:
        keys[WHAT_IF] = f"{item_id}-whatif"
    missing = st.session_state.get(_MISSING, {}).get(item_id, [])
    with st.form(f"item-{item_id}", clear_on_submit=False, border=False):
        st.markdown("**Your answers** (1 = not at all, 5 = very much)")
        for d in study["dimensions"]:
            st.radio(f"**{dimension_label(d)}:** {escape_markdown(study['questions'][d])}", [1, 2, 3, 4, 5], index=None, horizontal=True,
                     key=keys[d])
            _mark(d in missing, dimension_label(d))
        st.text_area("Comment (optional)", key=f"{item_id}-comment", max_chars=2000)
        if view["question"]:
            st.radio(f"**What if:** {escape_markdown(view['question'])}", view["options"], index=None, key=keys[WHAT_IF])
            _mark(WHAT_IF in missing, WHAT_IF)
        st.form_submit_button("Save and continue", type="primary", on_click=_submit,
                              args=(run_dir, token, study, view, keys))
    error = st.session_state.pop(_ERROR, None)
    if missing:
        names = [WHAT_IF if q == WHAT_IF else dimension_label(q) for q in missing]
        st.error(f"Nothing you answered is lost. Still to answer: {_join(names)}. "
                 f"{'It is' if len(names) == 1 else 'They are'} marked above.", icon=":material/error:")
        nonce = st.session_state.get("_study_tries", 0)
        _scroll_to(keys[missing[0]], block="center", nonce=nonce)
    elif error:
        st.error(error)


def _mark(missing: bool, name: str) -> None:
    if missing:
        st.markdown(f":red[:material/error: Please answer {escape_markdown(name[:1].lower() + name[1:])} above.]")


def _submit(run_dir, token, study: dict, view: dict, keys: dict) -> None:
    """The Save button: save a complete answer, or record which questions are still open (nothing is cleared)."""
    state = st.session_state
    item_id = view["item_id"]
    missing = [q for q, key in keys.items() if state.get(key) is None]
    state["_study_tries"] = state.get("_study_tries", 0) + 1
    if missing:
        state.setdefault(_MISSING, {})[item_id] = missing
        return
    state.get(_MISSING, {}).pop(item_id, None)
    answer = state.get(keys.get(WHAT_IF)) if WHAT_IF in keys else None
    try:
        save_answer(run_dir, token, item_id, scores={d: state[keys[d]] for d in study["dimensions"]},
                    comment=state.get(f"{item_id}-comment") or "",
                    simulation_answer=None if answer is None else view["options"].index(answer))
    except (AnswerError, InvalidLink) as err:
        state[_ERROR] = str(err)


def case_table(view: dict) -> str:
    """The case's values as a two-column markdown table (studies made before values were stored: their lines)."""
    pairs = view.get("case_values")
    if not pairs:
        pairs = [line[2:].split(": ", 1) if ": " in line else [line[2:], ""]
                 for line in str(view.get("case") or "").splitlines() if line.startswith("- ")]
    rows = "\n".join(f"| {_cell(name)} | {_cell(value)} |" for name, value in pairs)
    return "| What | Value |\n|:--|:--|\n" + rows


def _cell(text) -> str:
    return escape_markdown(" ".join(str(text).split()))


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _scroll_to(key: str, *, block: str, nonce: int | str = 0) -> None:
    """Scroll the page so the element with ``key`` is in view; ``block="start"`` scrolls every scrolled
    container above it back to the top (a new item). A zero-height script; ``nonce`` makes it run again."""
    target = json.dumps(f".st-key-{key}")
    top = "true" if block == "start" else "false"
    components.html(
        f"<script>/* {json.dumps(str(nonce))[1:-1].replace('*/', '')} */ const go = (tries) => {{ const doc = window.parent.document;"
        f" const el = doc.querySelector({target});"
        f" if (!el) {{ if (tries > 0) setTimeout(() => go(tries - 1), 100); return; }}"
        f" if ({top}) {{ for (let n = el; n; n = n.parentElement) {{ if (n.scrollTop) n.scrollTop = 0; }}"
        f" window.parent.scrollTo(0, 0); }} else {{ el.scrollIntoView({{block: {json.dumps(block)}}}); }} }};"
        " setTimeout(() => go(50), 150);</script>", height=0)
