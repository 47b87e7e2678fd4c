"""Issue 36 items 11-12 in a real browser: on a phone every Results tab is in view (no "Dow›"), the fidelity
chart's subtitle stays clear of the panel title under it, and a deep link to /results in a fresh session
offers the saved runs instead of "No results yet"."""

from __future__ import annotations

from browser_env import ARTIFACTS, browser_marks, playwright_sync_api
from browser_env import settle as _settle

pytestmark = browser_marks()
sync_api = playwright_sync_api()

#: The fidelity chart: bottom of its title block (the last subtitle line) and top of the first panel title.
_TITLE_GAP = """() => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')].find(p => p.textContent.includes('deletion vs insertion'));
  const title = plot.querySelector('.gtitle').getBoundingClientRect();
  const panel = [...plot.querySelectorAll('.annotation-text')].find(a => a.textContent.includes('Prediction left'));
  return {titleBottom: title.bottom, panelTop: panel.getBoundingClientRect().top};
}"""


def test_a_fresh_session_on_a_phone_is_offered_the_run_and_sees_every_tab(chromium, dashboard):
    url, _log = dashboard
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{url}/results")
        page.get_by_text("saved run", exact=False).first.wait_for()
        assert page.get_by_text("No results yet").count() == 0
        page.get_by_role("button", name="Open the newest saved run").click()
        page.get_by_role("tab").first.wait_for()
        _settle(page)
        tabs = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stTabs] [role=tab]')].map(t => {
            const r = t.getBoundingClientRect(); return {text: t.innerText, left: r.left, right: r.right}; })""")
        assert any("Downloads" in t["text"] for t in tabs), tabs
        for tab in tabs:  # every tab wholly inside the window: none hidden behind a scroll arrow
            assert 0 <= tab["left"] and tab["right"] <= 390, tabs
        chart = page.locator(".js-plotly-plot", has_text="deletion vs insertion").first
        chart.wait_for()
        _settle(page)
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(800)
        page.screenshot(path=str(ARTIFACTS / "pages-layout-fidelity-390.png"))
        gap = page.evaluate(_TITLE_GAP)
        assert gap["titleBottom"] + 4 <= gap["panelTop"], gap
    finally:
        context.close()
