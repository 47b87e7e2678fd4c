"""Documentation: how HEXEval works, the metrics, configuration, personas and safety notes."""

import streamlit as st

from hexeval_ui.components import page_header
from hexeval_ui.docs_view import load_docs

page_header("Documentation", "How HEXEval works, what it measures, how it recommends, and how to configure and extend it.")

docs = load_docs()
if not docs:
    st.info("The documentation is not installed on this server.", icon=":material/info:")
else:
    for tab, doc in zip(st.tabs([d.tab for d in docs]), docs):
        with tab:
            st.header(doc.title)
            st.markdown(doc.body)
