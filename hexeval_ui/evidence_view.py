"""The evidence behind every recommendation, where people read it: run warnings, the comparison with the
random baseline, the sanity checks and the paired comparisons of a stakeholder's card."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from hexeval_engine.recommend.wording import p_words
from hexeval_engine.report.warnings import run_warnings as recorded_warnings
from hexeval_engine.vocabulary import plural, signed

from .components import section

_YES, _NO = "yes", "no"


def run_warnings(run) -> list[dict]:
    """The run's warnings (``model_has_no_signal`` …), from the manifest or the recommendations (the
    report reads the same list)."""
    return recorded_warnings(getattr(run, "manifest", None), getattr(run, "recommendations", None))


def render_warnings(run) -> None:
    """Each warning as a banner above the results: an error when it blocks the recommendations."""
    for w in run_warnings(run):
        if w.get("severity") == "error":
            st.error(w["message"], icon=":material/report:")
        else:
            st.warning(w["message"], icon=":material/warning:")


def _num(x, digits: int = 2) -> str:
    return "–" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{digits}f}"


def _p(x) -> str:
    """A p-value as people write it: ``< 0.001`` rather than ``0.000``."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return "< 0.001" if x < 0.001 else f"{x:.3f}"


def _p_holm(comparison: dict) -> str:
    """A comparison's corrected p-value with its relation (``= 0.012``, ``≤ 0.003``, ``< 0.001``; ``= –`` without
    one)."""
    p = comparison.get("p_holm")
    if p is None or (isinstance(p, float) and not math.isfinite(p)):
        return "= –"
    return " ".join(p_words(comparison))


def _signed_interval(low, high) -> str:
    return "–" if low is None or high is None else f"{signed(low)} to {signed(high)}"


_QUESTION_HEADERS = {"why": "Why", "what_if": "What if", "will_it_hold": "Will it hold",
                     "how_to_change": "How to change it"}


def question_table(recs: dict) -> pd.DataFrame:
    """Per method: its skill on each question over no explanation (mean [interval]), ✓ where it beats Random."""
    rows = []
    for method, questions in (recs.get("question_evidence") or {}).items():
        row = {"Method": method}
        for q, header in _QUESTION_HEADERS.items():
            v = questions.get(q) or {}
            vs = v.get("vs_random") or {}
            mark = " ✓" if vs.get("qualifies") else ""
            row[header] = (f"{signed(v['value'])} [{_signed_interval(v.get('ci_low'), v.get('ci_high'))}]{mark}"
                           if v.get("value") is not None else "–")
        row["Cases"] = max((int((questions.get(q) or {}).get("n") or 0) for q in _QUESTION_HEADERS), default=0)
        rows.append(row)
    return pd.DataFrame(rows)


def baseline_table(recs: dict) -> pd.DataFrame:
    """Per method: fidelity on the shared cases and its paired difference from the random baseline (runs made
    before the evidence per question)."""
    rows = []
    for method, t in (recs.get("technical") or {}).items():
        fid, vs = t.get("fidelity") or {}, t.get("vs_baseline") or {}
        is_baseline = t.get("family") == "baseline"
        source = (t.get("narrative") or {}).get("source")
        rows.append({
            "Method": f"{method} (retells {source}: its fidelity)" if source else method,
            "Fidelity (shared cases)": f"{_num(fid.get('value'))} [{_num(fid.get('ci_low'))}, {_num(fid.get('ci_high'))}]",
            "Cases": fid.get("n", 0),
            "Difference from random": "reference" if is_baseline else (
                f"{signed(vs['diff'])} [{_signed_interval(vs.get('ci_low'), vs.get('ci_high'))}]"
                if vs.get("diff") is not None else "not tested"),
            "Signed-rank p": "" if is_baseline else _p(vs.get("p_value")),
            "Beats random": "" if is_baseline else (
                "not tested" if vs.get("qualifies") is None else (_YES if vs["qualifies"] else _NO)),
        })
    return pd.DataFrame(rows)


def randomisation_table(checks: dict) -> pd.DataFrame:
    rows = []
    for method, r in ((checks.get("randomisation") or {}).get("methods") or {}).items():
        rows.append({"Method": method, "Rank similarity (real vs shuffled-label model)":
                     f"{_num(r.get('similarity'))} [{_num(r.get('ci_low'))}, {_num(r.get('ci_high'))}]",
                     "Cases": r.get("n", 0),
                     "Verdict": ("ignores the model (expected: it is random)" if method == "Random" and r.get("ignores_model")
                                 else "barely changes: may not reflect the model" if r.get("ignores_model")
                                 else "changes with the model")})
    return pd.DataFrame(rows)


