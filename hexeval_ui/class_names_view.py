"""What an upload's coded classes mean: a name for each code of a classification target (``0`` -> "benign").

A target coded 0/1 (or 1/2/3) says nothing to a reader: texts would read "The model predicts: 1". Without
names the engine says "class 1 of diagnosis" (``data.outcome_wording``); with them every text, prompt and
report uses the names the user typed here. A binary target's two names become the domain's negative and
positive outcome; a multi-class target's names become ``data.class_names``.
"""

from __future__ import annotations

import streamlit as st

from hexeval_engine.data.outcome_wording import _is_code, outcome_words
from hexeval_engine.models.task import unnamed_class

from .upload import UploadCheck

#: Session keys of the first two name inputs (class 0's, then class 1's); :func:`name_key` gives every one.
KEYS = ("upload_class_name_0", "upload_class_name_1")
EXAMPLES = ("e.g. benign", "e.g. malignant")
PER_ROW = 3


def name_key(position: int) -> str:
    """The session key of the name input of the class at ``position`` among the target's sorted classes."""
    return f"upload_class_name_{position}"


def coded_classes(check: UploadCheck | None) -> tuple | None:
    """The classes of the upload's target when they are all bare numbers (binary or multi-class); else ``None``."""
    labels = tuple(check.class_labels or ()) if check is not None else ()
    return labels if len(labels) >= 2 and all(_is_code(label) for label in labels) else None


def render_class_names(check: UploadCheck) -> None:
    """An input naming each class of a coded target (nothing for a target with word labels or a regression)."""
    labels = coded_classes(check)
    if labels is None:
        return
    st.markdown("**What the classes mean** (optional)")
    unnamed = outcome_words(check.target, labels[-1]) if len(labels) == 2 else unnamed_class(check.target, labels[-1])
    st.caption(f"`{check.target}` holds codes. Name them and the explanations say so; otherwise they read "
               f"\u201c{unnamed}\u201d.")
    per_row = 2 if len(labels) == 2 else PER_ROW
    for start in range(0, len(labels), per_row):
        for column, position in zip(st.columns(per_row), range(start, min(start + per_row, len(labels)))):
            example = EXAMPLES[position] if len(labels) == 2 else None
            column.text_input(f"Class {labels[position]} means", key=name_key(position), max_chars=60,
                              placeholder=example)


def typed_names(check: UploadCheck | None, names: list[str] | None = None) -> dict[str, str]:
    """Class label (as text) -> the name typed for it, for the classes named (``{}`` when none or not coded).
    ``names`` (one per class, in order) defaults to what the inputs hold."""
    labels = coded_classes(check)
    if labels is None:
        return {}
    if names is None:
        names = [st.session_state.get(name_key(k)) for k in range(len(labels))]
    cleaned = [str(n or "").strip() for n in names]
    return {str(label): name for label, name in zip(labels, cleaned) if name}


def class_name_overrides(check: UploadCheck | None, names: list[str] | None = None) -> dict:
    """The config overrides for the names typed (``{}`` when none): a binary target's class 0 names the negative
    outcome and class 1 the positive one (``domain``); a multi-class target's names go to ``data.class_names``."""
    named = typed_names(check, names)
    if not named:
        return {}
    labels = coded_classes(check)
    if len(labels) > 2:
        return {"data": {"class_names": named}}
    fields = dict(zip((str(label) for label in labels), ("negative_outcome", "positive_outcome")))
    return {"domain": {fields[label]: name for label, name in named.items()}}


def classes_sentence(check: UploadCheck) -> str:
    """How the "Ready to run" line names the classes: `` (positive class = `1`, named “malignant”)`` for a binary
    target, `` (3 classes: `1` “Barolo”, `2`, `3`)`` for a multi-class one; "" for a regression."""
    labels = tuple(check.class_labels or ())
    if not labels:
        return ""
    named = typed_names(check)
    if len(labels) == 2:
        name = named.get(str(labels[1]))
        return f" (positive class = `{labels[1]}`{f', named “{name}”' if name else ''})"
    shown = [f"`{label}`" + (f" “{named[str(label)]}”" if str(label) in named else "") for label in labels]
    return f" ({len(labels)} classes: {', '.join(shown)})"
