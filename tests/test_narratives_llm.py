"""LLM narrator and extractor through the real openai client against the local test server (tests/llm_server.py).

The server plays a scripted LLM: asked for a narrative it tells the attribution table of the prompt
as a numbered list; asked for an extraction it reads that list back as the JSON the schema asks for.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from llm_server import Behaviour, FakeLLMServer

from hexeval_engine.errors import LLMError
from hexeval_engine.narratives import narrative_summary, narrative_tools, run_narratives
from hexeval_engine.technical.run import run_technical_evaluation

KEY = "sk-test-NARRATIVE-5e1d"


def scripted(lie_about_second: bool = False):
    def respond(body, text):
        system = body["messages"][0]["content"]
        if "Write the narrative." in text:
            lines = re.findall(r"^(\d+)\. (.+?) = (.*?); attribution \S+ \((towards|away from)", text, flags=re.M)
            story = []
            for rank, label, value, way in lines:
                towards = way == "towards"
                if lie_about_second and rank == "2":
                    towards = not towards
                story.append(f"{rank}. {label} = {value}, {'supports' if towards else 'counts against'} the "
                             "prediction")
            reader = "Told for you, in plain words:" if "as 'you'" in system else "For the professional reader:"
            return {"narrative": "\n".join([reader, *story])}
        ids = dict((label, fid) for fid, label in re.findall(r"^- (\S+): (.+)$", system, flags=re.M))
        narrative = text.split("<<<")[1].split(">>>")[0]
        found = re.findall(r"^(\d+)\. (.+?) = (.*?), (supports|counts against)", narrative.strip(), flags=re.M)
        return {"features": [{"feature": ids[label], "rank": int(rank) - 1,
                              "sign": "towards" if way == "supports" else "away", "value": value}
                             for rank, label, value, way in found]}
    return respond


@pytest.fixture(scope="module")
def heart_sample(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    config = config.model_copy(update={"evaluation": config.evaluation.model_copy(update={"sample_size": 4})})
    config = _with(config, evaluation={"explainers": {"lime": {"enabled": False}, "anchor": {"enabled": False},
                                                      "dice": {"enabled": False}}})
    return config, data, run_technical_evaluation(model, data, config)


def _with(config, **sections):
    from hexeval_engine.config import deep_merge, validate_config

    return validate_config(deep_merge(config.model_dump(), sections))


def _config(config, server, **narratives):
    return _with(config, personas={"base_url": server.url, "llm_model": "test-model", "max_retries": 1},
                 narratives={"enabled": True, "narrator": "openai", "sample_instances": 3, **narratives})


def _run(config, data, technical, tmp_path, audiences=("professional", "end_user")):
    tools = narrative_tools(config, data, api_key=KEY, cache_dir=tmp_path)
    try:
        return run_narratives(data, technical, config, persona_audiences=audiences, tools=tools)
    finally:
        tools.close()


def test_llm_narratives_are_real_calls_scored_and_cached(heart_sample, tmp_path):
    config, data, technical = heart_sample
    with FakeLLMServer(responder=scripted()) as server:
        cfg = _config(config, server)
        first = _run(cfg, data, technical, tmp_path)
        requests = server.completion_requests()
        # 3 cases x 2 audiences, each also narrated from permuted attributions: 12 narratives, 12 extractions
        assert len(requests) == 24
        kinds = [r.body["response_format"]["json_schema"]["name"] for r in requests]
        assert kinds.count("narrative") == 12 and kinds.count("narrative_extraction") == 12
        assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in requests)
        real = first.table[~first.table["manipulated"]]
        assert len(real) == 6 and (real["error"] == "").all()
        assert (real[["rank_agreement", "sign_agreement", "value_agreement"]] == 1.0).all().all()
        assert not real["flagged"].any() and first.table[first.table["manipulated"]]["flagged"].all()
        assert set(real["narrator"]) == {"openai"} and set(real["narrator_model"]) == {"test-model"}
        assert set(real["extractor"]) == {"openai:test-model"}
        assert first.stats["calls"] == 24 and first.stats["tokens"] > 0
        server.reset()
        second = _run(cfg, data, technical, tmp_path)
        assert server.completion_requests() == []  # every answer came from the cache
    assert second.table["text"].tolist() == first.table["text"].tolist()
    assert second.table["cached"].all() and second.stats["calls"] == 0
    summary = narrative_summary(first.table, cfg)["openai"]
    assert summary["recommendable"] and summary["manipulation"]["true_negative_rate"] == 1.0
    assert KEY not in json.dumps(first.stats) and KEY not in first.table.to_csv()


def test_a_narrator_that_misstates_a_direction_is_flagged(heart_sample, tmp_path):
    config, data, technical = heart_sample
    with FakeLLMServer(responder=scripted(lie_about_second=True)) as server:
        run = _run(_config(config, server, manipulation_check=False), data, technical, tmp_path)
    assert len(run.table) == 6 and run.table["flagged"].all()
    assert run.table["sign_agreement"].tolist() == pytest.approx([0.8] * 6)
    assert run.table["flag_reason"].str.contains("sign agreement 0.80").all()
    assert all(e.extra["flagged"] and "FLAGGED" in e.technical_text for e in run.explanations)
    summary = narrative_summary(run.table, config)["openai"]
    assert not summary["recommendable"] and "6 of 6" in summary["reason"]


def test_failed_narration_is_recorded_not_invented(heart_sample, tmp_path):
    config, data, technical = heart_sample
    with FakeLLMServer(responder=scripted()) as server:
        server.add(Behaviour("status", status=500, match="Write the narrative.", headers={"retry-after-ms": "5"}))
        run = _run(_config(config, server, manipulation_check=False), data, technical, tmp_path, ("end_user",))
        sent = server.completion_requests()
    assert len(sent) == 6  # 3 narratives x (1 try + 1 retry); nothing to read back
    assert (run.table["text"] == "").all() and run.table["error"].str.contains("HTTP 500").all()
    assert run.table["rank_agreement"].isna().all() and not run.table["flagged"].any()
    assert all(e.error and e.text == "" for e in run.explanations)
    summary = narrative_summary(run.table, config)["openai"]
    assert summary["n"] == 0 and summary["n_failed"] == 3 and not summary["recommendable"]
    assert math.isnan(summary["metrics"]["rank_agreement"]["mean"])


def test_an_unusable_extraction_fails_the_check_and_is_asked_again(heart_sample, tmp_path):
    config, data, technical = heart_sample
    with FakeLLMServer(responder=scripted()) as server:
        server.add(Behaviour("malformed", match="Narrative:\n<<<", times=1))
        cfg = _config(config, server, manipulation_check=False, sample_instances=1)
        run = _run(cfg, data, technical, tmp_path, ("end_user",))
        assert run.table["flagged"].all() and run.table["rank_agreement"].isna().all()
        assert run.table["flag_reason"].str.contains("could not be checked").all()
        assert run.table["flag_reason"].str.contains("no JSON object").all()
        server.reset()
        again = _run(cfg, data, technical, tmp_path, ("end_user",))
        assert len(server.completion_requests()) == 1  # narrative cached, the failed extraction asked again
    assert not again.table["flagged"].any() and (again.table["rank_agreement"] == 1.0).all()


def test_a_server_without_structured_output_still_works(heart_sample, tmp_path):
    config, data, technical = heart_sample
    with FakeLLMServer(responder=scripted(), reject_response_format=True) as server:
        run = _run(_config(config, server, manipulation_check=False, sample_instances=2), data, technical, tmp_path,
                   ("professional",))
        bodies = [r.body for r in server.completion_requests()]
    assert (run.table["error"] == "").all() and (run.table["sign_agreement"] == 1.0).all()
    assert sum("response_format" not in b for b in bodies) == 4


def test_openai_narrator_without_a_key_is_a_clear_error(heart_sample, tmp_path, monkeypatch):
    config, data, _ = heart_sample
    monkeypatch.setenv("HEXEVAL_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    cfg = _with(config, narratives={"enabled": True, "narrator": "openai"})
    with pytest.raises(LLMError, match="OPENAI_API_KEY"):
        narrative_tools(cfg, data)
