"""The operator's API key stays home (issue 14, defects 1 and 4).

It goes only to the official OpenAI API or a base URL the operator allow-listed; a URL typed by a
user gets only a key typed with it. Whatever a server sends back (answers, error messages) is
redacted before it is cached, saved or reported — also for keys that do not start with ``sk-``.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from llm_server import Behaviour
from rating_tasks import heart_personas, tasks

from hexeval_engine import evaluate, get_usecase
from hexeval_engine.raters import make_rater
from hexeval_engine.llm.credentials import is_official_endpoint, operator_key_allowed, redact
from hexeval_engine.report.html import write_report
from hexeval_engine.runs.store import load_run

OPERATOR_KEY = "opk_live_7Hq2ZxR4mW9tL3vB8nK1"  # deliberately not shaped like an OpenAI "sk-" key
TINY = {"evaluation": {"sample_size": 3, "bootstrap_resamples": 100, "stability": {"repeats": 1},
                       "explainers": {"shap": {"background_size": 20}, "lime": {"enabled": False},
                                      "anchor": {"enabled": False}, "dice": {"enabled": False}}},
        "personas": {"sample_instances": 1, "rater": "openai", "llm_model": "test-model", "max_retries": 0,
                     "concurrency": 2}}


def tiny(base_url: str) -> dict:
    return {**TINY, "personas": {**TINY["personas"], "base_url": base_url,
                                 "file": str(get_usecase("heart").personas_path)}}


def files_containing(root, secret: str) -> list:
    return [p for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_operator_key_never_reaches_a_url_the_user_typed(tmp_path, llm_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.delenv("HEXEVAL_LLM_BASE_URLS", raising=False)
    out = tmp_path / "runs"
    result = evaluate(usecase="heart", output_dir=out, config_overrides=tiny(llm_server.url))
    sent = {r.headers.get("authorization") for r in llm_server.completion_requests()}
    assert sent == {"Bearer not-needed"}
    assert (result.persona_ratings["status"] == "ok").all()
    write_report(load_run(result.output_path), result.output_path / "report.html")
    assert files_containing(out, OPERATOR_KEY) == []


def test_allowed_endpoint_gets_the_key_and_an_echoing_server_gets_it_saved_nowhere(tmp_path, llm_server,
                                                                                 monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.setenv("HEXEVAL_LLM_BASE_URLS", f"https://llm.example.org/v1, {llm_server.url}/")
    personas = [p.name for p in heart_personas()]
    llm_server.add(Behaviour("echo_key", match=personas[0]))  # a valid rating whose comment holds the key
    llm_server.add(Behaviour("status", status=500, match=personas[1],
                             message="upstream failed for {authorization}"))
    out = tmp_path / "runs"
    result = evaluate(usecase="heart", output_dir=out, config_overrides=tiny(llm_server.url))
    assert {r.headers.get("authorization") for r in llm_server.completion_requests()} == {f"Bearer {OPERATOR_KEY}"}
    ratings = result.persona_ratings
    first, second = (ratings[ratings["persona_name"] == p] for p in personas[:2])
    assert (first["status"] == "ok").all() and first["comment"].str.contains("Your key is Bearer ***", regex=False).all()
    assert (second["status"] == "failed").all() and second["error"].str.contains("***", regex=False).all()
    write_report(load_run(result.output_path), result.output_path / "report.html")
    files = {p.name for p in out.rglob("*") if p.is_file()}
    assert {"llm_cache.sqlite", "persona_ratings.csv", "report.html", "run.json"} <= files
    assert files_containing(out, OPERATOR_KEY) == []
    assert files_containing(out, "7Hq2ZxR4mW9tL3vB8nK1") == []


def test_a_key_typed_with_a_url_goes_there_and_is_redacted_from_answers(llm_server, tmp_path):
    typed = "local-token-55c1e0d9aa"
    llm_server.add(Behaviour("echo_key"))
    with make_rater("openai", model="m", base_url=llm_server.url, api_key=typed,
                    cache_path=tmp_path / "c.sqlite") as rater:
        [rating] = rater.rate_many(tasks(1))
    assert llm_server.completion_requests()[0].headers["authorization"] == f"Bearer {typed}"
    assert rating.ok and typed not in rating.comment
    assert typed.encode() not in (tmp_path / "c.sqlite").read_bytes()


@pytest.mark.parametrize("url, official", [
    (None, True), ("https://api.openai.com/v1", True), ("https://API.OpenAI.com/v1/", True),
    ("http://api.openai.com/v1", False),  # plain http would expose the key on the wire
    ("https://api.openai.com.attacker.example/v1", False), ("https://evilopenai.com/v1", False),
    ("http://localhost:11434/v1", False),
])
def test_only_https_openai_hosts_are_official(url, official):
    assert is_official_endpoint(url) is official


def test_allow_list_matches_whole_base_urls_only():
    allowed = "http://llm.internal:8000/v1, https://gpu.example.org/v1/"
    assert operator_key_allowed("http://llm.internal:8000/v1/", allowed)
    assert operator_key_allowed("https://GPU.example.org/v1", allowed)
    assert not operator_key_allowed("http://llm.internal:8001/v1", allowed)
    assert not operator_key_allowed("http://llm.internal:8000/v1/../x", allowed)
    assert not operator_key_allowed("http://llm.internal:8000/v1", None)


def test_redaction_covers_keys_that_do_not_start_with_sk():
    key = "gsk_A1b2C3d4E5f6G7h8"
    text = f"Invalid key {key}; header was 'Authorization: Bearer {key}', also sk-proj-abcdef123456"
    shown = redact(text, key)
    assert key not in shown and "A1b2C3d4" not in shown and "abcdef123456" not in shown
    assert redact("A bearer of bad news.", None) == "A bearer of bad news."


def test_dashboard_sends_the_operator_key_only_to_allowed_endpoints(monkeypatch):
    from hexeval_ui import rater as ui_rater
    from hexeval_ui import state

    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.setenv("HEXEVAL_LLM_BASE_URLS", "http://llm.internal:8000/v1")
    session = {state.LLM_API_KEY: ""}
    monkeypatch.setattr(ui_rater, "st", SimpleNamespace(session_state=session))
    typed_url = ui_rater.RaterChoice(state.RATER_COMPATIBLE, "m", "http://attacker.example:9000/v1", None)
    allowed_url = ui_rater.RaterChoice(state.RATER_COMPATIBLE, "m", "http://llm.internal:8000/v1", "operator")
    openai_choice = ui_rater.RaterChoice(state.RATER_OPENAI, "gpt-4o-mini", None, "operator")
    assert ui_rater.api_key_for(typed_url) is None
    assert ui_rater.api_key_for(allowed_url) == OPERATOR_KEY
    assert ui_rater.api_key_for(openai_choice) == OPERATOR_KEY
    session[state.LLM_API_KEY] = "typed-in-key-123"
    assert ui_rater.api_key_for(typed_url) == "typed-in-key-123"
