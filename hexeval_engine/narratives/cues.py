"""The phrases that say which way a feature pushes, and which rank a narrative gives it.

Shared by the template narrator (which writes some of them) and the offline extractor (which
reads all of them), so what the one writes the other can read. Directions are relative to the
*predicted* outcome, as the attributions are.
"""

from __future__ import annotations

import re

#: Phrases meaning "pushes towards the predicted outcome".
TOWARDS = ("makes this prediction more likely", "makes the prediction more likely", "makes it more likely",
           "more likely", "supports this prediction", "supports the prediction", "supports it", "supports",
           "in favour of this prediction", "in favour of the prediction", "in favour of it", "in favor of",
           "pushes towards this prediction", "pushes towards the prediction", "pushes towards it",
           "points towards this prediction", "points towards it", "points towards", "points to this prediction",
           "adds weight to this prediction", "adds weight to it", "adds to the case for", "strengthens",
           "speaks for", "argues for", "backs this prediction", "backs it up", "in the same direction",
           "main reasons for this prediction", "reasons for this prediction")
#: Phrases meaning "pushes away from the predicted outcome".
AWAY = ("makes this prediction less likely", "makes the prediction less likely", "makes it less likely",
        "less likely", "counts against this prediction", "counts against the prediction", "counts against it",
        "counts against", "works against", "weighs against", "speaks against", "argues against",
        "points away from", "pushes away from", "pulls away from", "pointing the other way", "the other way",
        "goes against", "against this prediction", "against the prediction", "weakens", "reduces the case for",
        "in the opposite direction", "opposes")

_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5, "seventh": 6, "eighth": 7,
             "ninth": 8, "tenth": 9, "eleventh": 10, "twelfth": 11}
_TOP = ("most important", "most influential", "biggest", "strongest", "largest", "main factor", "top factor",
        "most weight", "greatest")
ORDINAL_WORDS = {0: "most important", **{v: k for k, v in _ORDINALS.items() if v > 0}}

#: (phrase, its pattern as a whole phrase, sign); a phrase that is not in the text at all is not searched for.
_CUE_RE = [(p, re.compile(rf"(?<![a-z]){re.escape(p)}(?![a-z])"), +1) for p in TOWARDS] + \
          [(p, re.compile(rf"(?<![a-z]){re.escape(p)}(?![a-z])"), -1) for p in AWAY]
_NEGATION = re.compile(r"(?<![a-z])(not|never|no longer|n't)\s+(?:\w+\s+){0,3}$")
_RANK_RE = [(re.compile(rf"(?<![a-z]){w}(?![a-z])"), r) for w, r in _ORDINALS.items()] + \
           [(re.compile(rf"(?<![a-z]){re.escape(w)}(?![a-z])"), 0) for w in _TOP] + \
           [(re.compile(r"^\s*#?(\d{1,2})[.)]\s"), None), (re.compile(r"(?<![\w.])(\d{1,2})(?:st|nd|rd|th)(?![a-z])"), None)]
_ORDINAL_THEN_TOP = re.compile(rf"(?<![a-z])({'|'.join(_ORDINALS)}|\d{{1,2}}(?:st|nd|rd|th))\s+"
                               rf"(?:{'|'.join(re.escape(w) for w in _TOP)})(?![a-z])")


def direction(text: str) -> int | None:
    """+1 / -1 for the first direction phrase in ``text`` (lower case), ``None`` when it has none.

    Longer phrases win over shorter ones starting at the same place; "not" up to three words before a
    phrase reverses it ("does not make it more likely").
    """
    found = []
    for phrase, pattern, sign in _CUE_RE:
        m = pattern.search(text) if phrase in text else None
        if m:
            found.append((m.start(), -(m.end() - m.start()), sign))
    if not found:
        return None
    start, _, sign = min(found)
    return -sign if _NEGATION.search(text[:start]) else sign


def rank_cue(text: str, *, first: bool = False) -> int | None:
    """The rank an ordinal phrase closest to the end of ``text`` gives (0 = most important), or ``None``.

    ``first``: the phrase closest to the start instead (for text that follows a mention); a list
    marker ("3.") counts only at the start of ``text``.
    """
    text = _ORDINAL_THEN_TOP.sub(lambda m: m.group(1), text)  # "second most important" is the second
    best = None
    for pattern, rank in _RANK_RE:
        for m in pattern.finditer(text):
            value = rank if rank is not None else int(m.group(1)) - 1
            where = -m.start() if first else m.end()
            if value >= 0 and (best is None or where > best[0]):
                best = (where, value)
    return best[1] if best else None
