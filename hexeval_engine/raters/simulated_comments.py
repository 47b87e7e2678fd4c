"""Comments for simulated ratings, written from the drivers of the scores.

The comment names the strongest and the weakest of the four base dimensions (interpretability,
completeness, actionability, trust), says *why* with the explanation's concrete content (the
characteristics it names, its conditions or proposed changes and whether they can be made), and
closes with the decision-support verdict in the persona's own terms: a professional names the
decision they make and what they look for first (their first priority); the person the decision
is about speaks about their own case, never about the professional's decision. A story (a
narrative retelling) is read as a story, not counted as separate points. Every list names each
item once. Like the scores it reads the content only, never the method's name or family; all
wording of raw values goes through :mod:`.wording`.
"""

from __future__ import annotations

from .base import RatingTask
from .persona_weights import PersonaWeights
from .properties import ExplanationProperties
from .simulated_formulas import priorities, scope
from .wording import count, decision_noun, decision_phrase, feature_label, listing

_BASE = ("interpretability", "completeness", "actionability", "trust")
_VERDICT = {1: "hardly helps me", 2: "helps me little", 3: "helps me somewhat", 4: "helps me", 5: "helps me a lot"}


_FORM = {"reasons": "this list of reasons", "rule": "this rule", "changes": "these suggested changes",
         "story": "this story", "none": "it"}
"""What the reader calls the explanation, from what it shows (never from the method's name)."""
#: The verdict's verb agrees with a plural name ("these suggested changes help me", never "helps me").
_VERDICT_PLURAL = {k: v.replace("helps", "help") for k, v in _VERDICT.items()}
_PLURAL_FORMS = {"changes"}


def write_comment(task: RatingTask, props: ExplanationProperties, scores: dict[str, int]) -> str:
    """A 2-3 sentence first-person comment for ``scores`` of ``task``.

    Reasons that run against what such cases show (``props.contradictions``) are always the weak
    point named, and such an explanation is never called credible.
    """
    weight = priorities(PersonaWeights.of(task.persona))
    doubtful = bool(props.contradictions)
    candidates = [d for d in _BASE if not (doubtful and d == "trust")]
    best = max(candidates, key=lambda d: (scores[d], weight[d], -_BASE.index(d)))
    worst = "trust" if doubtful else min(_BASE, key=lambda d: (scores[d], -weight[d], _BASE.index(d)))
    sentences: list[str] = []
    if scores[best] >= 3:
        sentences.append(_POSITIVE[best](task, props, ""))
    if worst != best and (doubtful or scores[worst] <= 3):
        sentences.append(_NEGATIVE[worst](task, props, " ".join(sentences)))
    elif scores[worst] > 3:
        sentences.append("Nothing in it gets in my way.")
    if not sentences:
        sentences.append(_NEGATIVE[worst](task, props, ""))
    sentences.append(_verdict(task, props, scores["decision_support"]))
    return " ".join(sentences)


def _verdict(task, props: ExplanationProperties, support: int) -> str:
    """The closing sentence: the decision-support score in the words of this persona's situation."""
    persona = task.persona
    first = (persona.priorities[0] if persona.priorities else "").strip().rstrip(".")
    looked_for = ""
    if first:
        first = first[0].lower() + first[1:]
        wanted = f"to {first}" if _starts_with_verb(first) else first
        looked_for = (f" What I look for first is {wanted}, and it gives me that." if support >= 4 else
                      f" What I look for first is {wanted}, and it does not give me that." if support <= 2
                      else f" What I look for first is {wanted}, and it gives me part of that.")
    form = _FORM.get(props.form, "it")
    verdict = (_VERDICT_PLURAL if props.form in _PLURAL_FORMS else _VERDICT)[support]
    if persona.is_end_user:
        return f"As the person this {decision_noun(task.domain)} is about, {form} {verdict}.{looked_for}"
    return f"{decision_phrase(task.domain)}, {form} {verdict}.{looked_for}"


def _paren(text: str, said: str) -> str:
    """`` (text)`` unless an earlier sentence already quoted it: a comment names each list once."""
    return "" if text in said else f" ({text})"


_VERBS = {"see", "check", "be", "know", "understand", "feel", "get", "have", "make", "find", "trust", "explain",
          "justify", "act", "compare", "tell", "learn", "spot", "keep", "avoid", "show"}


def _starts_with_verb(text: str) -> bool:
    return text.split(" ", 1)[0].lower() in _VERBS


def _unique(items) -> list[str]:
    """``items`` as text, each once, in their first order (a change proposed by two alternatives is one change)."""
    return list(dict.fromkeys(str(i) for i in items))


def _is_story(task) -> bool:
    """A narrative retelling (it records the attribution it retells): read as one story, not as points."""
    return bool((getattr(task.explanation, "extra", None) or {}).get("source_method"))


def _characteristics(task, p: ExplanationProperties, n: int = 3) -> str:
    return listing(_unique(feature_label(f, task.case) for f in p.features), n)


def _pos_interpretability(task, p: ExplanationProperties, said: str) -> str:
    plain = " in plain words" if not p.jargon else ""
    if _is_story(task):
        return f"It reads as a short story{plain} that I can follow from start to finish."
    if not p.items:
        return f"It is short and quick to read{plain}."
    items = _unique(p.items)
    noun = {"rule": ("the", "condition"), "changes": ("its", "suggested change"),
            "reasons": ("its", "reason")}.get(p.form, ("its", "point"))
    return f"I can take in {noun[0]} {count(len(items), noun[1])} ({listing(items)}) quickly{plain}."


