"""Readable at a glance, on any screen, offline: a real browser at 1440x900 and 390x844, light and dark.

For each of the four combinations the test opens a real credit-risk run (made by the engine at test
start) on Results (technical metrics, persona ratings, case explorer), Recommendations and the HTML
report, saves a screenshot of each under ``test-artifacts/readable/`` and asserts:

* no request leaves the machine (every request the browser makes is recorded);
* no console error and no uncaught page error;
* the server logs no warning (404s, "missing ScriptRunContext" …) while the pages are used;
* the plain-language sections (explanation texts, recommendation cards, page text) contain no raw
  upper-case category code of the data and no column name with an underscore;
* at 1440x900 the "Run evaluation" button is visible without scrolling.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from browser_env import ARTIFACTS, browser_marks, choose_saved_run, click_load, playwright_sync_api
from browser_env import settle as _settle

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ARTIFACTS / "readable"
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
VIEWS = [(1440, 900, "light"), (1440, 900, "dark"), (390, 844, "light"), (390, 844, "dark")]

pytestmark = browser_marks()
sync_api = playwright_sync_api()


def raw_codes() -> re.Pattern:
    """Upper-case category codes of the credit data and its column names with an underscore."""
    data = pd.read_csv(ROOT / "usecases" / "credit_risk" / "data.csv", nrows=5000)
    codes = {str(v) for c in data.columns if not pd.api.types.is_numeric_dtype(data[c])
             for v in data[c].dropna().unique() if str(v).isupper() and len(str(v)) > 1}
    columns = {c for c in data.columns if "_" in c}
    return re.compile(r"\b(" + "|".join(sorted(map(re.escape, codes | columns))) + r")\b")


@pytest.fixture(scope="module")
def server(dashboard):
    """The shared dashboard (conftest ``dashboard``): its runs root holds a real 5-case credit-risk run
    (simulated personas) besides a heart run; (url, server log)."""
    return dashboard


@pytest.fixture(scope="module")
def browser(chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    return chromium


def _shot(page, name: str) -> None:
    _settle(page)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)
    main = page.get_by_test_id("stMain")
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height), 9000))})
    _settle(page)
    main.screenshot(path=str(SHOTS / f"{name}-full.png"))
    page.set_viewport_size(size)


def _open_sidebar(page) -> None:
    # right after a page load neither may be drawn yet: wait for the open navigation or the button that opens it
    page.locator("[data-testid='stSidebarNav']:visible, [data-testid='stExpandSidebarButton']:visible").first.wait_for()
    if not page.get_by_test_id("stSidebarNav").is_visible():  # phone: the sidebar is collapsed behind its button
        page.get_by_test_id("stExpandSidebarButton").click()
        page.get_by_test_id("stSidebarNav").wait_for()


def _close_sidebar_on_phone(page) -> None:
    if page.viewport_size["width"] < 600 and page.get_by_test_id("stSidebarCollapseButton").is_visible():
        page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
    _settle(page)


def _goto(page, title: str) -> None:
    _open_sidebar(page)
    page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
    page.get_by_role("heading", name=title, level=1).wait_for()
    _close_sidebar_on_phone(page)


def _pick_credit_risk(page) -> None:
    _open_sidebar(page)
    page.wait_for_timeout(500)  # the phone sidebar slides in; a click during the animation can miss
    option = page.get_by_role("option", name="Credit Risk (Finance)")
    for _ in range(3):
        page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first.click()
        if option.is_visible() or (page.wait_for_timeout(1000) or option.is_visible()):
            break
    option.click()
    page.get_by_text("Predict whether a consumer loan will default").first.wait_for()
    _close_sidebar_on_phone(page)


def _plain_text(page, *, without_comments: bool = False) -> str:
    """Visible text of the main area without code blocks (the technical forms) and tables of raw data;
    optionally without the persona comments (quoted paragraphs, “…”)."""
    # innerText of the live page (hidden tab panels and collapsed expanders contribute nothing), minus
    # the code blocks of the technical forms and the (canvas) data tables.
    text = page.evaluate("""() => {
        const main = document.querySelector('[data-testid="stMain"]');
        let text = main.innerText;
        main.querySelectorAll('pre, [data-testid="stCode"], [data-testid="stDataFrame"]')
            .forEach(e => { const t = e.innerText; if (t) text = text.split(t).join(''); });
        return text; }""")
    return re.sub(r"“[^”]*”", "", text) if without_comments else text


#: Persona comments seen per view, checked by the test below.
COMMENTS: dict[str, dict[str, str]] = {}


@pytest.mark.parametrize("width, height, scheme", VIEWS, ids=[f"{w}x{h}-{s}" for w, h, s in VIEWS])
def test_pages_read_well_offline(browser, server, width, height, scheme):
    url, log = server
    logged_before = log.read_text(errors="replace")
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme,
                                  accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    requests, console_errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: console_errors.append(str(e)))
    name = f"{width}x{height}-{scheme}"
    codes = raw_codes()
    texts = {}
    COMMENTS[name] = comments = {}

    page.goto(url)  # the app opens on Start
    _goto(page, "Configure & Run")
    page.get_by_role("heading", name="Configure & Run", level=1).wait_for()
    # the theme follows the system setting: a dark page for a dark system, a light one otherwise
    background = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor")
    channels = [int(c) for c in re.findall(r"\d+", background)[:3]]
    assert (sum(channels) < 3 * 80) == (scheme == "dark"), background
    _pick_credit_risk(page)
    _shot(page, f"{name}-0-configure")
    if width >= 1440:  # the primary action is in view without scrolling
        box = page.get_by_role("button", name="Run evaluation").bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, box
    choose_saved_run(page)
    click_load(page)
    page.get_by_role("heading", name="Results", level=1).wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _shot(page, f"{name}-1-results-technical")
    page.get_by_role("tab", name="Persona ratings").click()
    page.get_by_text("What each persona said").wait_for()
    page.locator("[data-testid='stExpander']:visible summary").first.click()
    _shot(page, f"{name}-2-results-ratings")
    comments["ratings"] = _plain_text(page)
    page.get_by_role("tab", name="Case explorer").click()
    page.get_by_text(re.compile(r"^As .* read it$")).first.wait_for()
    _shot(page, f"{name}-3-case-explorer")
    texts["cases"] = _plain_text(page, without_comments=True)
    comments["cases"] = _plain_text(page)
    page.get_by_role("tab", name="Downloads").click()
    with page.expect_download() as download:
        page.get_by_role("button", name="HTML report").click()
    report = SHOTS / f"{name}-report.html"
    download.value.save_as(report)
    _goto(page, "Recommendations")
    page.get_by_text("Who should see what").first.wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _shot(page, f"{name}-4-recommendations")
    texts["recommendations"] = _plain_text(page)

    html = report.read_text(encoding="utf-8")
    assert "/tmp/" not in html and str(ROOT) not in html  # no server path in a file that is passed around
    report_page = context.new_page()
    report_page.on("request", lambda r: requests.append(r.url))
    report_page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    report_page.goto(report.as_uri())
    report_page.locator(".js-plotly-plot").first.wait_for(state="attached")  # charts are folded
    report_page.wait_for_timeout(500)
    report_page.screenshot(path=str(SHOTS / f"{name}-5-report.png"), full_page=False)
    verdicts = report_page.locator("#verdicts").inner_text()
    context.close()

    external = [u for u in requests if not u.startswith(LOCAL) and not u.startswith("file:")]
    assert not external, external
    assert not console_errors, console_errors
    logged = log.read_text(errors="replace")[len(logged_before):]
    warnings = [line for line in logged.splitlines() if re.search(r"WARNING|ERROR|404|ScriptRunContext", line)]
    assert not warnings, warnings
    for where, text in {**texts, "report verdicts": verdicts}.items():
        leaks = [text[max(0, m.start() - 80):m.end() + 40] for m in codes.finditer(text)]
        assert not leaks, f"{where} shows raw codes or column names: {leaks}"


def test_persona_comments_contain_no_raw_codes():
    assert COMMENTS, "run test_pages_read_well_offline first (same module)"
    codes = raw_codes()
    leaks = {f"{view} {where}": sorted(set(codes.findall(text))) for view, seen in COMMENTS.items()
             for where, text in seen.items()}
    assert not any(leaks.values()), leaks
