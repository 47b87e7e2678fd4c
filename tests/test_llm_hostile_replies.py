"""Whatever an OpenAI-compatible server answers, a rating fails with a short reason — never a crash.

One fake-server test per reply kind (issue 14, defect 5): an HTML page with status 200 (a wrong
base URL), an invalid JSON body, 1,000 nested brackets, a 5 MB body, a body of the wrong shape,
message content that is not text, and a 100,000-character answer.
"""

from __future__ import annotations

import json
import pytest
from llm_server import Behaviour
from rating_tasks import tasks

from hexeval_engine.raters import make_rater
from hexeval_engine.raters.parsing import MAX_ANSWER_CHARS, MAX_CANDIDATES, AnswerError, parse_rating
from hexeval_engine.llm.reply import MAX_REPLY_BYTES

KEY = "sk-test-HOSTILE-0a1b2c3d4e"


def rater_for(server, **options):
    defaults = dict(model="test-model", base_url=server.url, api_key=KEY, concurrency=2, timeout=5.0,
                    max_retries=0)
    return make_rater("openai", **{**defaults, **options})


@pytest.mark.parametrize("kind, reason", [
    ("html", "HTML page"),
    ("invalid_json", "not valid JSON"),
    ("deep_nesting", "nests JSON too deeply"),
    ("huge_body", f"larger than {MAX_REPLY_BYTES:,} bytes"),
    ("wrong_types", "no 'choices' list"),
    ("content_not_text", "content is a mapping of names to values"),
    ("huge_content", f"at most {MAX_ANSWER_CHARS:,}"),
])
def test_each_hostile_reply_kind_is_one_failed_rating_with_a_short_reason(llm_server, tmp_path, kind, reason):
    work = tasks(3)
    llm_server.add(Behaviour(kind, match=work[1].persona.name))
    with rater_for(llm_server, cache_path=tmp_path / "cache.sqlite") as rater:
        ratings = rater.rate_many(work)
    assert [r.status for r in ratings] == ["ok", "failed", "ok"]
    bad = ratings[1]
    assert bad.scores is None and bad.comment == ""
    assert reason in bad.error
    assert len(bad.error) < 400 and "Traceback" not in bad.error
    assert bad.calls == 1


def test_requests_cap_the_answer_length(llm_server):
    with rater_for(llm_server) as rater:
        rater.rate(tasks(1)[0])
    body = llm_server.completion_requests()[0].body
    assert 0 < body["max_tokens"] <= 1000


def test_official_endpoint_gets_max_completion_tokens():
    from hexeval_engine.llm.client import _length_limit

    assert set(_length_limit(None, 600)) == {"max_completion_tokens"}
    assert set(_length_limit("https://api.openai.com/v1", 600)) == {"max_completion_tokens"}
    assert set(_length_limit("http://localhost:11434/v1", 600)) == {"max_tokens"}


@pytest.mark.parametrize("answer", [
    "{" * 19_000,
    "x" * 5_000 + '{"trust": ' * 1_500,
    "```" + " " * 19_000 + "x",
    "[" * 15_000 + "]" * 15_000,
])
def test_parser_tries_a_bounded_number_of_objects_and_fails_cleanly(monkeypatch, answer):
    """Linear-time parsing: the old scan decoded from every '{' (19,000 decodes of up to 19,000 characters;
    a 5 MB answer took about 30 minutes). The speed itself is measured in benchmarks/llm_rater.py."""
    calls = []
    original = json.JSONDecoder.raw_decode
    monkeypatch.setattr(json.JSONDecoder, "raw_decode", lambda self, s, idx=0: calls.append(idx) or original(self, s, idx))
    with pytest.raises(AnswerError) as caught:
        parse_rating(answer)
    assert len(str(caught.value)) < 400
    assert len(calls) <= MAX_CANDIDATES + 1  # the whole text once, then at most MAX_CANDIDATES starts


def test_parser_refuses_an_overlong_answer_even_if_it_holds_a_rating():
    good = {"interpretability": 4, "completeness": 3, "actionability": 2, "trust": 5, "satisfaction": 4,
            "decision_support": 3, "comment": "Clear."}
    assert parse_rating(json.dumps(good)).scores["trust"] == 5
    with pytest.raises(AnswerError, match="characters long"):
        parse_rating(json.dumps(good) + " " * MAX_ANSWER_CHARS)


def test_rejected_values_are_quoted_briefly():
    answer = {"interpretability": [["x" * 300] * 30], "completeness": 3, "actionability": 2, "trust": 5,
              "satisfaction": 4, "decision_support": 3, "comment": "ok"}
    with pytest.raises(AnswerError) as caught:
        parse_rating(json.dumps(answer))
    assert len(str(caught.value)) < 300
