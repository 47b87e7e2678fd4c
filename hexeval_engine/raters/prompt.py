"""Build the chat messages an LLM persona reads, and the JSON schema its answer must follow.

The persona sees the domain (injected from ``config.domain``), the case in raw terms with
labels and units, the model's prediction and probability, and the explanation's plain-language
``text`` under a neutral label ("Explanation A") unless method names are switched on.
"""

from __future__ import annotations

from ..config.schema import Domain
from ..explanation import BASELINE_METHOD, METHODS, NARRATIVE_METHOD
from ..personas import Persona
from ..vocabulary import join_words
from ..llm.limits import clip_messages, clip_value, estimate_prompt_tokens  # noqa: F401  (re-exported)
from .base import DIMENSIONS, Case, RatingTask

DIMENSION_QUESTIONS = {
    "interpretability": "How easy is this explanation for you to understand?",
    "completeness": "Does it cover the factors you would need to understand this prediction?",
    "actionability": "Does it tell you what could be done, or what would change the outcome?",
    "trust": "Does it give you well-founded confidence in (or well-founded doubt about) the prediction?",
    "satisfaction": "Overall, how satisfied are you with this explanation?",
    "decision_support": "How much does it help you {verb} this {noun}?",
}

COMPLETION_TOKENS_ESTIMATE = 160
"""Expected tokens of one answer (six integers and a 2-3 sentence comment)."""


def method_label(method: str, *, show_method_names: bool, methods=()) -> str:
    """The name a persona sees: ``"Explanation A"`` … ``"Explanation D"`` (fixed per method) or the method.

    ``methods``: the run's methods; those HEXEval does not know (plugins) are lettered H, I … in that order.
    """
    if show_method_names:
        return method
    # A-D the four methods, E Random, F Narrative, G similar cases; the run's plugins H, I … in its order
    order = [*METHODS, BASELINE_METHOD, NARRATIVE_METHOD, "Examples"]
    order += [m for m in dict.fromkeys(methods) if m not in order]
    if method not in order:  # an unknown method gets its own letter after the known ones, never a shared one
        order.append(method)
    return f"Explanation {chr(ord('A') + order.index(method))}"


#: What the comment should say, as the instructions ask for it. A model that copies it into its comment did not
#: follow them (:func:`hexeval_engine.raters.parsing.parse_rating` refuses such an answer).
COMMENT_INSTRUCTION = ("2-3 sentences in the first person that say why, naming what in the explanation helped or got "
                       "in your way.")

#: Longest comment a grammar-constrained server lets the model write (``maxLength``: llama.cpp's servers turn it
#: into their grammar, so the JSON always closes; three sentences need about 300). Gemma 3 270M wrote the prompt back
#: into its comment until the token limit cut the JSON off; strict ``json_schema`` mode drops the keyword
#: (:func:`hexeval_engine.llm.client.strict_schema`).
COMMENT_MAX_CHARS = 600


def rating_json_schema() -> dict:
    """The JSON schema of an answer, usable as an OpenAI ``response_format`` (strict mode)."""
    props = {d: {"type": "integer", "enum": [1, 2, 3, 4, 5], "description": _question(d, Domain())} for d in DIMENSIONS}
    props["comment"] = {"type": "string", "description": "2-3 sentences, first person, from your perspective",
                        "maxLength": COMMENT_MAX_CHARS}
    return {"type": "object", "properties": props, "required": [*DIMENSIONS, "comment"], "additionalProperties": False}


def build_messages(task: RatingTask) -> list[dict]:
    """The system and user messages for one rating task."""
    return clip_messages([{"role": "system", "content": system_prompt(task.persona, task.domain)},
                          {"role": "user", "content": _user(task)}])


def system_prompt(p: Persona, domain: Domain) -> str:
    """Who the persona is, the domain, the six questions and the answer format."""
    if p.is_end_user:
        who = f"You are {p.name}, {domain.end_user_context or 'the person this decision is about'}."
    else:
        where = f" {domain.stakeholder_context}" if domain.stakeholder_context else ""
        who = f"You are {p.name}, {p.role}{where}, with {p.experience_years} years of experience."
    levels = "; ".join(f"{name.replace('_', ' ')}: {getattr(p, name).value.replace('_', ' ')}" for name in
                       ("ai_comfort", "technical_background", "need_to_justify", "need_to_act", "time_pressure",
                        "risk_aversion"))
    terms = "".join(f"\n- {k.replace('_', ' ')}: {v}" for k, v in domain.terms.items())
    questions = "\n".join(f"- {d}: {_question(d, domain)}" for d in DIMENSIONS)
    return (
        f"{who}\n\nYour profile\n- Role: {p.role}\n- Risk profile: {p.risk_profile}\n- Decision style: "
        f"{p.decision_style}\n- How you think about it: {p.mental_model}\n- What you need from an explanation:"
        + "".join(f"\n  - {x}" for x in p.priorities) + "\n- Your rules of thumb:"
        + "".join(f"\n  - {x}" for x in p.heuristics)
        + f"\n- Explanation preferences: {p.explanation_preferences}\n- Levels: {levels}\n\n"
        f"The situation ({domain.name})\nAn AI system predicts {domain.prediction_task} to help {domain.decision_verb} "
        f"each {domain.decision_noun}. A positive prediction means: {domain.positive_outcome}. A negative "
        f"prediction means: {domain.negative_outcome}." + (f"\nTerms used here:{terms}" if terms else "")
        + "\n\nYou will see one case, the system's prediction and one explanation of that prediction. Judge the "
        "explanation strictly from your own perspective, needs and expertise; do not judge the prediction itself. "
        f"Rate it on six dimensions, each an integer from 1 (very poor) to 5 (excellent):\n{questions}\n\n"
        "Answer with a single JSON object and nothing else, with the integer keys "
        + ", ".join(DIMENSIONS) + f' and a "comment" key: {COMMENT_INSTRUCTION}'
    )