def _pos_completeness(task, p: ExplanationProperties, said: str) -> str:
    noun = decision_noun(task.domain)
    speaks = (f"It speaks to {count(len(p.features), 'characteristic')} of this {noun} "
              f"({_characteristics(task, p)})")
    if p.changes:
        return f"{speaks}, and it says what would make a difference."
    if p.conditions:  # a rule says when the answer stays, not what to change
        return f"{speaks}, and it says under which conditions the answer stays the same."
    return speaks + "."


def _pos_actionability(task, p: ExplanationProperties, said: str) -> str:
    if p.feasible:  # never suggests a change the person cannot make
        return f"It tells me concretely what would change the outcome: {p.feasible[0]}."
    return f"It points at {listing(_unique(p.items), 1)} as the main lever."


def _pos_trust(task, p: ExplanationProperties, said: str) -> str:
    # reached only without contradictions (write_comment): the reasons fit what such cases show
    if p.jargon:
        return "I am inclined to rely on it, although some of its terms are unfamiliar to me."
    if p.checkable and p.checkable == p.reasons:  # every reason it gives can be checked, and fits
        return (f"{_fits(p)} fit what I know of such cases, so I find it credible.")
    if p.checkable:
        return (f"{_fits(p)} fit what I know of such cases; the others I cannot check, so I reserve judgement.")
    return "I can follow what it says and check it against this case."


def _fits(p: ExplanationProperties) -> str:
    return "The reason it gives" if p.checkable == 1 else f"The {count(p.checkable, 'reason')} I can check"


def _neg_interpretability(task, p: ExplanationProperties, said: str) -> str:
    w = PersonaWeights.of(task.persona)
    items = _unique(p.items)
    pressure = " with the time I have" if w.time >= 0.75 else ""
    if _is_story(task):
        if len(items) > w.capacity:
            return (f"The story weaves in {count(len(items), 'detail')} ({listing(items, 2)}), more than I can keep "
                    f"in mind{pressure}.")
        return f"At {count(p.words, 'word')} the story takes a while to read{pressure}."
    if len(items) > w.capacity:
        return (f"{count(len(items), 'separate point')}{_paren(listing(items), said)} "
                f"{'is' if len(items) == 1 else 'are'} more than I can absorb{pressure}.")
    if p.jargon:
        return f"Terms like {listing(f'“{j}”' for j in p.jargon)} mean little to me."
    if p.numbers:
        return f"It gives me {count(p.numbers, 'number')} to make sense of."
    return f"It takes effort to read ({count(p.words, 'word')})."


def _neg_completeness(task, p: ExplanationProperties, said: str) -> str:
    noun = decision_noun(task.domain)
    if scope(p, PersonaWeights.of(task.persona)) < 1:
        if not p.features:
            return f"It does not say which characteristics of this {noun} mattered."
        rest = max(0, p.n_case_features - len(p.features))
        return (f"It speaks to only {count(len(p.features), 'characteristic')} ({_characteristics(task, p, 2)}) "
                f"and leaves the other {count(rest, 'characteristic')} of this {noun} unexplained.")
    return "It names what mattered but not what would have made a difference."


def _neg_actionability(task, p: ExplanationProperties, said: str) -> str:
    if not p.changes:
        if not p.items:
            return "It suggests no concrete change."
        shown = listing(_unique(p.items), 2)
        if shown in said or any(i in said for i in _unique(p.items)[:1]):
            return "It says what mattered but not what could be done about it."
        return f"It tells me what mattered ({shown}) but not what could be done about it."
    if p.infeasible:  # names the count, never the impossible change itself as something to do
        if len(p.infeasible) == 1:
            return "One of its suggested changes asks for something that cannot be changed."
        return f"{len(p.infeasible)} of its suggested changes ask for things that cannot be changed."
    changes = _unique(p.changes)
    return (f"Its alternatives ask for {count(len(changes), 'change')} in all ({listing(changes, 2)}), "
            "which is hard to act on.")


def _neg_trust(task, p: ExplanationProperties, said: str) -> str:
    wary = ", and I am wary of automated judgements" if task.persona.level("ai_comfort") <= 0.25 else ""
    if p.contradictions:
        more = len(p.contradictions) - 1
        also = f" ({count(more, 'other reason')} likewise)" if more else ""
        return (f"It gives {p.contradictions[0]}, though such cases usually go the other way{also}, "
                f"which makes me doubt it{wary}.")
    if p.jargon:
        return f"Its terms ({listing(p.jargon, 2)}) make it hard for me to check{wary}."
    if p.infeasible:
        return f"It asks for changes that cannot be made, which makes me doubt it{wary}."
    return f"It covers too little of this {decision_noun(task.domain)} for me to rely on it{wary}."


_POSITIVE = {"interpretability": _pos_interpretability, "completeness": _pos_completeness,
             "actionability": _pos_actionability, "trust": _pos_trust}
_NEGATIVE = {"interpretability": _neg_interpretability, "completeness": _neg_completeness,
             "actionability": _neg_actionability, "trust": _neg_trust}
