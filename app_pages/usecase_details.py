"""Use Case Details: what is being predicted, by which model, on which data, for which stakeholders."""

import streamlit as st
import yaml

from hexeval_engine import HexevalError, get_usecase
from hexeval_ui import state
from hexeval_ui.components import empty_state, page_header, section, show_error
from hexeval_ui.engine import config_for, dataset_for, model_card_for, persona_entries
from hexeval_ui.quality_view import render_quality
from hexeval_ui.upload_view import render_custom_run_card, render_upload_summary
from hexeval_ui.usecase_view import render_domain, render_model_card, render_persona

page_header("Use Case Details",
            "The context every evaluation runs in: the decision, the model, the data and the stakeholders who "
            "will read the explanations.")

if state.is_custom():
    check = st.session_state[state.UPLOAD]
    if check is not None and check.ok:
        render_upload_summary(check)
    elif not render_custom_run_card():
        empty_state("No validated custom upload yet — upload a model and a CSV on Configure & Run.",
                    label="Upload on Configure & Run", icon=":material/upload:")
    st.stop()

try:
    usecase = get_usecase(state.current_usecase())
    config = config_for(usecase.config_path)
except HexevalError as err:
    show_error(err)
    st.stop()

st.header(usecase.title, divider="gray")
st.markdown(usecase.description)

domain_tab, model_tab, data_tab, persona_tab, config_tab = st.tabs(
    ["Domain", "Model card", "Data quality", "Personas", "Configuration"])

with domain_tab:
    section("Domain context", "Injected into every persona prompt, so ratings are given in the stakeholder's own terms.")
    render_domain(config.domain, usecase)

with model_tab:
    section("Model card", "Written by the use case's training script on held-out test rows.")
    card = model_card_for(usecase)
    if card is None:
        st.info(f"This use case's model has not been trained yet. Run `make prepare` (or "
                f"`python {usecase.train_script.relative_to(usecase.folder.parent.parent)}`).", icon=":material/info:")
    else:
        render_model_card(card, config.domain)

with data_tab:
    section("Data-quality report", "What a careful analyst checks before trusting an evaluation on this data.")
    try:
        data = dataset_for(usecase)
    except HexevalError as err:
        show_error(err)
    else:
        render_quality(data.quality, class_labels=data.class_labels, target=data.target)

with persona_tab:
    section("Stakeholder personas", "Who rates the explanations, and what each of them cares about.")
    try:
        personas = persona_entries(usecase.personas_path)
    except HexevalError as err:
        show_error(err)
    else:
        if not personas:
            st.info(f"No personas are defined in `{usecase.personas_path.name}` for this use case yet; "
                    "persona ratings will be skipped until they are.", icon=":material/group_off:")
        for persona in personas:
            render_persona(persona)

with config_tab:
    section("Evaluation configuration", "The full resolved config (defaults filled in). See Documentation → "
            "Configuration for what each key means.")
    st.code(yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False, allow_unicode=True), language="yaml")
