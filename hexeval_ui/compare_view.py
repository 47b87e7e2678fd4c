"""Compare two saved runs: the picker (exactly two runs, chosen explicitly), then the settings that
differ, the changed recommendations, and the metric and rating differences.

The differences and their uncertainty come from ``hexeval_engine.runs.compare``; here they are only
shown: green/red only where the engine calls a change better/worse (beyond both runs' intervals).
"""

from __future__ import annotations

import math
import re

import pandas as pd
import streamlit as st

from hexeval_engine import HexevalError
from hexeval_engine.runs import compare
from hexeval_engine.charts.labels import ARROWS, metric_title
from hexeval_engine.vocabulary import dimension_label, humanise, signed

from . import state
from .components import show_error

from .runs_view import load_cached

BETTER = "color: #1a7f37; font-weight: 600"
WORSE = "color: #cf222e; font-weight: 600"
_STYLE = {compare.BETTER: BETTER, compare.WORSE: WORSE}
#: The column holding both runs' values and how many cases or ratings each rests on: one column instead of four,
#: so the tables fit a phone's width.
AB = "Run A → run B"


def change_style(verdict: str) -> str:
    """CSS for a difference: green when the engine calls it better, red when worse, plain otherwise.

    Only a difference beyond both runs' uncertainty is better or worse (``runs.compare``).
    """
    return _STYLE.get(verdict, "")


