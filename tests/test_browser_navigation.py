"""Getting around in a real browser: a page's URL opened directly on a freshly started server works as if the
start page had run first, and on a narrow screen the sidebar closes once a page is chosen in it.

The first test starts its own server (a server that has answered once is no longer fresh); the second uses
the shared dashboard (conftest ``dashboard``). Screenshots go to ``test-artifacts/navigation/``.
"""

from __future__ import annotations

import pytest

from browser_env import ARTIFACTS, browser_marks, playwright_sync_api, settle
from local_server import streamlit_app

pytestmark = browser_marks()
sync_api = playwright_sync_api()
SHOTS = ARTIFACTS / "navigation"

#: Every page's URL and its heading (``st.Page`` derives the path from the file name; Start is the root).
PAGES = {"recommendations": "Recommendations", "results": "Results", "configure_run": "Configure & Run",
         "usecase_details": "Use Case Details", "compare": "Compare runs", "documentation": "Documentation"}
#: The titles app.py gives the navigation; legacy page discovery would list file names ("configure run").
NAVIGATION = ["Start", "Configure & Run", "Use Case Details", "Results", "Recommendations", "Compare runs",
              "Documentation"]


def _new_page(chromium, width: int, height: int, scheme: str = "light"):
    context = chromium.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(60_000)
    return context, page


def _background_is_dark(page) -> bool:
    colour = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor")
    return sum(int(c) for c in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3]) < 3 * 80


def test_a_pages_url_works_first_on_a_fresh_server(chromium, tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with streamlit_app(tmp_path / "outputs", tmp_path / "server.log") as url:
        for k, (path, title) in enumerate(PAGES.items()):  # the first request of all goes to /recommendations
            scheme = "dark" if k % 2 else "light"
            context, page = _new_page(chromium, 1440, 900, scheme)
            try:
                page.goto(f"{url}/{path}")
                page.get_by_role("heading", name=title, level=1).wait_for()
                settle(page)
                page.screenshot(path=str(SHOTS / f"deep-link-{path}-{scheme}.png"))
                assert page.get_by_test_id("stException").count() == 0
                assert "This app has encountered an error" not in page.get_by_test_id("stMain").inner_text()
                links = page.get_by_test_id("stSidebarNav").get_by_test_id("stSidebarNavLink")
                titles = [t.strip().split("\n")[-1] for t in links.all_inner_texts()]  # after the icon's name
                assert titles == NAVIGATION  # app.py's navigation
                sidebar = page.get_by_test_id("stSidebar")
                sync_api.expect(sidebar.get_by_text("Which explanation should each stakeholder see?")).to_be_visible()
                use_case = sidebar.get_by_role("combobox", name="Use case")  # session defaults from app.py
                sync_api.expect(use_case).to_have_value("Heart Disease (Healthcare)")
                assert _background_is_dark(page) == (scheme == "dark")  # the theme follows the system
                wraps = page.evaluate("() => getComputedStyle(document.querySelector('h1')).overflowWrap")
                assert wraps == "normal"  # app.py's page style is on the page
            finally:
                context.close()


@pytest.mark.parametrize("width", [390, 700])
def test_the_sidebar_closes_after_choosing_a_page_on_a_narrow_screen(chromium, dashboard, width):
    url, _ = dashboard
    context, page = _new_page(chromium, width, 844)  # a desktop browser's user agent, not a phone's
    try:
        page.goto(url)
        page.get_by_role("heading", name="HEXEval", level=1).wait_for()
        sidebar = page.get_by_test_id("stSidebar")
        sync_api.expect(sidebar).to_have_attribute("data-collapsed", "true")
        # the closing listener is installed when the sidebar's last element is drawn: on a loaded machine the page's
        # heading can be there seconds before it (a click before then is a plain Streamlit click)
        page.wait_for_function("() => window.hexevalClosesSidebar === true")
        for title in ("Documentation", "Compare runs"):
            page.get_by_test_id("stExpandSidebarButton").click()
            sync_api.expect(sidebar).to_have_attribute("data-collapsed", "false")
            page.wait_for_timeout(500)  # the sidebar slides in
            page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
            page.get_by_role("heading", name=title, level=1).wait_for()
            sync_api.expect(sidebar).to_have_attribute("data-collapsed", "true", timeout=15_000)  # a loaded CI machine redraws slowly
            settle(page)
            in_front = page.evaluate("""() => { const h = document.querySelector('[data-testid="stMain"] h1');
                const r = h.getBoundingClientRect();
                return h.contains(document.elementFromPoint(r.left + 20, r.top + r.height / 2)); }""")
            assert in_front, f"the sidebar still covers the {title} page"
        page.screenshot(path=str(SHOTS / f"sidebar-closed-after-navigation-{width}.png"))
    finally:
        context.close()


def test_the_sidebar_stays_beside_the_page_on_a_wide_screen(chromium, dashboard):
    url, _ = dashboard
    context, page = _new_page(chromium, 1440, 900)
    try:
        page.goto(url)
        page.get_by_role("heading", name="HEXEval", level=1).wait_for()
        page.get_by_test_id("stSidebarNav").get_by_text("Documentation", exact=True).click()
        page.get_by_role("heading", name="Documentation", level=1).wait_for()
        settle(page)
        sync_api.expect(page.get_by_test_id("stSidebar")).to_have_attribute("data-collapsed", "false")
        sync_api.expect(page.get_by_test_id("stSidebarNav")).to_be_visible()
    finally:
        context.close()
