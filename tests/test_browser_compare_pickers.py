"""On a phone (390 px) the compare page's run pickers show a chosen run's whole label: nothing is cut off.

A Streamlit 1.67 picker shows its value in a one-line ``<input>`` that cannot wrap, so the label inside must
fit; the run's full label (rater, cases, id) is printed under the picker.
"""

from __future__ import annotations

from contextlib import contextmanager

from browser_env import ARTIFACTS, browser_marks, choose_option, playwright_sync_api
from browser_env import settle as _settle

pytestmark = browser_marks()
sync_api = playwright_sync_api()

#: For a run picker: its value, the width that value's text needs in the input's own font, and the room it has.
_FIT = """(name) => {
  const input = document.querySelector(`input[role="combobox"][aria-label="${name}"]`);
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return {value: input.value, needs: context.measureText(input.value).width, room: room,
          right: input.getBoundingClientRect().right, window: window.innerWidth};
}"""


#: Elements of the page that scroll sideways (a data grid wider than the screen): tag, test id, widths.
_SIDEWAYS = """() => [...document.querySelectorAll('[data-testid="stMain"] *')]
  .filter(e => e.scrollWidth > e.clientWidth + 2 && !['visible', 'hidden', 'clip'].includes(getComputedStyle(e).overflowX))
  .map(e => [e.tagName, e.scrollWidth, e.clientWidth, e.innerText.slice(0, 60)])"""


@contextmanager
def _page_at(chromium, url: str, width: int, height: int, path: str, heading: str):
    """A page of the dashboard at ``path`` in a window of that size, once its heading is drawn; closed after."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(f"{url}/{path}")
        page.get_by_role("heading", name=heading, level=1).wait_for()
        _settle(page)
        yield page
    finally:
        context.close()


def test_compare_pickers_show_the_whole_run_label_at_390(chromium, dashboard):
    url, _log = dashboard
    with _page_at(chromium, url, 390, 844, "compare", "Compare runs") as page:
        for name in ("Run A", "Run B"):
            choose_option(page, page.get_by_role("combobox", name=name, exact=True))
        page.screenshot(path=str(ARTIFACTS / "compare-pickers-390.png"))
        for name in ("Run A", "Run B"):
            fit = page.evaluate(_FIT, name)
            assert fit["value"] and "·" in fit["value"], fit  # a run is chosen and shown by its label
            assert fit["needs"] <= fit["room"], fit  # the whole label fits: nothing after the time is cut off
            assert fit["right"] <= fit["window"], fit
        main = page.get_by_test_id("stMain").inner_text()
        assert "simulated" in main and "cases" in main, main[:800]  # the full labels, under the pickers
        page.get_by_role("button", name="Compare", exact=True).click()
        page.get_by_text("Mean persona ratings").wait_for()
        _settle(page)
        for k, name in ((0, "metrics"), (-1, "ratings")):
            page.get_by_test_id("stTable").nth(k).evaluate("e => e.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(300)
            page.screenshot(path=str(ARTIFACTS / f"compare-{name}-390.png"))  # the top of the table, as a phone shows it
        assert page.evaluate(_SIDEWAYS) == [], "the comparison's tables scroll sideways on a phone"


def test_the_sidebar_run_picker_shows_the_whole_run_label_at_1440(chromium, dashboard):
    """The earlier walk: at 1440 px the sidebar's "Run being viewed" showed a saved run's label cut off."""
    url, _log = dashboard
    with _page_at(chromium, url, 1440, 900, "results", "Results") as page:
        picker = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Run being viewed")
        choose_option(page, picker, 1)  # the first saved run (the first entry is this session's run)
        page.screenshot(path=str(ARTIFACTS / "sidebar-run-picker-1440.png"))
        fit = page.evaluate(_FIT, "Run being viewed")
        assert fit["value"] and "·" in fit["value"], fit
        assert fit["needs"] <= fit["room"], fit