def _fmt(value, pattern: str) -> str:
    """``value`` in ``pattern``; a signed pattern (``{:+.3f}``) writes a value that rounds to zero as ``0.000``,
    never ``-0.000``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    signed_digits = re.fullmatch(r"\{:\+\.(\d)f\}", pattern)
    return signed(value, int(signed_digits.group(1))) if signed_digits else pattern.format(value)


def _change(diff, low, high, verdict, pattern: str) -> str:
    if verdict == compare.ONE_SIDED:
        return "only in one run"
    if verdict == compare.TOO_FEW:
        return f"{_fmt(diff, pattern)} (too few ratings to tell)"
    interval = f" ({_fmt(low, pattern)} to {_fmt(high, pattern)})" if not pd.isna(low) and not pd.isna(high) else ""
    words = "" if verdict in (compare.BETTER, compare.WORSE) else ", within the uncertainty"
    return f"{_fmt(diff, pattern)}{interval}{words}"


def _metrics(diff: pd.DataFrame):
    t = diff.reset_index(drop=True)
    styles = [change_style(v) for v in t["verdict"]]
    shown = pd.DataFrame({
        "Method": t["method"],
        "Metric": [f"{metric_title(m)} {ARROWS.get(d, '')}" for m, d in zip(t["metric"], t["direction"])],
        AB: [f"{_fmt(x, '{:.3f}')} → {_fmt(y, '{:.3f}')} ({_fmt(m, '{:.0f}')} / {_fmt(n, '{:.0f}')} cases)"
             for x, y, m, n in zip(t["a"], t["b"], t["n_a"], t["n_b"])],
        "Difference (95% interval)": [_change(*r, "{:+.3f}") for r in zip(
            t["difference"], t["difference_low"], t["difference_high"], t["verdict"])]})
    return shown.style.apply(lambda col: styles if col.name.startswith("Difference") else [""] * len(col), axis=0)


def _ratings(diff: pd.DataFrame):
    t = diff.reset_index(drop=True)
    styles = [change_style(v) for v in t["verdict"]]
    shown = pd.DataFrame({
        "Persona": t["persona_role"], "Method": t["explanation_type"], "Rating": [dimension_label(d) for d in t["dimension"]],
        AB: [f"{_fmt(x, '{:.2f}')} → {_fmt(y, '{:.2f}')} ({m} / {n} ratings)"
             for x, y, m, n in zip(t["a"], t["b"], t["n_a"], t["n_b"])],
        "Difference (95% interval)": [_change(*r, "{:+.2f}") for r in zip(
            t["difference"], t["difference_low"], t["difference_high"], t["verdict"])]})
    return shown.style.apply(lambda col: styles if col.name.startswith("Difference") else [""] * len(col), axis=0)


def render_compare(path_a: str, path_b: str, *, labels: dict[str, str]) -> None:
    a, b = load_cached(path_a), load_cached(path_b)  # as the user chose them: differences are B − A
    result = compare.compare_runs(a, b)
    with st.container(border=True):
        st.markdown("#### Run A → run B")
        for warning in result["warnings"]:
            st.warning(warning, icon=":material/warning:")
        st.caption(f"A: {labels.get(str(a.path), a.run_id)}  ·  B: {labels.get(str(b.path), b.run_id)}. "
                   "Differences are B − A with a 95% interval. :green[Green] = better in the metric's direction, "
                   ":red[red] = worse — only when the change is larger than both runs' uncertainty; otherwise it "
                   "is within the uncertainty and not coloured.")
        st.markdown("**Settings that differ**")
        differing = settings_sentences(a.manifest, b.manifest)
        if not differing:
            st.caption("Both runs used the same settings, model and data.")
        else:  # sentences, not a "Section › setting" table: they read, and wrap on a phone
            st.markdown("\n".join(f"- {line}" for line in differing))
        changes = result["recommendation_changes"]
        st.markdown("**Recommendation changes**")
        if changes:
            st.markdown("\n".join(f"- **{who}**: {old or 'no method'} → **{new or 'no method'}**"
                                   for who, (old, new) in changes.items()))
        elif not (result["only_in_a"] or result["only_in_b"]):
            st.caption("Every stakeholder gets the same method in both runs.")
        else:
            st.caption("Every stakeholder present in both runs gets the same method in both.")
        for side, who in (("A", result["only_in_a"]), ("B", result["only_in_b"])):
            if who:
                st.markdown(f"Only in run {side}: " + ", ".join(who) + " (not compared).")
        st.markdown("**Technical metrics**")
        if result["metrics"].empty:
            st.caption("One of the runs has no metric table to compare.")
        else:
            st.table(_metrics(result["metrics"]), hide_index=True, border="horizontal")  # static: wraps on a phone
        st.markdown("**Mean persona ratings** (change on the 1–5 scale; bootstrap interval over each run's ratings)")
        if result["ratings"].empty:
            st.caption("One of the runs has no persona ratings.")
        else:
            st.table(_ratings(result["ratings"]), hide_index=True, border="horizontal")


#: Manifest entries compared besides the config (label -> path in the manifest).
_MANIFEST_SETTINGS = {"Persona rater": ("rater", "kind"), "Rater model": ("rater", "model"),
                      "Model file (sha256)": ("model", "sha256"), "Data file (sha256)": ("data", "sha256"),
                      "Cases sampled": ("counts", "sample_size")}


def _flatten(value, prefix: tuple = ()) -> dict[tuple, object]:
    if isinstance(value, dict):
        out = {}
        for key, inner in value.items():
            out.update(_flatten(inner, (*prefix, str(key))))
        return out
    return {prefix: value}


def _shown(value) -> str:
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value[:12] + "…"
    return str(value)


#: Config sections named as a reader names them in a sentence (others: their key in words).
_OWNERS = {"shap": "SHAP", "lime": "LIME", "anchor": "Anchor", "dice": "DiCE", "personas": "persona ratings",
           "narratives": "narratives", "examples": "examples", "data": "the data", "stability": "the stability check",
           "fidelity": "the fidelity check", "sanity": "the sanity checks", "parallel": "parallel work",
           "counterfactual": "the counterfactual checks", "recommendations": "the recommendations"}
#: Sections that only group others: a setting directly under them has no owner in its sentence.
_GROUPS = {"evaluation", "explainers"}


def _value_words(value, *, switch: bool) -> str:
    if value is None or value == "" or value == [] or value == {}:
        return "left at the default"
    if switch and isinstance(value, bool):
        return "turned on" if value else "turned off"
    return _shown(value)


def _setting_sentence(label: str, va, vb) -> str:
    """One differing setting as a sentence: ``The sample size is 5 in run A and 6 in run B.``"""
    a, b = _value_words(va, switch=False), _value_words(vb, switch=False)
    return f"{label[:1].upper() + label[1:]} is {a} in run A and {b} in run B."


def _config_sentence(path: tuple, va, vb) -> str:
    *parents, leaf = path
    owners = [_OWNERS.get(p, humanise(p).lower()) for p in parents if p not in _GROUPS]
    owner = owners[-1] if owners else ""
    if leaf == "enabled":
        subject = owner or "this part"
        verb = "are" if subject.endswith("s") and subject not in {"SHAP", "LIME", "DiCE"} else "is"
        return (f"{subject[:1].upper() + subject[1:]} {verb} {_value_words(va, switch=True)} in run A and "
                f"{_value_words(vb, switch=True)} in run B.")
    words = humanise(leaf).lower().replace("num ", "number of ")
    subject = f"the {words}" + (f" of {owner}" if owner else "")
    return _setting_sentence(subject, va, vb)


def settings_sentences(manifest_a: dict, manifest_b: dict) -> list[str]:
    """Every setting whose value differs between two runs, as a sentence a person reads ("LIME is turned on in
    run A and turned off in run B.").

    Compares the rater, the model and data hashes, the number of explained cases and the evaluation configs key
    by key (the domain's wording left out).
    """
    out = []
    for label, (section, key) in _MANIFEST_SETTINGS.items():
        va, vb = ((m.get(section) or {}).get(key) for m in (manifest_a, manifest_b))
        if va == vb:
            continue
        if key == "sha256":
            what = "model" if section == "model" else "data"
            out.append(f"The runs used different {what} files (fingerprints {_shown(va)} in run A and {_shown(vb)} "
                       "in run B).")
        elif key == "sample_size":
            out.append(f"Run A sampled {_value_words(va, switch=False)} cases to explain and run B "
                       f"{_value_words(vb, switch=False)}.")
        else:
            out.append(_setting_sentence(f"the {label.lower()}", va, vb))
    flat_a = _flatten((manifest_a or {}).get("config") or {})
    flat_b = _flatten((manifest_b or {}).get("config") or {})
    for path in sorted(set(flat_a) | set(flat_b)):
        if not path or path[0] == "domain":
            continue  # wording for people, not a setting of the evaluation
        va, vb = flat_a.get(path), flat_b.get(path)
        said = path == ("evaluation", "sample_size") and \
            [(m.get("counts") or {}).get("sample_size") for m in (manifest_a, manifest_b)] == [va, vb]
        if va != vb and not said:  # the explained cases, already said in their own sentence
            out.append(_config_sentence(path, va, vb))
    return out


def render_compare_picker(labels: dict[str, str], *, short_labels: dict[str, str] | None = None) -> None:
    """Pick exactly two saved runs (run A and run B, each chosen explicitly) and compare them.

    Parameters
    ----------
    labels : dict
        Run folder path -> the run's full label (newest first), shown under each picker and in the comparison.
    short_labels : dict, optional
        Run folder path -> the label inside a picker, short enough for a phone's width (a picker's value
        is one line and cannot wrap); default ``labels``.
    """
    if len(labels) < 2:
        st.caption("Save a second run to compare it with this one.")
        return
    paths = list(labels)
    short = short_labels or labels
    first, second, go = st.columns([5, 5, 2], vertical_alignment="bottom")
    run_a = first.selectbox("Run A", paths, index=None, format_func=short.get, key="compare_a",
                            placeholder="Choose the first run", help="Differences are shown as run B − run A.")
    if run_a is not None and short is not labels:
        first.caption(labels[run_a])
    run_b = second.selectbox("Run B", [p for p in paths if p != run_a], index=None, format_func=short.get,
                             key="compare_b", placeholder="Choose the second run")
    if run_b is not None and short is not labels:
        second.caption(labels[run_b])
    ready = run_a is not None and run_b is not None and run_a != run_b
    if go.button("Compare", icon=":material/compare_arrows:", disabled=not ready, width="stretch",
                 help=None if ready else "Choose two different runs first."):
        st.session_state[state.COMPARE] = (run_a, run_b)
    current = st.session_state[state.COMPARE]
    if current and all(p in labels for p in current):
        try:
            render_compare(*current, labels=labels)
        except HexevalError as err:
            show_error(err)
        st.button("Close comparison", icon=":material/close:", on_click=_close_compare, key="close_compare")


def _close_compare() -> None:
    st.session_state[state.COMPARE] = None
