"""What an upload's coded classes mean: a name for each of a binary target's codes (``0`` -> "benign").

A target coded 0/1 says nothing to a reader: texts would read "The model predicts: 1". Without names the
engine says "class 1 of diagnosis" (``data.outcome_wording``); with them every text, prompt and report uses
the names the user typed here.
"""

from __future__ import annotations

import streamlit as st

from hexeval_engine.data.outcome_wording import _is_code, outcome_words

from .upload import UploadCheck

#: Session keys of the two name inputs (class 0's, then class 1's).
KEYS = ("upload_class_name_0", "upload_class_name_1")


def coded_classes(check: UploadCheck | None) -> tuple | None:
    """``(negative, positive)`` when the upload's target is binary and coded with bare numbers; else ``None``."""
    labels = tuple(check.class_labels or ()) if check is not None else ()
    return labels if len(labels) == 2 and all(_is_code(label) for label in labels) else None


def render_class_names(check: UploadCheck) -> None:
    """Two inputs naming the classes of a coded binary target (nothing for a target with word labels)."""
    labels = coded_classes(check)
    if labels is None:
        return
    st.markdown("**What the classes mean** (optional)")
    st.caption(f"`{check.target}` holds codes. Name them and the explanations say so; otherwise they read "
               f"\u201c{outcome_words(check.target, labels[1])}\u201d.")
    for column, key, label, example in zip(st.columns(2), KEYS, labels, ("e.g. benign", "e.g. malignant")):
        column.text_input(f"Class {label} means", key=key, max_chars=60, placeholder=example)


def class_name_overrides(check: UploadCheck | None, names: list[str] | None = None) -> dict:
    """The ``domain`` overrides for the names typed (``{}`` when none): class 0 names the negative outcome,
    class 1 the positive one. ``names`` defaults to what the two inputs hold."""
    if coded_classes(check) is None:
        return {}
    names = [str(n or "").strip() for n in (names if names is not None else [st.session_state.get(k) for k in KEYS])]
    words = {field: name for field, name in zip(("negative_outcome", "positive_outcome"), names) if name}
    return {"domain": words} if words else {}
