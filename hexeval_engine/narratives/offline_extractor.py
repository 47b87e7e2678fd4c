"""The offline extractor: read back which features a narrative names, with rank, direction and value.

No LLM. It finds feature names (full description, short label or column name; longest match
wins), splits the text into sentences and clauses, and for each feature's first mention reads

* the **rank** from an ordinal phrase before it in its clause ("the second most important",
  "3.", "most important"), else right after it ("your age, the second most important factor"),
  else from the order of first mentions;
* the **sign** from a direction phrase of :mod:`~hexeval_engine.narratives.cues` in its clause,
  else in the neighbouring clause of the same sentence ("Pointing the other way: A; B.");
* the **value** stated after it and before the next feature: one of the feature's category
  labels, or the first number.

It reads the template narrator exactly and hand-written narratives that name features and state
directions relative to the prediction; ``tests/test_narratives_extract.py`` holds the examples.
"""

from __future__ import annotations

import functools
import re

from .cues import direction, rank_cue
from .facts import NarrativeFacts
from .results import Extraction, Mention
from .wording import feature_names_for_matching

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LIST_MARKER = re.compile(r"^\s*#?\d{1,2}[.)]$")
# thousands separators inside a number only: "0, and it …" states 0, never "0,"
_NUMBER = re.compile(r"[-+−]?\$?\d(?:[\d,]*\d)?(?:\.\d+)?%?")
_CONJUNCTION = re.compile(r"(?<![a-z])(?:and|while|whereas|but)(?![a-z])", re.I)
_BOUND_L, _BOUND_R = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"


class OfflineExtractor:
    """Extract mentions from narratives without an LLM."""

    name = "offline"

    def __init__(self, categories: dict[str, list[str]] | None = None):
        self.categories = categories or {}  # feature -> labels of its categories (for stated values)

    def extract_many(self, texts: list[str], facts: list[NarrativeFacts], on_progress=None) -> list[Extraction]:
        out = []
        for i, (text, f) in enumerate(zip(texts, facts), start=1):
            out.append(self.extract(text, f))
            if on_progress:
                on_progress(i, len(texts), f"Narrative of case {f.instance_id} read back")
        return out

    def extract(self, text: str, facts: NarrativeFacts) -> Extraction:
        mentions = extract_mentions(text, facts, self.categories)
        return Extraction(tuple(mentions), extractor=self.name)

    def close(self) -> None:
        """Nothing to release."""


def extract_mentions(text: str, facts: NarrativeFacts, categories: dict[str, list[str]]) -> list[Mention]:
    """The features ``text`` names, in order of first mention, with rank, sign and stated value."""
    found: dict[str, dict] = {}
    order = 0
    names = _Names(facts)
    for sentence in _sentences(text):
        clauses = [c for c in re.split(r";", sentence)]
        clause_signs = [direction(_masked(c, names).lower()) for c in clauses]
        for ci, clause in enumerate(clauses):
            spans = _spans(clause, names)
            for k, (start, end, feature) in enumerate(spans):
                seg_end = spans[k + 1][0] if k + 1 < len(spans) else len(clause)
                before = clause[spans[k - 1][1] if k else 0:start]
                after = clause[end:seg_end]
                value = _stated_value(after, feature, categories)
                sign = _sign_for(clauses, clause_signs, ci, clause, spans, k, names)
                item = found.get(feature)
                if item is None:
                    own_before = _after_conjunction(before) if k else before
                    cue = rank_cue(own_before.lower())
                    if cue is None:  # "your age (54), the second most important factor"
                        cue = rank_cue(_before_conjunction(_masked(after, names)).lower(), first=True)
                    found[feature] = {"rank": cue if cue is not None else order, "sign": sign, "value": value,
                                      "order": order}
                    order += 1
                else:
                    item["sign"] = item["sign"] if item["sign"] is not None else sign
                    item["value"] = item["value"] if item["value"] is not None else value
    return [Mention(f, d["rank"], d["sign"], d["value"]) for f, d in sorted(found.items(), key=lambda kv: kv[1]["order"])]


def _before_conjunction(segment: str) -> str:
    """The part of the text after a mention that still describes it (up to "and", "while", "but" ...)."""
    m = _CONJUNCTION.search(segment)
    return segment[:m.start()] if m else segment


def _after_conjunction(segment: str) -> str:
    """The part of the text between two mentions that introduces the second one."""
    m = _CONJUNCTION.search(segment)
    return segment[m.end():] if m else segment


