"""An answer cut off at the completion-token limit (issue 36, item 14): detected from ``finish_reason == "length"``,
asked once more with more room and for a shorter comment, and, when cut off again, failed with that reason.

Before: a small model's answer cut off mid-JSON failed as "the answer holds no JSON object", with no retry
(``make llm-real``: 16 of 24 ratings lost so).
"""

from __future__ import annotations

import json

from llm_server import Behaviour, deterministic_rating
from rating_tasks import tasks

from hexeval_engine.raters import DIMENSIONS, make_rater
from hexeval_engine.raters.llm import MAX_COMPLETION_TOKENS


def _rater(server):
    return make_rater("openai", model="test-model", base_url=server.url, api_key="sk-test", concurrency=1,
                      timeout=5.0, max_retries=0)


def test_an_answer_cut_off_once_is_asked_again_with_more_room_and_used(llm_server):
    # the answer needs more than the first request's room: cut off then, complete with the retry's room
    llm_server.add(Behaviour("truncate", needs_tokens=MAX_COMPLETION_TOKENS + 1))
    with _rater(llm_server) as rater:
        [rating] = rater.rate_many(tasks(1))
    first, second = llm_server.completion_requests()
    assert first.body["max_tokens"] == MAX_COMPLETION_TOKENS
    assert second.body["max_tokens"] > MAX_COMPLETION_TOKENS
    assert "cut off" in second.body["messages"][-1]["content"] and "short" in second.body["messages"][-1]["content"]
    assert second.body["messages"][:-1] == first.body["messages"]
    assert rating.status == "ok", rating.error
    expected = deterministic_rating(second.text)
    assert rating.scores == {d: expected[d] for d in DIMENSIONS} and rating.comment == expected["comment"]
    assert rating.calls == 2 and rating.retries == 1


def test_an_answer_cut_off_again_fails_saying_it_was_cut_off(llm_server):
    llm_server.add(Behaviour("truncate"))  # every answer cut off, whatever the room
    with _rater(llm_server) as rater:
        ratings = rater.rate_many(tasks(2))
    assert len(llm_server.completion_requests()) == 4  # one retry per rating, no more
    for rating in ratings:
        assert rating.status == "failed" and rating.scores is None
        assert "cut off at the length limit" in rating.error and "finish_reason 'length'" in rating.error
        assert "also when asked again with more room" in rating.error
        assert "holds no JSON object" not in rating.error


def test_a_complete_answer_is_never_resent(llm_server):
    with _rater(llm_server) as rater:
        [rating] = rater.rate_many(tasks(1))
    assert rating.status == "ok" and len(llm_server.completion_requests()) == 1


def test_the_comment_is_bounded_for_a_grammar_server_and_the_bound_left_out_of_strict_mode():
    """llama.cpp's servers turn a schema's maxLength into their grammar, so a model that writes the prompt back into
    its comment (Gemma 3 270M did) still closes the JSON; OpenAI's strict json_schema mode refuses the keyword."""
    from llm_server import FakeLLMServer
    from hexeval_engine.raters.prompt import COMMENT_MAX_CHARS

    with FakeLLMServer(like_llama_cpp=True) as server:  # refuses json_schema with HTTP 500, as llama-cpp-python does
        with _rater(server) as rater:
            [rating] = rater.rate_many(tasks(1))
        strict, loose = server.completion_requests()[:2]
    assert rating.status == "ok", rating.error
    assert strict.body["response_format"]["type"] == "json_schema"
    assert "maxLength" not in json.dumps(strict.body["response_format"])
    assert loose.body["response_format"]["type"] == "json_object"
    assert loose.body["response_format"]["schema"]["properties"]["comment"]["maxLength"] == COMMENT_MAX_CHARS
