"""LLM personas answer the what-if questions, through the one LLM client.

The adapter only builds requests and reads answers; every safeguard (key scoping, the SDK's own
errors, deadlines, redaction before anything is checked or saved, structured output, the cache) is
:class:`~hexeval_engine.llm.client.LLMClient`'s. Each persona of the run reads, for each study item,
the case, the prediction and the explanation exactly as it did when it rated it (the text its role
read, under the label it was shown), then the question and its two options, and answers with
``{"answer": "<one option, copied>"}``. An answer that is not JSON, has no ``answer``, or names
anything but one of the two options is a recorded failure (with its redacted reason), never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..config.schema import Domain
from ..llm.client import ChatAnswer, ChatRequest, LLMClient
from ..llm.json_text import excerpt, find_object
from ..llm.limits import clip_messages
from ..personas import Persona
from .forward import ANSWER_COLUMNS

MAX_COMPLETION_TOKENS = 200
"""Completion-token limit of one answer (a JSON object naming one option is about 20 tokens)."""


@dataclass(frozen=True)
class WhatIfTask:
    """One persona answering one item's what-if."""

    persona: Persona
    item: dict
    text: str
    label: str
    case_text: str
    prediction_text: str
    options: tuple[str, str]


def answer_schema(options) -> dict:
    """JSON schema of an answer (usable as a strict ``response_format``)."""
    return {"type": "object", "properties": {"answer": {"type": "string", "enum": list(options),
                                                         "description": "one of the two options, copied exactly"}},
            "required": ["answer"], "additionalProperties": False}


def messages(task: WhatIfTask, domain: Domain) -> list[dict]:
    """The system and user messages of one what-if question."""
    p = task.persona
    who = (f"You are {p.name}, {domain.end_user_context or 'the person this decision is about'}." if p.is_end_user
           else f"You are {p.name}, {p.role}.")
    system = (f"{who} How you think about it: {p.mental_model}\n\nAn AI system predicts {domain.prediction_task} to help "
              f"{domain.decision_verb} each {domain.decision_noun}. You will see one case, the system's prediction and "
              "one explanation of that prediction, then one question about what the system would predict if one "
              "thing about the case were different. Answer from what the case and the explanation tell you. Answer "
              'with a single JSON object and nothing else: {"answer": "<one of the two options, copied exactly>"}.')
    user = (f"The {domain.decision_noun}:\n{task.case_text}\n\n{task.prediction_text}\n\n{task.label}:\n<<<\n"
            f"{task.text.strip()}\n>>>\n\nQuestion: {task.item['what_if']['question']}\nOptions:\n"
            + "\n".join(f"- {o}" for o in task.options) + '\n\nAnswer with the JSON object {"answer": "..."}.')
    return clip_messages([{"role": "system", "content": system}, {"role": "user", "content": user}])


def parse_answer(content: str, options) -> int:
    """The index of the option an answer names.

    Raises
    ------
    ValueError
        Not a JSON object, no ``answer`` text, or an answer that is not exactly one of ``options``
        (spacing and letter case aside).
    """
    try:
        found = find_object(content)
    except RecursionError as err:
        raise ValueError("the answer nests JSON too deeply") from err
    if found is None:
        raise ValueError(f"the answer is not a JSON object ({excerpt(content)})")
    answer = found.get("answer")
    if not isinstance(answer, str):
        raise ValueError(f"the answer has no 'answer' text ({excerpt(content)})")
    wanted = [" ".join(o.split()).casefold() for o in options]
    given = " ".join(answer.split()).casefold()
    if given not in wanted:
        raise ValueError(f"the answer is not one of the two options ({excerpt(answer)})")
    return wanted.index(given)


def request(task: WhatIfTask, domain: Domain, *, temperature: float) -> ChatRequest:
    """The chat request of one task (cached by its messages, purpose and temperature)."""
    return ChatRequest(messages(task, domain), "what_if_answer", answer_schema(task.options), temperature,
                       MAX_COMPLETION_TOKENS, {"purpose": "study what-if", "temperature": temperature})


def ask(client: LLMClient, tasks: list[WhatIfTask], domain: Domain, *, temperature: float,
        on_done=None) -> pd.DataFrame:
    """Every task answered (or its failure recorded); columns :data:`~.forward.ANSWER_COLUMNS`."""
    checks = [(lambda content, o=t.options: parse_answer(content, o)) for t in tasks]
    answers = client.complete_many([request(t, domain, temperature=temperature) for t in tasks], checks, on_done)
    return pd.DataFrame([_row(t, a) for t, a in zip(tasks, answers)], columns=ANSWER_COLUMNS)


def _row(task: WhatIfTask, answer: ChatAnswer) -> dict:
    base = {"persona_name": task.persona.name, "persona_role": task.persona.role,
            "instance_index": int(task.item["instance_index"]), "explanation_type": task.item["method"]}
    if not answer.ok:
        return {**base, "simulation_answer": pd.NA, "simulation_correct": pd.NA, "status": "failed",
                "error": answer.error}
    chosen = parse_answer(answer.content, task.options)
    return {**base, "simulation_answer": chosen, "simulation_correct": chosen == int(task.item["what_if"]["answer"]),
            "status": "ok", "error": ""}