def _sentences(text: str) -> list[str]:
    pieces = [p for p in _SENTENCE_END.split(text or "") if p.strip()]
    merged: list[str] = []
    for p in pieces:
        if merged and _LIST_MARKER.match(merged[-1]):
            merged[-1] = f"{merged[-1]} {p}"
        else:
            merged.append(p)
    return merged


class _Names:
    """A narrative's features with each name they may go by (and its lower-case form), built once per narrative.

    ``_spans`` looks for every name in every clause (a narrative has dozens of clauses); naming the features
    and escaping and looking up each pattern for every clause cost more than the matching itself.
    """

    def __init__(self, facts: NarrativeFacts):
        # each name's pattern is compiled the first time a clause may hold the name (compiling every name's pattern
        # up front was ~0.04 of the ~0.1 CPU s a new process's first read-back of heart's narratives took)
        self.patterns = [(feature, [(_ascii_lower(name), name)
                                    for name in feature_names_for_matching(feature, facts.domain)])
                         for feature in facts.features]
        self.spans: dict[str, list] = {}  # clause -> its mentions (a clause is read several times)


def _ascii_lower(text: str) -> str | None:
    """``text`` in lower case when it is ASCII (then a case-insensitive match is a match of the lower-case
    texts), else ``None``."""
    return text.lower() if text.isascii() else None


@functools.lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern:
    """``name`` as a whole word or phrase, any case (the pattern ``re.finditer`` was given per clause before)."""
    return re.compile(_BOUND_L + re.escape(name) + _BOUND_R, flags=re.I)


def _spans(clause: str, names: _Names) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, feature) mentions in ``clause``; longer names win.

    A name is looked for only where it can match: when both it and the clause are ASCII, a case-insensitive
    match needs the lower-case name inside the lower-case clause (a plain substring test, much cheaper than the
    pattern); otherwise the pattern always runs."""
    known = names.spans.get(clause)
    if known is not None:
        return known
    lowered = _ascii_lower(clause)
    candidates = []
    for feature, patterns in names.patterns:
        for lower_name, name in patterns:
            if lowered is not None and lower_name is not None and lower_name not in lowered:
                continue
            for m in _name_pattern(name).finditer(clause):
                candidates.append((m.start(), m.end(), feature))
    candidates.sort(key=lambda c: (-(c[1] - c[0]), c[0]))
    taken: list[tuple[int, int, str]] = []
    for c in candidates:
        if all(c[1] <= t[0] or c[0] >= t[1] for t in taken):
            taken.append(c)
    names.spans[clause] = taken = sorted(taken)
    return taken


def _masked(clause: str, names: _Names) -> str:
    """The clause with feature names blanked (a description may contain a direction word)."""
    out = clause
    for start, end, _ in reversed(_spans(clause, names)):
        out = out[:start] + " " * (end - start) + out[end:]
    return out


def _sign_for(clauses, clause_signs, ci, clause, spans, k, names) -> int | None:
    """Direction of the k-th mention: a phrase after it (before the next mention) in its clause, else the
    clause's own phrase, else the previous then the next clause of the sentence."""
    seg_end = spans[k + 1][0] if k + 1 < len(spans) else len(clause)
    own = direction(_masked(clause[spans[k][1]:seg_end], names).lower())
    if own is not None:
        return own
    if clause_signs[ci] is not None:
        return clause_signs[ci]
    for j in list(range(ci - 1, -1, -1)) + list(range(ci + 1, len(clauses))):
        if clause_signs[j] is not None:
            return clause_signs[j]
    return None


def _stated_value(segment: str, feature: str, categories: dict[str, list[str]]) -> str | None:
    labels = sorted(categories.get(feature, []), key=len, reverse=True)
    hits = []
    lowered = _ascii_lower(segment)
    for label in labels:
        short = len(label) <= 2  # matched as written; a longer label in any case
        # a label the segment does not hold cannot match: skipped before its pattern is built (in any case only
        # when both are ASCII, where a case-insensitive match is a match of the lower-case texts)
        if short and label not in segment:
            continue
        if not short and lowered is not None and label.isascii() and label.lower() not in lowered:
            continue
        flags = 0 if short else re.I
        m = re.search(_BOUND_L + re.escape(label) + _BOUND_R, segment, flags=flags)
        if m:
            hits.append((m.start(), -len(label), label))
    if hits:
        return min(hits)[2]
    if re.search(_BOUND_L + "missing" + _BOUND_R, segment, flags=re.I):
        return "missing"
    m = _NUMBER.search(segment)
    return m.group(0) if m else None