def render_baseline_evidence(run) -> None:
    """Results → the random baseline and the sanity checks (model signal, model randomisation)."""
    recs = getattr(run, "recommendations", None) or {}
    checks = (getattr(run, "manifest", None) or {}).get("sanity_checks") or {}
    measured = recs.get("basis") == "questions"
    table = question_table(recs) if measured else baseline_table(recs)
    if table.empty and not checks:
        return
    n = recs.get("n_shared_cases")
    if measured:
        section("How well each method answers each question",
                "On the same cases, each method's **skill** over a reader who saw no explanation (0 = no help), every "
                "method cut to the same number of inputs on each case: *why* (the named inputs move the prediction), "
                "*what if* (a reader predicts nearby cases), *will it hold* (a reader knows when the answer stays), "
                "*how to change it* (the suggested change works). ✓: better than a **random** explanation on those "
                "cases (paired, Holm-corrected, interval above 0)." + (f" Shared cases: {n}." if n else ""))
    else:
        section("Compared with a random explainer",
                "Every method is measured on the same cases as a **random** explainer (feature weights drawn at "
                "random, never looking at the model). A method can only be recommended when its fidelity beats "
                "random on those cases: the paired difference's 95% interval lies above 0 and the signed-rank test "
                "agrees." + (f" Shared cases: {n}." if n else ""))
    if not table.empty:
        st.dataframe(table, hide_index=True, key="baseline_table")
    signal = checks.get("signal") or {}
    if signal and "r2" in signal:  # a regressor: compared with predicting the training mean
        st.caption(f"Model signal on {plural(int(signal.get('n_test', 0)), 'held-out row')}: R² {_num(signal.get('r2'))}; "
                   f"squared error smaller than predicting the training mean by {_num(signal.get('gain_over_mean'), 3)} "
                   f"per row [{_num(signal.get('gain_ci_low'), 3)}, {_num(signal.get('gain_ci_high'), 3)}]. "
                   + ("Usable signal." if signal.get("has_signal") else "No usable signal: nothing is recommended."))
    elif signal:
        auc = signal.get("roc_auc")
        kind = "macro one-vs-rest ROC-AUC" if "macro" in str(signal.get("criterion", "")) else "ROC-AUC"
        st.caption(f"Model signal on {plural(int(signal.get('n_test', 0)), 'held-out row')}: {kind} {_num(auc)} "
                   f"[{_num(signal.get('roc_auc_ci_low'))}, {_num(signal.get('roc_auc_ci_high'))}]; spread of predicted "
                   f"probabilities {_num(signal.get('probability_std'), 3)}. "
                   + ("Usable signal." if signal.get("has_signal") else "No usable signal: nothing is recommended."))
    rand = checks.get("randomisation") or {}
    if rand.get("status") == "done":
        st.markdown("**Does the explanation change when the model is replaced by one trained on shuffled labels?**")
        st.dataframe(randomisation_table(checks), hide_index=True, key="randomisation_table")
        for note in rand.get("notes") or []:
            st.caption(note)
        if rand.get("not_checked"):
            st.caption("Not re-run for this check (their searches take seconds per case): "
                       + ", ".join(rand["not_checked"]) + ".")
    elif rand.get("reason"):
        st.caption(f"Model-randomisation check not done: {rand['reason']}.")


def comparisons_table(entry: dict) -> pd.DataFrame:
    """A stakeholder's paired comparisons of the recommended method with each other qualifying method."""
    rows = []
    for c in entry.get("comparisons") or []:
        rows.append({"Versus": c.get("method"),
                     "Difference": _num(c.get("diff")) if c.get("diff") is None else f"{signed(c['diff'])}",
                     "95% interval": _signed_interval(c.get("ci_low"), c.get("ci_high")),
                     "Units": c.get("n", 0),  # paired cases
                     "p (Holm)": _p_holm(c).removeprefix("= ")})  # a cell: "0.012", "≤ 0.003", "< 0.001"
    return pd.DataFrame(rows)


def comparisons_title(entry: dict) -> str:
    """Whose comparisons the table shows: the score leader, which a tie-break may not have recommended."""
    recommended = entry.get("recommended_method")
    leader = next((c.get("vs") for c in entry.get("comparisons") or [] if c.get("vs")), None) or recommended
    title = f"Paired comparisons of {leader or 'the leader'}"
    if leader and recommended and leader != recommended:
        title += f" (the highest score; {recommended} is recommended on the tie-break)"
    return title


def comparisons_markdown(entry: dict) -> str:
    """The paired comparisons as wrapped list items (a table's last column is cut on a phone)."""
    lines = []
    for c, row in zip(entry.get("comparisons") or [], comparisons_table(entry).to_dict("records")):
        lines.append(f"- vs **{row['Versus']}**: difference {row['Difference']} (95% interval {row['95% interval']}), "
                     f"{plural(int(row['Units'] or 0), 'paired case')}, corrected p {_p_holm(c)}")
    return "\n".join(lines)


#: The statistical words of the comparisons, each in one sentence, where they are read.
COMPARISON_WORDS = ("Paired case: a case both methods explained and were measured on, so the difference compares "
                    "like with like. Corrected p: the chance of a difference at least this large "
                    "if the two methods were equally good, raised (Holm's correction) because several methods are "
                    "compared at once; below 0.05 is the usual bar. ≤: no resample reversed the difference, so p "
                    "is at most this, the smallest the 2,000 resamples can show. 95% interval: the range the true "
                    "difference plausibly lies in, from resampling the cases (bootstrap).")


def render_comparisons(entry: dict) -> None:
    body = comparisons_markdown(entry)
    if not body:
        return
    st.markdown(f"**{comparisons_title(entry)}** — same cases, difference in score")
    st.markdown(body)
    st.caption(COMPARISON_WORDS)