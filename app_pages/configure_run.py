"""Configure & Run: choose what to evaluate, check it, run it, or load an earlier run."""

import streamlit as st

from hexeval_engine import HexevalError, get_usecase, load_config
from hexeval_engine.paths import generic_personas_path
from hexeval_ui import state
from hexeval_ui.components import DETAILS_PAGE, page_header, show_error
from hexeval_ui.engine import config_for, model_card_for, persona_entries
from hexeval_ui.rater import current_choice
from hexeval_ui.run_view import render_finished_run, run_evaluation
from hexeval_ui.quality_view import render_bundled_checks
from hexeval_ui.reuse_view import render_resumable
from hexeval_ui.saved_runs_view import render_saved_runs
from hexeval_ui.settings_form import render_settings
from hexeval_ui.upload_view import render_check, render_data_checks, render_upload_form

page_header("Configure & Run",
            "Pick the explainers and how many cases to explain, choose who rates them, and run. Each run is saved, "
            "so you can come back to it or compare it with another.")
render_finished_run()  # the verdict of the run that just finished, first thing on the page

usecase_name = state.current_usecase()
rater = current_choice()
usecase = upload = None
try:
    if state.is_custom():
        upload = render_upload_form()
        if upload is not None:
            render_check(upload)
        ready = upload is not None and upload.ok
        config = load_config(upload.config_path if ready else None)
        n_test = (upload.dataset_summary or {}).get("n_test", 100) if ready else 100
        n_personas = 0
        if ready:
            raters = persona_entries(upload.personas_path or generic_personas_path())
            n_personas = len(raters)
            who = ", ".join(f"{p['name']} ({p['role']})" for p in raters)
            st.caption(f"Personas from your file rate the explanations: {who}." if upload.personas_path else
                       f"No persona file uploaded, so the generic, domain-neutral personas rate the explanations: "
                       f"{who}. Upload a persona YAML for the roles of your field.")
    else:
        usecase = get_usecase(usecase_name)
        st.markdown(f"**{usecase.title}** — {usecase.description}")
        st.page_link(DETAILS_PAGE, label="Model card, data quality and personas", icon=":material/info:")
        config = config_for(usecase.config_path)
        card = model_card_for(usecase) or {}
        ready = usecase.is_prepared
        if not ready:
            st.warning("This use case's model has not been trained yet: run `make prepare` on the server.",
                       icon=":material/warning:")
        n_test = card.get("n_test", 100)
        n_personas = len(persona_entries(usecase.personas_path, config.personas.include))
except HexevalError as err:
    show_error(err)
    st.stop()

if ready:
    # The primary action sits above the settings (visible without scrolling at 1440x900); it is drawn
    # into this slot after the settings, whose values it needs.
    run_slot = st.container(border=True)
    overrides = render_settings(usecase_name, config, max_sample=max(5, min(int(n_test), 1000)),
                                n_personas=n_personas, rater=rater)
    with run_slot:
        data_wait = render_data_checks(upload) if upload is not None else render_bundled_checks(usecase)
        blocker = rater.problem()
        if blocker:
            st.info(blocker, icon=":material/block:")
        go, note = st.columns([1, 3], vertical_alignment="center")
        note.caption("Runs with the settings below (defaults from the use case's config). Progress is shown per "
                     "stage; the run is saved when it completes.")
        if go.button("Run evaluation", type="primary", icon=":material/play_arrow:",
                     disabled=blocker is not None or data_wait, width="stretch"):
            run_evaluation(usecase, rater, overrides, upload)

render_resumable(usecase_name)
render_saved_runs(usecase_name)
