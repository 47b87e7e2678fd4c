"""What the run's personas contribute to a study, asked once when the study is created.

* Their answers to the study's what-if questions (``study/persona_answers.csv``): the simulated
  personas through the reader of each explanation (:mod:`.forward`), LLM personas through the LLM
  (:mod:`.llm_answers`), each persona reading the text and label it rated.
* For LLM personas, the label-swap check (``study/label_swap.json``, :mod:`.label_swap`); for the
  simulator, a note saying why it does not apply.

A failed LLM call stays a failure row with its reason; an LLM that cannot be reached at all (no key,
a setting out of range) makes every row a failure with that reason. Nothing is invented.
"""

from __future__ import annotations

import json

import pandas as pd

from ..errors import ConfigError, LLMError
from ..raters.base import RatingTask
from ..raters.case import build_cases
from ..raters.factory import rater_from_config
from ..raters.run import configured_personas
from ..ratings_summary import DIMENSIONS
from .cells import csv_text
from .forward import ANSWER_COLUMNS, explanation_from_record, reader_answers
from .label_swap import SIMULATOR_NOTE, compare, rotated_labels
from .llm_answers import WhatIfTask, ask

PERSONA_ANSWERS = "study/persona_answers.csv"
LABEL_SWAP = "study/label_swap.json"
LLM_KIND = "openai"


def rater_kind(manifest: dict) -> str:
    """``"simulated"`` or ``"openai"``: who played the personas of a run."""
    return str((manifest.get("rater") or {}).get("kind", "simulated"))


def persona_files(run, study: dict, sources) -> dict[str, str]:
    """``{relpath: text}`` of the personas' answers and the label-swap check, for the study's amendment.

    Parameters
    ----------
    run : RunData
        The loaded run (manifest, explanations, persona ratings).
    study : dict
        The study being created (its items and what-ifs).
    sources : RunSources
        The run's config, data and model (:func:`~.sources.load_sources`).
    """
    if rater_kind(run.manifest) != LLM_KIND:
        answers = reader_answers(study, run.explanations, sources.data, top_k=sources.config.personas.top_k_features)
        swap = {"applies": False, "note": SIMULATOR_NOTE}
    else:
        answers, swap = _ask_llm(run, study, sources)
    return {PERSONA_ANSWERS: csv_text(answers), LABEL_SWAP: json.dumps(swap, indent=2)}


def _ask_llm(run, study: dict, sources) -> tuple[pd.DataFrame, dict]:
    ratings = run.persona_ratings
    ok = ratings[ratings["status"] == "ok"] if "status" in ratings else ratings
    config, domain = sources.config, sources.config.domain
    try:
        personas = {p.name: p for p in configured_personas(config)}
    except ConfigError as err:  # the persona file moved or broke since the run: nobody can be asked again
        reason = f"the LLM personas could not be asked: {err}"
        rows = [{"persona_name": str(name), "persona_role": str(role), "instance_index": int(item["instance_index"]),
                 "explanation_type": item["method"], "simulation_answer": pd.NA, "simulation_correct": pd.NA,
                 "status": "failed", "error": reason}
                for (name, role) in ok[["persona_name", "persona_role"]].drop_duplicates().itertuples(index=False)
                for item in study["items"] if item.get("what_if")]
        return pd.DataFrame(rows, columns=ANSWER_COLUMNS), {"applies": True, "measured": False, "note": reason,
                                                            "n_items": 0, "failures": [reason]}
    by_key = {(str(r["method"]), int(r["instance_id"])): r for r in run.explanations}
    cases = build_cases(sources.model, sources.data, domain, sorted({int(i["instance_index"]) for i in study["items"]}))
    labels = ok.groupby("explanation_type")["label_shown"].first().astype(str).to_dict()
    rotated = rotated_labels(labels)
    tasks, swaps, stored, missing = [], [], [], []
    for (name, _role), group in ok.groupby(["persona_name", "persona_role"]):
        persona = personas.get(str(name))
        if persona is None:  # the persona file changed since the run: this persona cannot be asked again
            missing += [{"persona_name": str(name), "persona_role": str(_role), "instance_index": int(i["instance_index"]),
                         "explanation_type": i["method"], "simulation_answer": pd.NA, "simulation_correct": pd.NA,
                         "status": "failed", "error": f"persona {name} is no longer in the run's persona file, so it "
                                                      "cannot be asked again"}
                        for i in study["items"] if i.get("what_if")]
            continue
        for item in study["items"]:
            rows = group[(group["instance_index"] == item["instance_index"]) &
                         (group["explanation_type"] == item["method"])]
            record = by_key.get((item["method"], int(item["instance_index"])))
            if rows.empty or record is None:
                continue
            text, label = str(rows["explanation_text"].iloc[0]), str(rows["label_shown"].iloc[0])
            if item.get("what_if"):
                tasks.append(WhatIfTask(persona, item, text, label, item["case"], item["prediction"],
                                        tuple(study["outcomes"])))
            explanation = explanation_from_record(record)
            explanation.text = text
            swaps.append(RatingTask(persona, cases[int(item["instance_index"])], explanation, domain,
                                    rotated.get(item["method"], label)))
            stored.append(rows.iloc[0])
    try:
        rater = rater_from_config(config)
    except (LLMError, ConfigError) as err:
        reason = f"the LLM personas could not be asked: {err}"
        failed = pd.DataFrame([*(_failure(t, reason) for t in tasks), *missing], columns=ANSWER_COLUMNS)
        return failed, {"applies": True, "measured": False, "note": reason, "n_items": 0, "failures": [reason]}
    with rater:
        answers = ask(rater.client, tasks, domain, temperature=config.personas.temperature)
        if missing:
            answers = pd.concat([answers, pd.DataFrame(missing, columns=ANSWER_COLUMNS)], ignore_index=True)
        rerated = rater.rate_many(swaps)
    swapped = pd.DataFrame([{"persona_name": t.persona.name, "explanation_type": t.explanation.method,
                             "instance_index": t.case.instance_id, "status": r.status, "error": r.error,
                             **{d: (r.scores or {}).get(d) for d in DIMENSIONS}} for t, r in zip(swaps, rerated)])
    check = compare(pd.DataFrame(stored), swapped, seed=int(study.get("seed", 0))) if len(swaps) else {
        "applies": True, "measured": False, "note": "no persona rating of the study's items could be re-asked",
        "n_items": 0, "failures": []}
    check["labels"] = {m: {"shown": labels[m], "swapped": rotated[m]} for m in labels}
    return answers, check


def _failure(task: WhatIfTask, reason: str) -> dict:
    return {"persona_name": task.persona.name, "persona_role": task.persona.role,
            "instance_index": int(task.item["instance_index"]), "explanation_type": task.item["method"],
            "simulation_answer": pd.NA, "simulation_correct": pd.NA, "status": "failed", "error": reason}
