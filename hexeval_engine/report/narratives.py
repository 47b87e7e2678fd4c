"""The HTML report's narratives section: faithfulness per narrator, the manipulation check, examples.

Every value passes through :func:`~hexeval_engine.report.sections.esc`.
"""

from __future__ import annotations

import math

import pandas as pd

from ..config.schema import HexevalConfig
from ..narratives.faithfulness import NARRATIVE_METRICS
from ..narratives.summary import narrative_summary
from ..narratives.wording import AUDIENCE_LABELS
from .sections import esc

_NAMES = {"rank_agreement": "Rank agreement", "sign_agreement": "Direction agreement",
          "value_agreement": "Value agreement", "top_n_mentioned": "Top features mentioned",
          "hallucinated": "Features not in the table"}


def narratives_section(run) -> str:
    """The section for ``run.narratives`` (an empty string when the run made no narratives)."""
    table = getattr(run, "narratives", None)
    if table is None or len(table) == 0:
        return ""
    summary = narrative_summary(table, HexevalConfig.model_validate((run.manifest or {}).get("config") or {}))
    parts = ["<section><h2>Narratives</h2>",
             "<p>The source attributions told as a short story and read back to check that the story matches "
             "the model: the rank and direction it gives each feature and the values it states. A narrative "
             "whose rank or direction agreement is below the threshold is <strong>flagged</strong> and cannot be "
             "recommended. The manipulation check narrates attributions shuffled among the top features; the "
             "share of those the checks flag is the true-negative rate.</p>"]
    for narrator, s in summary.items():
        parts.append(_narrator_table(narrator, s, table))
    parts.append(_examples(table))
    parts.append("</section>")
    return "".join(parts)


def _narrator_table(narrator: str, s: dict, table: pd.DataFrame) -> str:
    label = "Template narrator (built-in, no LLM)" if narrator == "template" else f"LLM narrator ({s['narrator_model']})"
    rows = []
    for name, spec in NARRATIVE_METRICS.items():
        m = s["metrics"][name]
        ci = "" if math.isnan(m["ci_low"]) else f" ({m['ci_low']:.2f} – {m['ci_high']:.2f})"
        value = "–" if math.isnan(m["mean"]) else f"{m['mean']:.2f}{ci}"
        arrow = "↑" if spec.direction == "higher" else "↓"
        rows.append(f"<tr><th>{esc(_NAMES[name])} {arrow}</th><td>{esc(value)}</td><td>{m['n']}</td>"
                    f"<td>{esc(spec.meaning)}</td></tr>")
    man = s["manipulation"]
    check = (f"{man['flagged']} of {man['n']} manipulated narratives flagged (true-negative rate "
             f"{man['true_negative_rate']:.0%})" if man else "not run")
    verdict = "can be recommended" if s["recommendable"] else "cannot be recommended"
    return (f"<h3>{esc(label)}</h3><p>{s['n']} narratives, {s['n_flagged']} flagged, {s['n_failed']} failed. "
            f"Manipulation check: {esc(check)}. This narrator {verdict}: {esc(s['reason'])}.</p>"
            "<table><thead><tr><th>Measure</th><th>Mean (95% interval)</th><th>n</th><th>Meaning</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _examples(table: pd.DataFrame) -> str:
    real = table[~table["manipulated"].astype(bool) & (table["error"].fillna("") == "")]
    out = []
    for audience, group in real.groupby("audience", sort=False):
        row = group.iloc[0]
        flag = (f"<p class='flagged'><strong>Flagged:</strong> {esc(row['flag_reason'])}</p>"
                if bool(row["flagged"]) else "")
        metrics = ", ".join(f"{_NAMES[k].lower()} {row[k]:.2f}" for k in ("rank_agreement", "sign_agreement",
                                                                          "value_agreement", "top_n_mentioned")
                            if not pd.isna(row[k]))
        out.append(f"<h3>Example for {esc(AUDIENCE_LABELS.get(audience, audience))} (case {int(row['instance_id'])})"
                   f"</h3><blockquote>{esc(row['text'])}</blockquote>{flag}<p class='muted'>{esc(metrics)}</p>")
    flagged = real[real["flagged"].astype(bool)]
    if len(flagged):
        items = "".join(f"<li>Case {int(r.instance_id)}, {esc(r.audience)}: {esc(r.flag_reason)}</li>"
                        for r in flagged.itertuples())
        out.append(f"<h3>Flagged narratives</h3><ul>{items}</ul>")
    return "".join(out)
