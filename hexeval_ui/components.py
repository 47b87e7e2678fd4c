"""Small rendering helpers shared by the pages: headers, empty states, errors."""

from __future__ import annotations

import json

import streamlit as st

# Page files, registered in app.py; st.page_link and st.switch_page take these paths.
HOME_PAGE = "app_pages/home.py"
CONFIGURE_PAGE = "app_pages/configure_run.py"
DETAILS_PAGE = "app_pages/usecase_details.py"
RESULTS_PAGE = "app_pages/results.py"
RECOMMENDATIONS_PAGE = "app_pages/recommendations.py"
DOCS_PAGE = "app_pages/documentation.py"
COMPARE_PAGE = "app_pages/compare.py"


#: Layout fixes Streamlit's theme leaves open: titles wrap between words, never inside one ("Recommendation / s"),
#: and Plotly's toolbar sits below a chart's title instead of over it; on a phone the tab bar wraps instead of hiding
#: its last tab behind a scroll arrow ("Dow›"), the chosen tab underlined, and a static table's cells take less padding
#: and a smaller font, so a table of five or six columns fits the screen instead of scrolling sideways.
_STYLE = """<style>
h1, h2, h3 { overflow-wrap: normal; word-break: normal; hyphens: none; }
@media (max-width: 640px) { h1 { font-size: 1.9rem !important; } }
.js-plotly-plot .modebar-container { top: auto !important; bottom: 0 !important; }
@media (max-width: 640px) {
  [data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; overflow-x: visible; row-gap: 0.25rem; }
  [data-testid="stTable"] th, [data-testid="stTable"] td { padding: 0.3rem 0.2rem !important; font-size: 0.75rem; }
}
</style>"""


#: Width (px) up to which Streamlit's sidebar lies over the page instead of beside it (its ``md`` breakpoint).
OVERLAY_SIDEBAR_MAX_WIDTH = 768

#: Close the sidebar after a page is chosen in it when it lies over the page. Streamlit 1.67 does so only for a
#: phone's user agent (``deviceType == "mobile"``); a narrow desktop window or a tablet kept it open over the new
#: page. One listener per browser tab; a constant script (no user input reaches it).
_CLOSE_SIDEBAR_AFTER_NAVIGATION = """<script>
(function () {
  if (window.hexevalClosesSidebar) { return; }
  window.hexevalClosesSidebar = true;
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest('[data-testid="stSidebarNavLink"]') : null;
    if (!link || window.innerWidth > %d) { return; }
    var sidebar = document.querySelector('[data-testid="stSidebar"]');
    if (!sidebar || sidebar.getAttribute("data-collapsed") === "true") { return; }
    var close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (close) { close.click(); }
  });
})();
</script>""" % OVERLAY_SIDEBAR_MAX_WIDTH


#: Open every page at its top. Streamlit keeps the scroll position across a page switch whenever the old page's
#: elements are still drawn while the new one starts (a race): after "Load" at the foot of Configure & Run on a phone,
#: Results and then Recommendations opened ~1,900 px down, their answer out of view. The script's text names the
#: page, so Streamlit runs it again only when another page runs (a rerun of the same page keeps the reader's place).
_TOP_OF_A_NEW_PAGE = """<script>
(function () {
  var page = %s;
  if (window.hexevalPage === page) { return; }
  var first = window.hexevalPage === undefined;
  window.hexevalPage = page;
  if (first) { return; }
  var top = function () {
    var node = document.querySelector('[data-testid="stMainBlockContainer"]');
    for (; node; node = node.parentElement) { if (node.scrollTop) { node.scrollTop = 0; } }
    window.scrollTo(0, 0);
  };
  top();
  setTimeout(top, 100);
})();
</script>"""


def page_style(page: str = "") -> None:
    """The few CSS rules every page needs (see ``_STYLE``), the sidebar closing after navigation on a
    narrow screen (see ``_CLOSE_SIDEBAR_AFTER_NAVIGATION``) and ``page`` (the page that runs: its URL path) opened
    at its top (see ``_TOP_OF_A_NEW_PAGE``)."""
    st.html(_STYLE)
    # at the end of the sidebar: a script is drawn as an (empty) element, which would push the page down by a gap
    st.sidebar.html(_CLOSE_SIDEBAR_AFTER_NAVIGATION + _TOP_OF_A_NEW_PAGE % json.dumps(page or "home"),
                    unsafe_allow_javascript=True)


def page_header(title: str, caption: str) -> None:
    st.title(title)
    st.caption(caption)


def section(title: str, caption: str) -> None:
    st.subheader(title)
    st.caption(caption)


def empty_state(message: str, *, page: str = CONFIGURE_PAGE, label: str = "Go to Configure & Run",
                icon: str = ":material/play_circle:") -> None:
    """Say what is missing and link to the page that provides it."""
    with st.container(border=True):
        st.info(message, icon=":material/info:")
        st.page_link(page, label=label, icon=icon)


def show_error(err: Exception) -> None:
    """An error the user can fix, shown with the engine's message and no traceback."""
    st.error(str(err), icon=":material/error:")


def bullet_list(items) -> str:
    return "\n".join(f"- {item}" for item in items)
