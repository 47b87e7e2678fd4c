"""Documentation: how HEXEval works, the metrics, configuration, personas and safety notes."""

import streamlit as st

from hexeval_ui.components import page_header
from hexeval_ui.docs_view import docs_dir, load_docs

page_header("Documentation", f"The project's documentation, rendered from the markdown files in `{docs_dir().name}/`.")

docs = load_docs()
if not docs:
    st.info(f"No documentation files found in `{docs_dir()}`.", icon=":material/info:")
else:
    for tab, doc in zip(st.tabs([d.title for d in docs]), docs):
        with tab:
            st.header(doc.title)
            st.markdown(doc.body)
