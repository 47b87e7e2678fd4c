"""The LLM rater driven through the real openai client against a real local HTTP server.

How long retries, timeouts and concurrent calls take is measured by benchmarks/llm_rater.py, not
asserted here (timing assertions fail on a loaded machine and pass on a broken one).
"""

from __future__ import annotations

import pytest
from llm_server import Behaviour, FakeLLMServer, deterministic_rating
from rating_tasks import tasks

from hexeval_engine.errors import LLMError
from hexeval_engine.raters import DIMENSIONS, make_rater

KEY = "sk-test-SENTINEL-7f3a9c2e1b"


def rater_for(server, **options):
    defaults = dict(model="test-model", base_url=server.url, api_key=KEY, concurrency=4, timeout=2.0,
                    max_retries=2)
    return make_rater("openai", **{**defaults, **options})


def test_normal_run_parses_structured_answers_in_task_order(llm_server):
    work = tasks(8)
    with rater_for(llm_server) as rater:
        ratings = rater.rate_many(work)
    assert [r.status for r in ratings] == ["ok"] * 8
    requests = llm_server.completion_requests()
    assert len(requests) == 8
    by_text = {r.text: r for r in requests}
    for task, rating in zip(work, ratings):
        sent = next(r for text, r in by_text.items() if task.persona.name in text and task.explanation.text in text)
        expected = deterministic_rating(sent.text)
        assert rating.scores == {d: expected[d] for d in DIMENSIONS}
        assert rating.comment == expected["comment"]
        assert rating.calls == 1 and rating.retries == 0 and not rating.cached
        assert rating.prompt_tokens > 0 and rating.completion_tokens > 0
    fmt = requests[0].body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert set(fmt["json_schema"]["schema"]["required"]) == {*DIMENSIONS, "comment"}
    assert requests[0].body["model"] == "test-model"


def test_rate_limit_twice_then_success_is_retried_and_counted(llm_server):
    llm_server.add(Behaviour("status", status=429, times=2, headers={"retry-after-ms": "250"}))
    with rater_for(llm_server) as rater:
        [rating] = rater.rate_many(tasks(1))
    assert rating.ok
    assert rating.calls == 3 and rating.retries == 2
    requests = llm_server.completion_requests()
    assert len(requests) == 3
    # the retries waited (at least most of) the 250 ms the server asked for, not zero
    assert all(b.time - a.time >= 0.2 for a, b in zip(requests, requests[1:]))


def test_server_error_that_never_recovers_fails_only_that_rating(llm_server):
    work = tasks(4)
    victim = work[2].persona.name
    llm_server.add(Behaviour("status", status=500, match=victim, headers={"retry-after-ms": "10"}))
    with rater_for(llm_server) as rater:
        ratings = rater.rate_many(work)
    failed = [r for t, r in zip(work, ratings) if t.persona.name == victim]
    others = [r for t, r in zip(work, ratings) if t.persona.name != victim]
    assert len(failed) == 1 and all(r.ok for r in others)
    bad = failed[0]
    assert bad.status == "failed" and bad.scores is None and bad.comment == ""
    assert "HTTP 500" in bad.error and "3 attempts" in bad.error
    assert bad.calls == 3 and bad.retries == 2


@pytest.mark.parametrize("action, fragment", [("malformed", "no JSON object"), ("out_of_range", "'trust' = 7"),
                                              ("missing_field", "'trust' is missing")])
def test_unusable_answers_fail_and_are_not_defaulted_or_cached(llm_server, tmp_path, action, fragment):
    llm_server.add(Behaviour(action, times=1))
    work = tasks(1)
    with rater_for(llm_server, cache_path=tmp_path / "cache.sqlite") as rater:
        [first] = rater.rate_many(work)
        [second] = rater.rate_many(work)
    assert first.status == "failed" and first.scores is None
    assert fragment in first.error
    assert second.ok and not second.cached  # the failure was not cached: asked again, answered properly
    assert len(llm_server.completion_requests()) == 2


def test_slow_server_times_out_as_a_failed_rating(llm_server):
    llm_server.add(Behaviour("slow", delay=1.5))
    with rater_for(llm_server, timeout=0.3, max_retries=0) as rater:
        [rating] = rater.rate_many(tasks(1))
    assert rating.status == "failed" and rating.scores is None
    assert "within 0.3 s" in rating.error and rating.calls == 1


def test_timeout_is_retried_and_counted(llm_server):
    llm_server.add(Behaviour("slow", delay=1.0, times=1))
    with rater_for(llm_server, timeout=0.3, max_retries=1) as rater:
        [rating] = rater.rate_many(tasks(1))
    assert rating.ok and rating.retries == 1 and rating.calls == 2


