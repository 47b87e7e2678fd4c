"""run_persona_evaluation: the ratings table, reuse of technical explanations, failures, stats."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from llm_server import Behaviour
from persona_fixtures import FakeTechnicalResult, attribution, heart_explanations, metric_rows

from hexeval_engine import load_config
from hexeval_engine.errors import ConfigError
from hexeval_engine.raters.run import COLUMNS, per_case_ratings, persona_stats, run_persona_evaluation
from hexeval_engine.raters import DIMENSIONS, make_rater
from hexeval_engine.usecases import get_usecase

KEY = "sk-eval-SENTINEL-0c4d2b"


@pytest.fixture
def heart(usecase_bundle):
    uc, _, data, model = usecase_bundle("heart")

    def config(**personas):
        return load_config(uc.config_path, overrides={"personas": personas} if personas else None)

    return uc, config, data, model


def technical(data, ids=(4, 9, 2)):
    return FakeTechnicalResult(heart_explanations(data, list(ids)), list(ids))


def test_simulated_table_has_every_rating_and_column(heart):
    uc, config, data, model = heart
    cfg = config(sample_instances=2, runs_per_method=2)
    seen = []
    table = run_persona_evaluation(model, data, technical(data), cfg, rater=make_rater("simulated"),
                                   on_progress=lambda d, t, m: seen.append((d, t)))
    assert list(table.columns) == COLUMNS
    assert len(table) == 4 * 4 * 2 * 2  # personas × methods × instances × runs
    assert set(table["instance_index"]) == {4, 9}  # the first two shared cases (every method explained them all)
    assert set(table["run"]) == {1, 2}
    assert (table["status"] == "ok").all() and (table["rater"] == "simulated").all()
    assert (table["model"] == "simulated-v3").all()
    assert dict(zip(table["explanation_type"], table["label_shown"])) == {
        "SHAP": "Explanation A", "LIME": "Explanation B", "Anchor": "Explanation C", "DiCE": "Explanation D"}
    shap_text = next(e.text for e in technical(data).explanations if e.method == "SHAP" and e.instance_id == 4)
    assert table.query("explanation_type == 'SHAP' and instance_index == 4")["explanation_text"].eq(shap_text).all()
    assert seen[-1] == (64, 64)
    stats = persona_stats(table)
    assert stats["ratings"] == 64 and stats["ok"] == 64 and stats["calls_made"] == 0
    assert stats["agreement"]["trust"] == {"groups": 32, "mean_abs_diff": 0.0, "share_identical": 1.0}


def test_failed_and_missing_explanations_are_failed_ratings_not_shown(heart, monkeypatch):
    uc, config, data, model = heart
    tech = technical(data, ids=(4, 9))
    tech.shared_instance_ids = [4, 9]  # the technical stage says both are shared
    broken = next(e for e in tech.explanations if e.method == "LIME" and e.instance_id == 9)
    broken.error = "LIME sampling produced a constant surrogate"
    tech.explanations = [e for e in tech.explanations if not (e.method == "DiCE" and e.instance_id == 9)]
    next(e for e in tech.explanations if e.method == "Anchor" and e.instance_id == 4).text = "  "
    calls = []

    def explain_instances(model, data, config, instance_ids, methods=None, *, seed=None):
        calls.append((list(instance_ids), list(methods)))
        return []  # the explainer could not produce it either

    monkeypatch.setattr("hexeval_engine.runtime.explain.explain_instances", explain_instances, raising=False)
    table = run_persona_evaluation(model, data, tech, config(sample_instances=2), rater=make_rater("simulated"))
    assert calls == [([9], ["DiCE"])]  # only the missing one is generated; the rest are reused
    lime = table.query("explanation_type == 'LIME' and instance_index == 9")
    assert (lime["status"] == "failed").all() and lime["error"].str.contains("constant surrogate").all()
    assert lime[list(DIMENSIONS)].isna().all().all() and (lime["explanation_text"] == "").all()
    dice = table.query("explanation_type == 'DiCE' and instance_index == 9")
    assert (dice["status"] == "failed").all() and dice["error"].str.contains("no DiCE explanation").all()
    anchor = table.query("explanation_type == 'Anchor' and instance_index == 4")
    assert (anchor["status"] == "failed").all() and anchor["error"].str.contains("no plain-language text").all()
    assert (table["status"] == "ok").sum() == len(table) - 12


def test_llm_run_records_failures_stats_and_a_cache_rerun_sends_nothing(heart, llm_server, tmp_path):
    uc, config, data, model = heart
    cfg = config(rater="openai", base_url=llm_server.url, llm_model="test-model", sample_instances=1,
                 show_method_names=True, max_retries=1)
    llm_server.add(Behaviour("status", status=500, match="Jordan Whitfield", headers={"retry-after-ms": "5"}))
    rater = make_rater("openai", model="test-model", base_url=llm_server.url, api_key=KEY, max_retries=1,
                       timeout=2, cache_path=tmp_path)
    table = run_persona_evaluation(model, data, technical(data), cfg, rater=rater)
    failed = table[table["status"] == "failed"]
    assert set(failed["persona_name"]) == {"Jordan Whitfield"} and len(failed) == 4
    assert failed[list(DIMENSIONS)].isna().all().all() and failed["error"].str.contains("HTTP 500").all()
    ok = table[table["status"] == "ok"]
    assert len(ok) == 12 and all(1 <= v <= 5 and float(v).is_integer() for v in ok[list(DIMENSIONS)].to_numpy().ravel())
    assert (table["label_shown"] == table["explanation_type"]).all() and (table["rater"] == "openai").all()
    stats = table.attrs["stats"]
    assert stats["estimate"]["calls"] == 16 and stats["estimate"]["tokens"] > 0
    assert stats["calls_made"] == 16 and stats["http_requests"] == 20 and stats["retries"] == 4
    assert stats["failed"] == 4 and stats["cached"] == 0 and stats["tokens_used"] > 0
    assert KEY not in table.to_csv() and KEY not in str(stats)
    assert not any(math.isnan(x) for x in ok["latency_s"])

    llm_server.reset()  # the server recovers: only the four failed ratings are asked again
    again = run_persona_evaluation(model, data, technical(data), cfg, rater=rater)
    assert len(llm_server.completion_requests()) == 4
    assert again.attrs["stats"]["cached"] == 12 and again.attrs["stats"]["calls_made"] == 4
    assert (again["status"] == "ok").all()
    third = run_persona_evaluation(model, data, technical(data), cfg, rater=rater)
    rater.close()
    assert len(llm_server.completion_requests()) == 4  # re-running the same evaluation sends nothing
    assert third.attrs["stats"]["cached"] == 16 and third.attrs["stats"]["calls_made"] == 0
    assert third.attrs["stats"]["tokens_used"] == 0
    assert third[list(DIMENSIONS)].equals(again[list(DIMENSIONS)])


def test_missing_persona_file_is_a_config_error(heart):
    uc, config, data, model = heart
    cfg = config()
    cfg.personas.file = None
    with pytest.raises(ConfigError, match="personas.file is not set"):
        run_persona_evaluation(model, data, technical(data), cfg, rater=make_rater("simulated"))


def test_plan_before_running(heart):
    from hexeval_engine.raters.run import estimate_persona_evaluation

    uc, config, data, model = heart
    simulated = estimate_persona_evaluation(config(sample_instances=3, runs_per_method=2))
    # the narratives (on in the bundled config) are rated too: they are planned like every method
    assert simulated == {"personas": 4, "methods": ["SHAP", "LIME", "Anchor", "DiCE", "Narrative", "Random"], "cases": 3,
                         "runs": 2, "ratings_per_cell": 6, "ratings": 4 * 6 * 3 * 2, "calls": 0, "prompt_tokens": 0,
                         "completion_tokens": 0, "tokens": 0}
    llm = estimate_persona_evaluation(config(rater="openai", include=["Patient"], sample_instances=2,
                                             include_baseline=False))
    assert llm["ratings"] == llm["calls"] == 5 * 2 and llm["prompt_tokens"] > 10 * 300
    assert llm["tokens"] == llm["prompt_tokens"] + llm["completion_tokens"]


def test_personas_rate_the_cases_every_method_explained_and_say_when_there_are_too_few(heart):
    uc, config, data, model = heart
    tech = technical(data, ids=(4, 9, 2))
    tech.explanations = [e for e in tech.explanations if not (e.method == "DiCE" and e.instance_id != 9)]
    table = run_persona_evaluation(model, data, tech, config(sample_instances=8), rater=make_rater("simulated"))
    assert set(table["instance_index"]) == {9}  # DiCE explained only case 9
    assert (table["status"] == "ok").all()
    stats = persona_stats(table)
    assert stats["case_source"] == "the cases every method explained" and stats["instances_requested"] == 8
    assert any("rated 1 case per method" in n and "at least 8" in n for n in stats["notes"])


def test_the_technical_stages_shared_cases_are_used_in_their_order(heart):
    uc, config, data, model = heart
    tech = technical(data, ids=(4, 9, 2))
    tech.shared_instance_ids = [2, 4]
    table = run_persona_evaluation(model, data, tech, config(sample_instances=8), rater=make_rater("simulated"))
    assert list(dict.fromkeys(table["instance_index"])) == [2, 4]
    assert persona_stats(table)["case_source"] == "the technical stage's shared cases"


def _with_random(data, ids):
    tech = technical(data, ids=ids)
    for e in [e for e in tech.explanations if e.method == "SHAP"]:
        tech.explanations.append(attribution("Random", e.instance_id, {f: 0.1 * k for k, f in
                                                                         enumerate(data.feature_names[:3], 1)}))
    return tech


def test_the_random_baseline_is_rated_when_the_technical_stage_produced_it(heart):
    uc, config, data, model = heart
    table = run_persona_evaluation(model, data, _with_random(data, (4, 9)), config(sample_instances=2),
                                   rater=make_rater("simulated"))
    random = table[table["explanation_type"] == "Random"]
    assert len(random) == 4 * 2 and (random["status"] == "ok").all()
    assert set(random["label_shown"]) == {"Explanation E"}
    off = run_persona_evaluation(model, data, _with_random(data, (4, 9)), config(sample_instances=2,
                                                                                 include_baseline=False),
                                 rater=make_rater("simulated"))
    assert "Random" not in set(off["explanation_type"])
    absent = run_persona_evaluation(model, data, technical(data, (4, 9)), config(sample_instances=2),
                                    rater=make_rater("simulated"))
    assert "Random" not in set(absent["explanation_type"])  # nothing to rate: no ratings invented


def test_permuting_every_technical_metric_across_cases_leaves_simulated_ratings_unchanged(heart):
    """Personas judge what they can see: per-instance metrics (hidden from a reader) move no rating."""
    uc, config, data, model = heart
    ids = (4, 9, 2)
    metrics = ("fidelity_combined", "counterfactual_plausible", "counterfactual_validity", "rule_precision",
               "claim_comprehensiveness", "reader_precision")
    rng = np.random.default_rng(0)
    values = {(m, i): {k: float(rng.uniform()) for k in metrics} for m in ("SHAP", "LIME", "Anchor", "DiCE")
              for i in ids}
    shuffled = {}
    for m in ("SHAP", "LIME", "Anchor", "DiCE"):
        order = rng.permutation(len(ids))
        while (order == np.arange(len(ids))).all():
            order = rng.permutation(len(ids))
        for k, i in enumerate(ids):  # case i gets another case's values, metric by metric reversed too
            shuffled[(m, i)] = {metric: 1.0 - values[(m, ids[order[k]])][metric] for metric in metrics}
    tables = []
    for per_instance in (values, shuffled):
        tech = technical(data, ids=ids)
        tech.per_instance = metric_rows(per_instance)
        tables.append(run_persona_evaluation(model, data, tech, config(sample_instances=3), rater=make_rater("simulated")))
    keys = ["persona_name", "explanation_type", "instance_index"]
    a, b = (t.sort_values(keys).reset_index(drop=True) for t in tables)
    assert len(a) > 0
    pd.testing.assert_frame_equal(a[keys + list(DIMENSIONS) + ["comment"]], b[keys + list(DIMENSIONS) + ["comment"]])


def test_per_case_ratings_average_repeats_per_case_before_pairing():
    def row(persona, method, case, run, trust, status="ok"):
        scores = {d: (trust if status == "ok" else math.nan) for d in DIMENSIONS}
        return {"persona_name": persona, "persona_role": "Role " + persona, "explanation_type": method,
                "instance_index": case, "run": run, **scores, "status": status}

    ratings = pd.DataFrame([row("Ana", "SHAP", 4, 1, 2), row("Ana", "SHAP", 4, 2, 5), row("Ana", "SHAP", 9, 1, 3),
                            row("Ana", "SHAP", 9, 2, 0, "failed"), row("Ana", "DiCE", 4, 1, 0, "failed"),
                            row("Ana", "DiCE", 4, 2, 0, "failed"), row("Bo", "SHAP", 4, 1, 4)])
    cases = per_case_ratings(ratings)
    assert list(cases.columns) == ["persona_name", "persona_role", "explanation_type", "instance_index",
                                   *DIMENSIONS, "n_ratings", "n_failed"]
    assert len(cases) == 4  # one row per persona x method x case
    got = {(r.persona_name, r.explanation_type, r.instance_index): (r.trust, r.n_ratings, r.n_failed)
           for r in cases.itertuples()}
    assert got[("Ana", "SHAP", 4)] == (3.5, 2, 0)
    assert got[("Ana", "SHAP", 9)] == (3.0, 1, 1)
    assert math.isnan(got[("Ana", "DiCE", 4)][0]) and got[("Ana", "DiCE", 4)][1:] == (0, 2)
    assert got[("Bo", "SHAP", 4)] == (4.0, 1, 0)


def test_defaults_ask_for_at_least_eight_cases_per_persona_and_method(heart):
    from hexeval_engine.config.schema import Personas
    from hexeval_engine.raters.run import MIN_CASES_PER_CELL, persona_plan

    uc, config, data, model = heart
    assert Personas().sample_instances >= MIN_CASES_PER_CELL == 8 and Personas().include_baseline
    for name in ("heart", "credit_risk"):
        cfg = load_config(get_usecase(name).config_path)
        assert cfg.personas.sample_instances >= 8 and cfg.personas.include_baseline
    roomy = config(rater="openai").model_copy(deep=True)
    roomy.evaluation.explainers.dice.max_instances = roomy.evaluation.explainers.anchor.max_instances = 20
    plan = persona_plan(roomy, n_personas=4)
    assert plan["cases"] == 8 and plan["ratings_per_cell"] == 8
    assert plan["calls"] == plan["ratings"] == 4 * 6 * 8  # SHAP, LIME, Anchor, DiCE, Narrative, Random
    roomy.evaluation.explainers.dice.max_instances = 5  # fewer shared cases than asked: the plan says so
    assert persona_plan(roomy, n_personas=4)["cases"] == 5
