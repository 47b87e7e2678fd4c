"""The Start page says what HEXEval answers and how, and opens each bundled use case in one click."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def _start() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_start_page_states_the_question_and_the_method_in_two_sentences():
    at = _start()
    text = "\n".join(m.value for m in at.markdown)
    assert "which explanation" in text.lower() and "should each stakeholder see" in text
    assert "measures how well each explanation answers the questions" in text
    assert "gets the method that answers **their** questions best" in text
    assert "target 1 means" not in text, "data caveats belong on Use Case Details, not on the first screen"


def test_one_click_opens_the_credit_risk_use_case_on_configure_and_run():
    at = _start()
    next(b for b in at.button if b.key == "open_credit_risk").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["usecase"] == "credit_risk"
    assert any(b.label == "Run evaluation" for b in at.button), "one click lands where the run starts"
    assert any("Credit Risk" in m.value for m in at.markdown)


def test_each_use_case_card_counts_the_stakeholders_in_its_persona_file():
    import yaml

    at = _start()
    captions = "\n".join(c.value for c in at.caption)
    for name, question in (("heart", "cardiac work-up"), ("credit_risk", "loan be approved")):
        n = len(yaml.safe_load((ROOT / "configs" / name / "personas.yaml").read_text())["personas"])
        assert any(question in line and f"{n} stakeholders" in line for line in captions.splitlines()), captions
