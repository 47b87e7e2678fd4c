"""Helpers shared by the AppTest page tests: start the app with state, open a page, read what it shows."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def app(**state) -> AppTest:
    """The dashboard on Configure & Run, with ``state`` put into session state (then rerun).

    The app opens on the Start page; the page tests begin where a user who clicked a use case lands.
    """
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("app_pages/configure_run.py").run()
    for key, value in state.items():
        at.session_state[key] = value
    if state:
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_page(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def texts(at: AppTest) -> str:
    """Every markdown, caption, info, warning, error and success text on the page, joined."""
    parts = [e.value for kind in (at.markdown, at.caption, at.info, at.warning, at.error, at.success) for e in kind]
    return "\n".join(str(p) for p in parts)


def chart_specs(at: AppTest) -> list[dict]:
    """The plotly figures on the page, as their JSON specs."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def chart_titles(at: AppTest) -> list[str]:
    """The charts' main titles (a subtitle after ``<br>`` left out)."""
    return [((s.get("layout") or {}).get("title") or {}).get("text", "").split("<br>")[0] for s in chart_specs(at)]


def frame_with(at: AppTest, column: str):
    """The first data frame or table on the page that has ``column``."""
    return next(d.value for d in [*at.dataframe, *at.table] if column in d.value.columns)
