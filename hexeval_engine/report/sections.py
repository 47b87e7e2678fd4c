"""HTML sections of the run report. Every value from a run passes through :func:`esc`.

Each function takes parts of a loaded run and returns an HTML fragment (a string); the report
module puts them together with the charts and the inline plotly.js.
"""

from __future__ import annotations

import html
import math
import re
import os

import pandas as pd

from ..explanation import BASELINE_METHOD, NARRATIVE_METHOD
from ..ratings_summary import comment_groups
from ..vocabulary import dimension_label, format_number, humanise, plural, signed
from ..recommend.ratings_source import card_source, ratings_source
from ..recommend.wording import ALL_COMPONENTS, LEAD_LABELS, asks_sentence, component_label
from ..metrics.table import as_long, canonical_method, method_errors, method_order
from ..models.model_words import model_words
from ..charts.colors import method_color
from ..charts.labels import ARROWS, metric_help, metric_title
from ..charts.ratings import DIMENSIONS, usable_ratings


def esc(value) -> str:
    """HTML-escape any value (quotes included); None and NaN become an empty string."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return html.escape(str(value), quote=True)


def prose(value) -> str:
    """A sentence of the engine as HTML: escaped, its markdown emphasis (``*when does this answer stay the same*``)
    as italics instead of asterisks the reader would see."""
    return re.sub(r"\*([^*\n]+)\*", r"<em>\1</em>", esc(value))


def _fmt(value, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return esc(value)


#: Labels of manifest keys a reader meets in the configuration part; other keys are humanised.
KEY_LABELS = {
    "n_rows": "Rows", "n_columns": "Columns", "n_train": "Training rows", "n_test": "Test rows",
    "n_features": "Features", "duplicate_rows": "Duplicate rows", "duplicates_dropped": "Duplicates dropped",
    "duplicates_crossing_split": "Duplicates shared by training and test rows", "sha256": "Checksum (SHA-256)",
    "class_labels": "Class labels", "source": "File", "type": "Model type", "kind": "File format",
    "threshold": "Decision threshold", "sample_size": "Cases sampled", "model_rows": "Rows sent to the model",
    "ratings_ok": "Successful ratings", "ratings_failed": "Failed ratings", "per_method": "Per method",
    "total": "Total", "personas": "Persona ratings", "technical": "Technical evaluation", "load": "Loading",
    "validate": "Validation", "recommendations": "Recommendations", "target": "Target column",
    "categorical_features": "Categorical features", "numeric_features": "Numeric features",
    "missing_values": "Missing values", "implausible_values": "Implausible values",
}


def key_label(key) -> str:
    """A manifest key as a label (``duplicates_crossing_split`` -> a sentence-case phrase)."""
    return KEY_LABELS.get(str(key), humanise(key))


def plain_value(value, *, run_dir=None) -> str:
    """A manifest value as text for people: lists comma-separated, nothing as "none", booleans as
    yes/no, numbers at a sensible precision, file paths relative to the run folder (never absolute)."""
    if value is None or value == "" or (isinstance(value, (list, tuple, dict)) and not value):
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(plain_value(v, run_dir=run_dir) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{key_label(k)}: {plain_value(v, run_dir=run_dir)}" for k, v in value.items())
    return relative_path(str(value), run_dir)


def relative_path(text: str, run_dir=None) -> str:
    """An absolute path as a path inside the run folder, or else its file name alone (climbing out of
    the run folder would still tell the server's layout); other text unchanged."""
    if not os.path.isabs(text):
        return text
    if run_dir:
        try:
            inner = os.path.relpath(text, str(run_dir))
        except ValueError:  # another drive
            inner = ".."
        if not inner.startswith(".."):
            return inner
    return os.path.basename(text)


def _kv_table(items: dict, caption: str | None = None, *, run_dir=None) -> str:
    """A two-column table of a dict, keys as labels; a nested dict becomes a nested table."""
    rows = []
    for key, value in items.items():
        if isinstance(value, dict) and value:
            shown = _kv_table(value, run_dir=run_dir)
        else:
            shown = esc(plain_value(value, run_dir=run_dir))
        rows.append(f"<tr><th>{esc(key_label(key))}</th><td>{shown}</td></tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f"<table class='kv'>{cap}{''.join(rows)}</table>" if rows else "<p class='muted'>Not recorded.</p>"


def method_badge(method: str) -> str:
    return f"<span class='badge' style='border-color:{method_color(method)}'>{esc(method)}</span>"


def rater_note(manifest: dict, ratings: pd.DataFrame | None, recommendations: dict | None = None) -> str:
    """The prominent statement of who rated the explanations (simulated ratings say so; a run whose
    recommendations use a study's people says that, and who made the persona ratings beside them)."""
    source = ratings_source(manifest, recommendations)
    if source.kind == "people":
        return (f"<div class='rater-note people' role='note'><strong>Ratings by real people.</strong> "
                f"{esc(source.sentence)}</div>")
    rater = manifest.get("rater") or {}
    kind = rater.get("kind")
    kinds = set(ratings["rater"].dropna().astype(str)) if ratings is not None and "rater" in getattr(
        ratings, "columns", ()) else set()
    if kind == "simulated" or (kind is None and kinds == {"simulated"}):
        text = ("<strong>Simulated ratings.</strong> The persona ratings in this report were produced by HEXEval's "
                "built-in, rule-based <strong>simulated</strong> rater. No real stakeholder and no LLM rated these "
                "explanations; treat the ratings as a documented heuristic, not as user feedback.")
        css = "simulated"
    elif kind in (None, "none") or ratings is None or len(ratings) == 0:
        text = ("<strong>No persona ratings.</strong> Personas were not run (or every rating failed); the "
                "recommendations are a technical-only ranking.")
        css = "none"
    else:
        model = esc(rater.get("model") or "an unnamed model")
        via = f" via {esc(rater['base_url'])}" if rater.get("base_url") else ""
        text = (f"<strong>LLM-simulated personas.</strong> The persona ratings were written by the language model "
                f"<code>{model}</code>{via} role-playing each stakeholder (rater: {esc(kind)}). They are "
                "<strong>simulated</strong> stakeholders, not feedback from real people.")
        css = "llm"
    if kinds and kind and kinds != {kind} and kind != "none":
        text += f" The ratings table records the raters: {esc(', '.join(sorted(kinds)))}."
    return f"<div class='rater-note {css}' role='note'>{text}</div>"


def usecase_section(manifest: dict) -> str:
    domain = (manifest.get("config") or {}).get("domain") or {}
    task = manifest.get("task") or {}
    multi = task.get("kind") == "multiclass"
    fields = {
        "Use case": manifest.get("usecase_title") or manifest.get("usecase"),
        "Task": (f"{task.get('description')} ({', '.join(task.get('class_names', []))}): each case is explained "
                 "for the class the model predicts, against its strongest rival") if multi else None,
        "Domain": domain.get("name"), "Prediction task": domain.get("prediction_task"),
        "Positive outcome": domain.get("positive_outcome"), "Negative outcome": domain.get("negative_outcome"),
        "Stakeholder context": domain.get("stakeholder_context"), "End-user context": domain.get("end_user_context"),
    }
    return "<section><h3>Use case</h3>" + _kv_table({k: v for k, v in fields.items() if v}) + "</section>"


def model_data_section(manifest: dict, run_dir=None) -> str:
    model = manifest.get("model") or {}
    data = manifest.get("data") or {}
    model_items = {k: v for k, v in model.items() if k != "features"}
    if model.get("type"):
        model_items["type"] = model_words(model["type"])
    if model.get("features"):
        model_items["features"] = f"{len(model['features'])}: " + ", ".join(map(str, model["features"]))
    summary = {k: v for k, v in (data.get("summary") or {}).items()}
    if data.get("source") and "source" not in summary:
        summary["source"] = data["source"]
    parts = ["<section><h3>Model and data</h3><div class='grid'>",
             "<div><h4>Model</h4>", _kv_table(model_items, run_dir=run_dir), "</div>",
             "<div><h4>Data</h4>", _kv_table(summary, run_dir=run_dir), "</div></div>",
             "<h4>Data quality</h4>", _kv_table(data.get("quality") or {}, run_dir=run_dir),
             "<div class='grid'><div><h4>Counts</h4>", _kv_table(manifest.get("counts") or {}, run_dir=run_dir),
             "</div><div><h4>Timings (seconds)</h4>", _kv_table(manifest.get("timings") or {}, run_dir=run_dir),
             "</div></div></section>"]
    return "".join(parts)


def settings_section(manifest: dict) -> str:
    """The evaluation settings (every config section but the domain wording), as nested tables."""
    config = {k: v for k, v in (manifest.get("config") or {}).items() if k != "domain"}
    extra = {"seeds": manifest.get("seeds"), "library_versions": manifest.get("library_versions")}
    config.update({k: v for k, v in extra.items() if v})
    if not config:
        return ""
    return "<section><h3>Evaluation settings</h3>" + _kv_table(config) + "</section>"


def metrics_section(wide: pd.DataFrame | None, long: pd.DataFrame | None) -> str:
    """Metric x method table: value with its CI, direction arrow and meaning; failures listed."""
    table = as_long(long if long is not None and len(long) else wide)
    errors = method_errors(wide)
    parts = ["<section><h3>Technical metrics</h3>",
             "<p class='muted'>Mean over the explained instances with its bootstrap confidence interval. "
             "↑ higher is better, ↓ lower is better. † computed on a derived importance vector. "
             "– not applicable.</p>"]
    if table.empty:
        parts.append("<p class='muted'>No technical metrics were recorded.</p>")
    else:
        methods = method_order(set(table["method"]))
        head = "".join(f"<th>{method_badge(m)}</th>" for m in methods)
        rows = []
        for metric, group in table.groupby("metric", sort=False):
            direction = group["direction"].iloc[0]
            meaning = metric_help(metric, group["meaning"].dropna().iloc[0] if group["meaning"].notna().any() else "")
            cells = []
            for m in methods:
                r = group[group["method"] == m]
                if r.empty or pd.isna(r["value"].iloc[0]):
                    cells.append("<td class='na'>–</td>")
                    continue
                r = r.iloc[0]
                ci = (f" <span class='ci'>[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]</span>"
                      if pd.notna(r["ci_low"]) else "")
                mark = "†" if r["derived"] else ""
                cells.append(f"<td>{_fmt(float(r['value']))}{mark}{ci}</td>")
            rows.append(f"<tr><th title='{esc(meaning)}'>{esc(metric_title(metric))} "
                        f"<span class='arrow'>{ARROWS[direction]}</span><div class='meaning'>{esc(meaning)}</div>"
                        f"</th>{''.join(cells)}</tr>")
        parts.append(f"<table class='metrics'><thead><tr><th>Metric</th>{head}</tr></thead>"
                     f"<tbody>{''.join(rows)}</tbody></table>")
    for method, error in errors.items():
        parts.append(f"<p class='error'>{method_badge(method)} failed: {esc(error)}</p>")
    parts.append("</section>")
    return "".join(parts)


def _alternatives_table(stakeholder: dict, technical: dict) -> str:
    """Every method's rank, measured score and its skill on each question (× the question's weight)."""
    components = ALL_COMPONENTS
    head = "".join(f"<th>{esc(component_label(c))}</th>" for c in components)
    rows = []
    for alt in stakeholder["alternatives"]:
        cells = []
        for c in components:
            comp = (alt.get("components") or {}).get(c)
            if not comp or comp.get("value") is None:
                cells.append("<td class='na'>–</td>")
                continue
            value = f"{comp['on_five']:.1f} of 5" if c == "perceived" and comp.get("on_five") is not None \
                else f"{signed(comp['value'])}"
            cells.append(f"<td>{value} <span class='ci'>× {format_number(comp.get('weight') or 0, digits=3)}</span>"
                         f"<div class='meaning'>n = {int(comp.get('n') or 0)}</div></td>")
        interval = ("" if alt["score_ci_low"] is None or alt["score_ci_high"] is None else
                    f" <span class='ci'>[{signed(alt['score_ci_low'])}, {signed(alt['score_ci_high'])}]</span>")
        score = "–" if alt["score"] is None else f"{signed(alt['score'])}{interval}"
        notes = "".join(f"<div class='meaning'>{esc(n)}</div>"
                        for n in ([alt["status"]] if alt.get("status") else []) + alt["notes"])
        rows.append(f"<tr><td>{alt['rank']}</td><td>{method_badge(alt['method'])}{notes}</td><td>{score}</td>"
                    f"{''.join(cells)}</tr>")
    return (f"<table class='alts'><thead><tr><th>#</th><th>Method</th><th>Skill [interval]</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


#: Starts of notes addressed to whoever wrote the config (a key to rename), not to the report's reader.
OPERATOR_NOTES = ("recommendations.weights uses the older keys",)


def reader_notes(notes: list) -> list[str]:
    """The recommendation notes a report's reader should see: config housekeeping (:data:`OPERATOR_NOTES`) left out."""
    return [str(n) for n in notes if not str(n).startswith(OPERATOR_NOTES)]


def recommendations_section(recs: dict | None, manifest: dict | None = None) -> str:
    if not recs or not recs.get("stakeholders"):
        return ("<section><h2>Who should see what</h2><p class='muted'>No recommendations were recorded.</p>"
                "</section>")
    parts = ["<section><h2>Who should see what</h2>"]
    if recs.get("mode") == "technical_only":
        parts.append("<p class='rater-note none'><strong>Technical-only ranking.</strong> No persona ratings were "
                     "available, so these recommendations reflect the technical metrics alone.</p>")
    source = ratings_source(manifest or {}, recs)
    if recs.get("basis") == "questions":
        parts.append("<p class='muted'>Each stakeholder's pick is measured: how well each method answers the "
                     "questions that stakeholder asks (why, what if, will it hold, how to change it), as skill over a "
                     "reader who saw no explanation (0 = no help), weighed by the questions the persona declares. "
                     "Ratings are shown as perceived usefulness beside it.</p>")
    else:
        parts.append("<p class='muted'>This run was recommended with the older score (fidelity and ratings); run it "
                     "again for the per-question evidence.</p>")
    for stakeholder in recs["stakeholders"].values():
        lead = LEAD_LABELS.get(stakeholder["lead"], LEAD_LABELS["none"])
        method = stakeholder["recommended_method"]
        headline = (f"{method_badge(method)} <span class='score'>{signed(stakeholder['score'])}</span> "
                    f"<span class='lead {esc(stakeholder['lead'])}'>{esc(lead)}</span>") if method else ""
        extra = ""
        if stakeholder.get("decided_by"):
            extra += f"<p><strong>Why this pick:</strong> {prose(stakeholder['decided_by'])}.</p>"
        if stakeholder.get("gap"):
            extra += f"<p class='rater-note'><strong>Perceived and measured disagree.</strong> {prose(stakeholder['gap'])}.</p>"
        if stakeholder.get("questions"):
            extra += f"<p class='muted'>{esc(asks_sentence(stakeholder))}</p>"
        names = card_source(stakeholder, source)  # people counted by role, never named by their link's id
        parts.append(f"<div class='card'><h3>{esc(stakeholder['title'])}</h3>"
                     + (f"<p class='muted'>{esc(names)}</p>" if names else "")
                     + f"<p>{headline}</p>{extra}<p>{prose(stakeholder['reasoning'])}</p>"
                     + "<details class='fold'><summary>Every method's answers per question (click to open)</summary>"
                     + _alternatives_table(stakeholder, recs.get("technical") or {}) + "</details>"
                     + "".join(f"<p class='meaning'>{prose(str(n)[:1].upper() + str(n)[1:])}.</p>"
                               for n in stakeholder.get("notes", []))  # a sentence: capital and full stop
                     + "</div>")
    for item in recs.get("excluded_methods") or []:
        parts.append(f"<p class='error'>Excluded: {esc(item['reason'])}</p>")
    for note in reader_notes(recs.get("notes") or []):
        parts.append(f"<p class='meaning'>{esc(note)}</p>")
    normalisation = recs.get("normalisation") or {}
    rows = []
    for family, spec in normalisation.items():
        if isinstance(spec, dict):
            rows.extend(f"<tr><th>{esc(humanise(family))} methods</th><td>{esc(component_label(c))}</td><td>{esc(text)}</td></tr>"
                        for c, text in spec.items())
        else:
            rows.append(f"<tr><th>{esc(humanise(family))} ratings</th><td>Trust, satisfaction</td><td>{esc(spec)}</td></tr>")
    if rows:
        parts.append("<details><summary>How the scores are normalised</summary><table class='kv'>"
                     + "".join(rows) + "</table></details>")
    parts.append("</section>")
    return "".join(parts)


def ratings_section(ratings: pd.DataFrame | None) -> str:
    """Mean ratings per persona and method, then every comment (escaped) and every failure."""
    if ratings is None or len(ratings) == 0:
        return "<section><h3>Persona ratings</h3><p class='muted'>No persona ratings in this run.</p></section>"
    ok = usable_ratings(ratings)
    parts = ["<section><h3>Persona ratings</h3>"]
    role_col = "persona_role" if "persona_role" in ratings.columns else "persona_name"
    for role in sorted(ratings[role_col].dropna().astype(str).unique()):
        mine = ok[ok[role_col].astype(str) == role]
        names = ", ".join(sorted(ratings.loc[ratings[role_col].astype(str) == role, "persona_name"]
                                 .dropna().astype(str).unique()))
        parts.append(f"<div class='card'><h3>{esc(role)}</h3><p class='muted'>{esc(names)}</p>")
        if mine.empty:
            parts.append("<p class='muted'>No successful rating from this persona.</p>")
        else:
            head = "".join(f"<th>{esc(dimension_label(d))}</th>" for d in DIMENSIONS)
            rows = []
            for method in method_order(set(mine["method"])):
                means = mine.loc[mine["method"] == method, list(DIMENSIONS)].mean()
                rated = mine[mine["method"] == method]
                # words, not the statistician's "n=8": the cases rated (the ratings where no case is recorded)
                case = next((c for c in ("instance_index", "instance_id") if c in rated.columns), None)
                count = plural(int(rated[case].nunique()), "case") if case else plural(len(rated), "rating")
                rows.append(f"<tr><td>{method_badge(method)} <span class='ci'>{count}</span></td>"
                            + "".join(f"<td>{_fmt(float(means[d]), 1)}</td>" for d in DIMENSIONS) + "</tr>")
            parts.append(f"<table class='ratings'><thead><tr><th>Method</th>{head}</tr></thead>"
                         f"<tbody>{''.join(rows)}</tbody></table>")
            groups = comment_groups(mine)
            parts.append(f"<details class='comments'><summary>{esc(plural(len(groups), 'comment'))} of "
                         f"{esc(role)}, a method's identical comments once (click to open)</summary>"
                         "<ul class='comments'>")
            for g in groups.itertuples(index=False):
                cases = ", ".join(str(c) for c in g.cases)
                times = f" · {g.count}×" if g.count > 1 else ""
                parts.append(f"<li>{method_badge(g.method)} <span class='ci'>{esc(plural(len(g.cases), 'case'))} "
                             f"{esc(cases)}{esc(times)}</span> {esc(g.comment)}</li>")
            parts.append("</ul></details>")
        parts.append("</div>")
    if "status" in ratings.columns:
        failed = ratings[ratings["status"] != "ok"]
        if len(failed):
            parts.append(f"<details><summary>{esc(plural(len(failed), 'failed rating'))}</summary><ul>")
            for _, r in failed.iterrows():
                parts.append(f"<li>{esc(r.get(role_col))} · {esc(canonical_method(r['explanation_type']))}: "
                             f"{esc(r.get('error', ''))}</li>")
            parts.append("</ul></details>")
    parts.append("</section>")
    return "".join(parts)


def examples_section(explanations: list[dict] | None) -> str:
    """One explanation per method as the personas read it (the first one shown to them)."""
    shown = {}
    for item in explanations or []:
        method = item.get("method")
        if method not in (NARRATIVE_METHOD, BASELINE_METHOD) and method not in shown and item.get("text") and item.get("shown_to_personas", True):
            shown[method] = item
    if not shown:
        return ""
    parts = ["<section><h3>What the personas read</h3><p class='muted'>One example per method, in the plain "
             "language shown to the personas.</p><div class='grid'>"]
    for method in method_order(shown):
        item = shown[method]
        parts.append(f"<div class='card'><h3>{method_badge(method)} <span class='ci'>case "
                     f"{esc(item.get('instance_id'))}</span></h3><p class='example'>{esc(item['text'])}</p></div>")
    parts.append("</div></section>")
    return "".join(parts)