def test_cache_answers_a_rerun_without_any_request(llm_server, tmp_path):
    cache = tmp_path / "outputs"
    work = tasks(6, runs=2)
    with rater_for(llm_server, cache_path=cache) as rater:
        estimate_before = rater.estimate(work)
        first = rater.rate_many(work)
    assert estimate_before.calls == 12 and estimate_before.cached == 0 and estimate_before.prompt_tokens > 0
    assert len(llm_server.completion_requests()) == 12  # repeated runs are separate requests
    llm_server.reset()
    with rater_for(llm_server, cache_path=cache) as rater:
        assert rater.estimate(work).calls == 0 and rater.estimate(work).cached == 12
        second = rater.rate_many(work)
    assert llm_server.completion_requests() == []
    assert all(r.cached and r.calls == 0 for r in second)
    assert [r.scores for r in second] == [r.scores for r in first]
    assert (cache / "llm_cache.sqlite").exists()


@pytest.mark.parametrize("change", [{"model": "other-model"}, {"temperature": 0.9}, {"base_url": "other"}])
def test_cache_is_never_shared_across_models_temperatures_or_endpoints(tmp_path, change):
    """Switching model, temperature or server must ask again, never reuse another setting's ratings."""
    from llm_server import FakeLLMServer

    cache = tmp_path / "outputs"
    work = tasks(2)
    with FakeLLMServer() as first, FakeLLMServer() as second:
        with rater_for(first, cache_path=cache) as rater:
            assert all(r.ok for r in rater.rate_many(work))
        with rater_for(first, cache_path=cache) as rater:
            assert rater.estimate(work).cached == 2  # same settings: answered from the cache
        options = {**change, "base_url": second.url} if "base_url" in change else change
        with rater_for(second if "base_url" in change else first, cache_path=cache, **options) as rater:
            assert rater.estimate(work).cached == 0
            again = rater.rate_many(work)
        assert all(r.ok and not r.cached for r in again)


def test_server_without_response_format_falls_back_to_prompted_json():
    with FakeLLMServer(reject_response_format=True) as server, rater_for(server) as rater:
        ratings = rater.rate_many(tasks(3))
        assert all(r.ok for r in ratings)
        assert rater.structured_output is False
        bodies = [r.body for r in server.completion_requests()]
    assert "response_format" in bodies[0]
    assert sum("response_format" not in b for b in bodies) == 3


def test_concurrency_is_bounded_and_parallel():
    with FakeLLMServer(latency=0.2) as server, rater_for(server, concurrency=4) as rater:
        ratings = rater.rate_many(tasks(8))
        assert server.max_in_flight == 4  # four at once, never more
    assert all(r.ok for r in ratings)


def test_api_key_reaches_the_server_but_never_a_result(llm_server):
    llm_server.add(Behaviour("status", status=401, message="Incorrect API key provided: {authorization}"))
    with rater_for(llm_server, concurrency=1) as rater:
        ratings = rater.rate_many(tasks(3))
        shown = repr(rater)
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert len(llm_server.completion_requests()) == 1  # a rejected key stops further requests
    assert all(r.status == "failed" for r in ratings)
    assert "HTTP 401" in ratings[0].error and "check the API key" in ratings[0].error
    assert "earlier request failed" in ratings[1].error
    text = " ".join(r.error + r.comment for r in ratings) + shown
    assert KEY not in text and "SENTINEL" not in text


def test_missing_key_for_openai_is_a_clear_llm_error(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HEXEVAL_HOME", str(tmp_path))
    with pytest.raises(LLMError, match="OPENAI_API_KEY"):
        make_rater("openai", model="gpt-4o-mini")


def test_local_server_needs_no_key_and_dotenv_key_goes_only_to_allowed_urls(monkeypatch, tmp_path, llm_server):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("HEXEVAL_LLM_BASE_URLS", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HEXEVAL_HOME", str(tmp_path))
    with make_rater("openai", model="m", base_url=llm_server.url) as rater:
        assert rater.rate(tasks(1)[0]).ok
    assert llm_server.requests[-1].headers["authorization"] == "Bearer not-needed"
    # The operator's .env key is not sent to a base URL the operator did not allow (issue 14) ...
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-from-dotenv-1234567\n")
    with make_rater("openai", model="m", base_url=llm_server.url) as rater:
        assert rater.rate(tasks(1)[0]).ok
    assert llm_server.requests[-1].headers["authorization"] == "Bearer not-needed"
    # ... and is once .env lists that URL in HEXEVAL_LLM_BASE_URLS.
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY=sk-from-dotenv-1234567\nHEXEVAL_LLM_BASE_URLS={llm_server.url}\n")
    with make_rater("openai", model="m", base_url=llm_server.url) as rater:
        assert rater.rate(tasks(1)[0]).ok
    assert llm_server.requests[-1].headers["authorization"] == "Bearer sk-from-dotenv-1234567"
