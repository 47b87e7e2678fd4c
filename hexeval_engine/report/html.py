"""One self-contained HTML report of a saved run: opens offline, plotly.js embedded inline.

It reads top-down for a decision maker: the verdict line, the run's warnings (data quality and the
run's own, folded when there are many), a prominent note of who rated the explanations, then the
verdicts (who should see what, with reasons and alternatives), then the evidence (charts, technical
metrics with intervals and directions, persona ratings and comments, examples of what the personas
read), then the configuration (use case, model and data, evaluation settings). Keys are shown as
labels, file paths relative to the run folder, never absolute. Every value from the run is
HTML-escaped; the page loads nothing from the network and prints cleanly (print CSS).
"""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from .. import charts
from ..plain_values import show_time
from ..recommend.ratings_source import ratings_source
from ..recommend.verdict import clear_lead_rule, verdict_line
from .calibration import calibration_section
from .narratives import narratives_section
from .warnings import warnings_section
from .sections import (esc, examples_section, metrics_section, model_data_section, rater_note,
                              ratings_section, recommendations_section, settings_section, usecase_section)

#: Folded sections open for printing in browsers without ``::details-content`` (inline: the report is offline).
_PRINT_OPEN = ("<script>window.addEventListener('beforeprint',function(){document.querySelectorAll('details')"
               ".forEach(function(d){d.setAttribute('open','')});});"
               # a chart drawn while folded has no width: redraw it when its section opens
               "document.querySelectorAll('details').forEach(function(d){d.addEventListener('toggle',function(){"
               "d.querySelectorAll('.js-plotly-plot').forEach(function(p){Plotly.Plots.resize(p);});});});</script>")

_FIGURE_CONFIG = {"displaylogo": False, "responsive": True}

_CSS = """
:root { --bg: #ffffff; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --card: #f6f8fa;
        --warn-bg: #fff8c5; --warn-line: #d4a72c; --err: #cf222e; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0e1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --card: #161b22;
          --warn-bg: #3b2e00; --warn-line: #bb8009; --err: #ff7b72; }
}
body { background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
       max-width: 1200px; margin: 0 auto; padding: 24px; }
h1 { margin-bottom: 4px; } h2 { border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 40px; }
table { border-collapse: collapse; margin: 8px 0 16px; width: 100%; }
th, td { border: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { overflow-wrap: normal; word-break: normal; hyphens: manual; }  /* a header wraps between words, never inside one */
caption { text-align: left; color: var(--muted); }
.kv th { width: 28%; font-weight: 600; }
.muted, .meaning, .ci { color: var(--muted); } .meaning { font-size: 12px; font-weight: normal; }
.ci { font-size: 12px; } .na { color: var(--muted); text-align: center; }
.arrow { font-weight: bold; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 12px 0; }
.badge { display: inline-block; border: 2px solid; border-radius: 999px; padding: 0 8px; font-weight: 600;
         white-space: nowrap; overflow-wrap: normal; }  /* a method name never wraps mid-word ("Anch / or") */
.metrics thead th { min-width: 7em; }
.score { font-size: 20px; font-weight: 700; margin: 0 8px; }
.lead { border-radius: 4px; padding: 2px 6px; border: 1px solid var(--line); }
.lead.clear { border-color: #009E73; } .lead.close_call { border-color: var(--warn-line); }
.rater-note { background: var(--warn-bg); border: 2px solid var(--warn-line); border-radius: 8px;
              padding: 12px 16px; margin: 16px 0; font-size: 16px; }
.rater-note.people { background: var(--card); border-color: #009E73; }
.error { color: var(--err); }
.warnings { border-left: 4px solid var(--warn-line); padding: 2px 12px; margin: 12px 0; }
.warnings ul { margin: 4px 0; }
.verdict { font-size: 20px; border-left: 6px solid #0072B2; padding: 8px 14px; background: var(--card); margin: 16px 0 4px; }
details.comments > summary, details.fold > summary { cursor: pointer; color: var(--muted); margin: 12px 0; }
.example { white-space: pre-wrap; }
.chart { min-height: 420px; padding-top: 30px; }
.chart .modebar-container { top: -30px !important; }  /* Plotly's toolbar in its own strip, never over a title */
h2 { font-size: 1.5em; } h3 { margin-top: 28px; }
nav.toc { color: var(--muted); } nav.toc a { color: inherit; margin-right: 12px; }
.table-wrap { overflow-x: auto; }
@media (max-width: 700px) { body { padding: 12px; font-size: 14px; } th, td { padding: 4px; }
  table { display: block; overflow-x: auto; } }  /* a table wider than a phone scrolls instead of squeezing words */
@media print {
  :root { --bg: #ffffff; --fg: #000000; --muted: #444444; --line: #999999; --card: #ffffff; --warn-bg: #ffffff; }
  body { max-width: none; padding: 0; font-size: 11pt; }
  nav.toc, .modebar-container { display: none !important; }
  h2 { break-before: page; } header + .rater-note + section h2 { break-before: avoid; }
  .card, .chart, table, figure { break-inside: avoid; }
  details > summary { list-style: none; }
  details::details-content { content-visibility: visible; display: block; }  /* folded comments print open */
  a { color: inherit; text-decoration: none; }
}
"""


def _figure_html(fig: go.Figure | None, empty_message: str) -> str:
    if fig is None:
        return f"<p class='muted'>{esc(empty_message)}</p>"
    return "<div class='chart'>" + fig.to_html(full_html=False, include_plotlyjs=False,
                                                 config=_FIGURE_CONFIG) + "</div>"