def _user(task: RatingTask) -> str:
    case, domain = task.case, task.domain
    return (f"The {domain.decision_noun}:\n{render_case(case, _mentioned(task.explanation))}\n\n"
            f"{render_prediction(case, domain)}\n\n"
            f"{task.label}:\n<<<\n{task.explanation.text.strip()}\n>>>\n\n"
            f"Rate {task.label} as {task.persona.name} and answer with the JSON object.")


#: Cases with more features than this list the ones the explanation speaks about, then others up to the cap.
MAX_CASE_LINES = 40


def render_case(case: Case, mentioned=()) -> str:
    """The case's feature values, one per line, with descriptions (units) and labels.

    A wide case (more than :data:`MAX_CASE_LINES` features) lists the features in ``mentioned`` first,
    then the others in column order up to the cap, and says how many were left out: a persona cannot
    take in hundreds of lines, and a prompt that long costs tokens without informing the rating.
    """
    features = list(case.features)
    if len(features) > MAX_CASE_LINES:
        first = [f for f in features if f.name in set(mentioned)]
        rest = [f for f in features if f.name not in set(mentioned)]
        shown = (first + rest)[:max(MAX_CASE_LINES, len(first))]
        left = len(features) - len(shown)
        return "\n".join(f"- {f.description}: {clip_value(f.value)}" for f in shown) + (
            f"\n- … and {left} more features not listed here" if left else "")
    return "\n".join(f"- {f.description}: {clip_value(f.value)}" for f in features)


def _mentioned(explanation) -> list[str]:
    """The raw features an explanation speaks about (its attributions, rule, counterfactual changes or the features in
    which its similar cases differ)."""
    attrs = explanation.attributions or explanation.extra.get("source_attributions") or {}
    names = sorted(attrs, key=lambda f: -abs(attrs[f]))[:MAX_CASE_LINES]  # the largest first
    if explanation.rule is not None:
        names += [c.feature for c in explanation.rule.conditions]
    for cf in explanation.counterfactuals or []:
        names += list(cf.changes)
    for example in explanation.examples or []:
        names += list(example.differs)
    return names


def predicted_outcome(case: Case, domain: Domain) -> tuple[str, float]:
    """The predicted outcome in the domain's words and the model's probability *of that outcome*.

    The one place that pairs them: a binary case's ``probability_positive`` is the positive class's, so
    a case predicted negative shows ``1 - probability_positive`` beside the negative outcome's words.
    A multi-class case's probability is already its predicted class's; a regressor has none (NaN).
    """
    if case.value is not None:
        return case.outcome, float("nan")
    if case.classes:
        return case.outcome, float(case.probability_positive)
    positive = bool(case.predicted_class == 1)  # ``case.outcome`` words this class (raters.case.build_cases)
    return case.outcome, float(case.probability_positive if positive else 1.0 - case.probability_positive)


def render_prediction(case: Case, domain: Domain) -> str:
    """The model's prediction and the probability of that same outcome, in words (:func:`predicted_outcome`)."""
    outcome, probability = predicted_outcome(case, domain)
    if case.value is not None:
        return f"The system's prediction: {outcome}."
    text = f"The system's prediction: {outcome}, with an estimated probability of {probability:.0%}."
    if case.classes:
        return text + f" It chooses the most probable of {len(case.classes)} classes: {join_words(case.classes)}."
    if abs(case.threshold - 0.5) > 1e-9:
        text += (f" It predicts {domain.positive_outcome} whenever the probability of that outcome is "
                 f"{case.threshold:.0%} or more.")
    return text


def _question(dimension: str, domain: Domain) -> str:
    return DIMENSION_QUESTIONS[dimension].format(verb=domain.decision_verb, noun=domain.decision_noun)

