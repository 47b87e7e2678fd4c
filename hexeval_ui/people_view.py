"""Add people's ratings to a loaded run (Results › Add to this run): set up a blinded study whose links people
answer in their browser, or import ratings collected elsewhere with the CSV template.

The engine does the work (``hexeval_engine.study``: ``create_study``, ``add_participants``, ``template``,
``import_ratings``); this page only asks, calls it and says what happened. Links carry a secret token that is
stored only as its fingerprint, so they are shown once, right after they are made.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from hexeval_engine.errors import HexevalError
from hexeval_engine.study import ImportProblems, add_participants, create_study, import_ratings, template
from hexeval_engine.study.evidence import evidence_state, ok_persona_ratings
from hexeval_engine.study.storage import has_study, read_study
from hexeval_engine.vocabulary import plural

from .components import bullet_list, show_error
from .ratings_view import escape_markdown

NEW_LINKS = "people_new_links"
IMPORT_NOTICE = "people_import_notice"
CHOOSE_ROLE = "Participants choose their role"
MAX_CSV_MB = 5


def render_add_people(run) -> None:
    """The "Add people's ratings" part of *Add to this run*."""
    st.markdown("**Add people's ratings**")
    st.caption("Ratings from real people enter the recommendations with each stakeholder's declared weights and are "
               "shown as people's, beside the measured evidence. Invite people to a blinded study (they answer in "
               "their browser through a link you send them), or import ratings you collected elsewhere with the "
               "CSV template.")
    notice = st.session_state.pop(IMPORT_NOTICE, None)
    if notice:
        st.success(notice, icon=":material/check_circle:")
    _show_new_links(run)
    if not has_study(run.path):
        _create_form(run)
        return
    try:
        study, answers = read_study(run.path), evidence_state(run.path)
    except HexevalError as err:
        show_error(err)
        return
    _study_status(run, study, answers)
    _import_form(run)


def rated_case_count(run) -> int:
    """How many cases the run's personas rated successfully (a study can show at most these, as ``create_study``
    counts them)."""
    return int(ok_persona_ratings(run)["instance_index"].nunique())


def persona_roles(run) -> list[str]:
    """The roles of the personas whose ratings a study can use (the roles ``create_study`` records)."""
    return sorted(str(r) for r in ok_persona_ratings(run)["persona_role"].dropna().unique())


def _create_form(run) -> None:
    cases = rated_case_count(run)
    if not cases:
        st.caption("A study shows people the cases the personas rated; this run has no persona ratings, so it cannot "
                   "have a study.")
        return
    with st.form("people_create"):
        st.markdown("Set up a study on this run: each participant sees the chosen cases, each with every explanation "
                    "method under a neutral letter, and rates them on the same questions as the personas.")
        left, right = st.columns(2)
        n_cases = left.number_input("Cases to show", min_value=1, max_value=cases, value=min(3, cases), step=1,
                                    help=f"Out of the {plural(cases, 'case')} the personas rated.", key="people_cases")
        n_people = right.number_input("Participant links", min_value=1, max_value=200, value=2, step=1,
                                      help="One link per person; more can be made later.", key="people_n")
        url = st.text_input("Address participants will open", value="http://localhost:8502",
                            help="Where `hexeval study serve` will be reachable for them; the links start with it.")
        role = st.selectbox("Role", [CHOOSE_ROLE, *persona_roles(run)],
                            help="Fix the role of everyone with these links, or let each participant choose theirs.",
                            key="people_role")
        intro = st.text_area("Introduction and consent text (optional)",
                             help="What participants read before they start; a short neutral introduction is used "
                                  "when this is empty. The number of items and the time it takes are added.")
        submitted = st.form_submit_button("Create the study", icon=":material/group_add:")
    if submitted:
        _make_links(run, lambda: create_study(run.path, cases=int(n_cases), participants=int(n_people),
                                              base_url=url.strip(), intro=intro.strip() or None,
                                              role=None if role == CHOOSE_ROLE else role))


def _make_links(run, make) -> None:
    """Call ``make()`` (it returns ``{participant: link}``) and show its links once on the redrawn page, or its error."""
    try:
        links = make()
    except HexevalError as err:
        show_error(err)
        return
    st.session_state[NEW_LINKS] = (str(run.path), links)
    st.rerun()


def _show_new_links(run) -> None:
    made = st.session_state.get(NEW_LINKS)
    if not made or made[0] != str(run.path):
        return
    links = made[1]
    st.success(f"{plural(len(links), 'participant link')} made. Copy them now: only a fingerprint of each link's "
               "secret is kept, so they cannot be shown again (make new ones instead).", icon=":material/link:")
    st.code("\n".join(links.values()), language=None)
    if st.button("I have copied the links", key="people_links_done"):
        st.session_state.pop(NEW_LINKS, None)
        st.rerun()


def _study_status(run, study: dict, answers: dict) -> None:
    open_ = study.get("status") == "open"
    n_links = len(study.get("participants", {}))
    st.markdown(escape_markdown(
        f"This run has a study ({'open' if open_ else 'closed'}): {plural(len(study.get('items', [])), 'item')}, "
        f"{plural(n_links, 'participant link')}, {plural(answers['n_ratings'], 'rating')} from "
        f"{plural(answers['n_people'], 'person', 'people')} so far."))
    if open_:
        st.caption("Participants reach the study while it is served: run `hexeval study serve "
                   f"{escape_markdown(run.path.name)}` on this machine (it serves only the study pages).")
        more, go = st.columns([3, 1], vertical_alignment="bottom")
        n = more.number_input("More participant links", min_value=1, max_value=200, value=1, step=1,
                              key="people_more_n")
        if go.button("Make links", icon=":material/add_link:", key="people_more", width="stretch"):
            _make_links(run, lambda: add_participants(run.path, int(n)))


def _import_form(run) -> None:
    st.markdown("Ratings collected elsewhere (a survey tool, a paper's supplement): fill in one row per rating in "
                "the template, then import it. The whole file is checked first; nothing changes unless every row "
                "is valid.")
    try:
        text = template(run.path)
    except HexevalError as err:
        show_error(err)
        return
    st.download_button("Download the CSV template", text, file_name=f"{run.path.name}_ratings_template.csv",
                       mime="text/csv", icon=":material/download:", key="people_template")
    upload = st.file_uploader("Filled-in template (CSV)", type=["csv"], key="people_csv",
                              max_upload_size=MAX_CSV_MB)
    if upload is None:
        return
    if st.button("Import the ratings", icon=":material/upload:", key="people_import", type="primary"):
        _import(run, upload)


def _import(run, upload) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / Path(upload.name).name
        path.write_bytes(upload.getvalue())
        try:
            with st.spinner("Importing the ratings and recomputing the recommendations with them…"):
                n = import_ratings(run.path, path)
        except ImportProblems as err:
            st.error(f"The file was not imported ({plural(len(err.problems), 'problem')}; nothing was changed):\n\n"
                     + escape_markdown(bullet_list(err.problems)), icon=":material/error:")
            return
        except HexevalError as err:
            show_error(err)
            return
    st.session_state[IMPORT_NOTICE] = (f"Imported {plural(n, 'rating')}. The recommendations now include people's "
                                       "ratings; the study tab shows them beside the personas'.")
    st.rerun()