def _charts_section(run) -> str:
    ratings = run.persona_ratings
    technical = run.technical_metrics_long if run.technical_metrics_long is not None and len(
        run.technical_metrics_long) else run.technical_metrics
    return "".join([
        "<section><h3>Charts</h3>",
        "<h4>Fidelity</h4>", _figure_html(charts.fidelity_chart(technical), "No fidelity values in this run."),
        "<h4>Parsimony</h4>", _figure_html(charts.parsimony_chart(technical), "No parsimony values in this run."),
        "<h4>Persona ratings</h4>",
        _figure_html(charts.ratings_summary_chart(ratings), "No persona ratings in this run."),
        _figure_html(charts.radar_chart(ratings), "No persona ratings for the radar chart."),
        "<h4>Combined scores</h4>",
        _figure_html(charts.score_heatmap(run.recommendations), "No recommendation scores in this run."),
        "</section>",
    ])


def _folded(title: str, html_part: str) -> str:
    """A part of the evidence folded (open on click; opened for printing), so the first screens answer."""
    if not html_part:
        return ""
    return f"<details class='fold'><summary><strong>{esc(title)}</strong> (click to open)</summary>{html_part}</details>"


def _verdict(run) -> str:
    """The answer on the first screen: each stakeholder's pick and its strength, and what "clear lead" means."""
    recs = run.recommendations or {}
    source = ratings_source(run.manifest or {}, recs)
    rule = clear_lead_rule(float(recs.get("confidence_level") or 0.95)).replace("**", "")
    line = verdict_line(recs, simulated=source.simulated, note=source.verdict_note)
    return (f"<p class='verdict'><strong>Verdict:</strong> {esc(line)}</p>"
            f"<p class='meaning'>{esc(rule)}</p>")


def _integrity_note(run) -> str:
    """A warning when the run's files changed since HEXEval wrote them, or when that cannot be verified (see
    runs.integrity and runs.signing); "" only for a run verified as written."""
    integrity = getattr(run, "integrity", None)
    if integrity is None or not integrity.warning:
        return ""
    if integrity.edited:
        head, text = "Warning.", integrity.warning
    else:
        head, text = "Not verifiable.", integrity.warning.removeprefix("Not verifiable: ")
        text = text[:1].upper() + text[1:]
    return f"<p class='rater-note' role='alert'><strong>{head}</strong> {esc(text)}</p>"


def render_report(run) -> str:
    """The report of ``run`` as one HTML document (a string).

    Parameters
    ----------
    run : RunData-like
        An object with ``manifest`` (dict), ``technical_metrics`` (wide DataFrame),
        ``technical_metrics_long`` (DataFrame, may be empty), ``persona_ratings`` (DataFrame or
        None), ``recommendations`` (dict), ``explanations`` (list of dicts) and ``path``, as
        :func:`hexeval_engine.runs.store.load_run` returns.

    Returns
    -------
    str
        A complete HTML document with plotly.js inline; it references no external resource.
    """
    manifest = run.manifest or {}
    title = f"HEXEval report — {manifest.get('usecase_title') or manifest.get('usecase', 'run')}"
    meta = f"Run of {esc(show_time(manifest.get('created', '')))} · {esc(manifest.get('status'))}"  # named by its time
    run_dir = getattr(run, "path", None)
    toc = ("<nav class='toc'><a href='#verdicts'>Who should see what</a><a href='#evidence'>Evidence</a>"
           "<a href='#configuration'>Configuration</a></nav>")
    body = "".join([
        f"<header><h1>{esc(title)}</h1><p class='muted'>{meta}</p>{toc}</header>",
        _integrity_note(run),  # before the verdict: an edited run's verdict cannot be trusted
        _verdict(run),
        warnings_section(manifest, run.recommendations),  # what the dashboard shows above the results
        rater_note(manifest, run.persona_ratings, run.recommendations),
        f"<div id='verdicts'>{recommendations_section(run.recommendations, manifest)}</div>",
        "<section id='evidence'><h2>Evidence</h2>",
        _folded("Charts", _charts_section(run)),
        _folded("Technical metrics", metrics_section(run.technical_metrics, run.technical_metrics_long)),
        ratings_section(run.persona_ratings),
        calibration_section(run_dir, run.recommendations),  # a study's people, when the run has them
        _folded("What the personas read", examples_section(getattr(run, "explanations", None))),
        _folded("Narratives", narratives_section(run)),
        "</section><section id='configuration'><h2>Configuration</h2>",
        _folded("Use case, model, data and settings", usecase_section(manifest) + model_data_section(manifest, run_dir)
                + settings_section(manifest)),
        "</section>",
        "<footer><p class='muted'>Generated by HEXEval. This file is self-contained and works offline. Run id "
        f"<code>{esc(manifest.get('run_id'))}</code>, for the command line (hexeval runs show).</p></footer>",
    ])
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{esc(title)}</title><style>{_CSS}</style>"
            f"<script type='text/javascript'>{get_plotlyjs()}</script></head>"
            f"<body>{body}{_PRINT_OPEN}</body></html>")


def write_report(run, path) -> Path:
    """Write the self-contained HTML report of ``run`` to ``path`` and return the path.

    Parameters
    ----------
    run : RunData-like
        See :func:`render_report`.
    path : str or Path
        The file to write; a directory gets ``report-<run_id>.html`` inside it. Parent folders
        are created.

    Returns
    -------
    Path
        The file written.
    """
    path = Path(path)
    if path.is_dir():
        path = path / f"report-{(run.manifest or {}).get('run_id', 'run')}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(run), encoding="utf-8")
    return path
