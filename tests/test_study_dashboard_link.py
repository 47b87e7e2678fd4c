"""The operator's switch to serve a study from the main dashboard: a link opens the study page only."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app_helpers import ROOT, texts
from hexeval_engine.study import create_study
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

INVALID = "This is not a valid study link."


def _dashboard(token: str | None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if token is not None:
        at.query_params["token"] = token
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _everything(at: AppTest) -> str:
    return texts(at) + "\n".join(str(e.value) for kind in (at.title, at.header, at.subheader) for e in kind)


def test_with_the_switch_on_a_wrong_token_sees_only_the_invalid_link_sentence(run_copy, monkeypatch):
    links = create_study(run_copy, cases=1, participants=1)
    monkeypatch.setenv("HEXEVAL_DASHBOARD_STUDY_RUN", str(run_copy))
    at = _dashboard("guessed-token")
    assert [m.value for m in at.markdown] == [INVALID] and _everything(at).strip() == INVALID
    assert not at.sidebar.children and not at.button and not at.selectbox and not at.dataframe
    # the participant's own link: the study's introduction, nothing of the dashboard
    at = _dashboard(links["p1"].split("token=", 1)[1])
    assert [s.label for s in at.selectbox] == ["Your role"] and [b.label for b in at.button] == ["Start"]
    assert not at.sidebar.children and "HEXEval" not in _everything(at)


def test_the_switch_is_off_by_default_and_a_token_changes_nothing(run_copy):
    create_study(run_copy, cases=1, participants=1)
    at = _dashboard("guessed-token")
    assert INVALID not in texts(at) and at.sidebar.children  # the dashboard as always
