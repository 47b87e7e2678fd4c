"""HEXEval dashboard entry point: page config, session state, sidebar, and the page router.

Run with ``streamlit run app.py``. Every page is registered explicitly below; the sidebar
widgets are created here so their values survive page switches.
"""

from pathlib import Path

import streamlit as st

from hexeval_engine import HexevalError, list_usecases
from hexeval_ui import components as c
from hexeval_ui.engine import warm_helper
from hexeval_ui.settings import load_operator_env
from hexeval_ui.sidebar import render_sidebar
from hexeval_ui.state import DEFAULT_USECASE, init_state
from hexeval_ui.study_gate import serve_study_link

# A local favicon: a Material icon here makes the browser fetch it from a font CDN on every page.
st.set_page_config(page_title="HEXEval", page_icon=str(Path(__file__).parent / "assets" / "favicon.png"), layout="wide")
load_operator_env()
if serve_study_link():  # a participant's link, when the operator serves a study here: the study page only
    st.stop()
init_state()
warm_helper()  # the explainers' helper process starts now, in the background, so the first run finds it warm

pages = st.navigation({
    "Evaluate": [
        st.Page(c.HOME_PAGE, title="Start", icon=":material/home:", default=True),
        st.Page(c.CONFIGURE_PAGE, title="Configure & Run", icon=":material/tune:"),
        st.Page(c.DETAILS_PAGE, title="Use Case Details", icon=":material/info:"),
    ],
    "Findings": [
        st.Page(c.RESULTS_PAGE, title="Results", icon=":material/monitoring:"),
        st.Page(c.RECOMMENDATIONS_PAGE, title="Recommendations", icon=":material/recommend:"),
        st.Page(c.COMPARE_PAGE, title="Compare runs", icon=":material/compare_arrows:"),
    ],
    "Help": [st.Page(c.DOCS_PAGE, title="Documentation", icon=":material/menu_book:")],
})

with st.sidebar:
    st.markdown("### HEXEval")
    st.caption("Which explanation should each stakeholder see?")
try:
    usecases = sorted(list_usecases(), key=lambda u: u.name != DEFAULT_USECASE)
except HexevalError as err:
    c.show_error(err)
    usecases = []
render_sidebar(usecases)
c.page_style(pages.url_path)
pages.run()
