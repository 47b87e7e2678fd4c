"""Extend a saved run: what to evaluate again, and how the new results join the run as an amendment.

``hexeval runs extend RUN --rater openai | --personas FILE | --narratives | --methods ... | --sample-size N``
(:func:`hexeval_engine.evaluate.extend_run`) evaluates the run's own model and data again with its settings plus
what was asked. Everything that did not change comes from the explanation store (the technical stage with the
same settings is reused whole, a new method's or a larger sample's explanation calls are computed and the others
reused), so only what depends on the addition is computed: the ratings, narratives or new explanations and the
recommendations. :func:`amend_with_extension` then writes every file whose content changed through
:func:`~hexeval_engine.runs.amendments.record_amendment` (so the tamper check reads them as HEXEval's own), keeping
each earlier version under ``extensions/<n>/`` (the earlier recommendations among them, for comparison) with
``extensions/<n>/extension.json`` saying what was asked, what was reused and computed, and the new rater and
settings.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from pathlib import Path

from ..errors import RunError
from ..paths import shown
from .amendments import record_amendment
from .inputs import data_file, matches_record, model_file
from .manifest import explanation_records
from .record import evaluation_tables
from .store import EXTENDED, TABLES, _json_default, load_run
from .tables import neutralise_cells

EXTENSIONS = "extensions"
METHOD_SECTIONS = {"SHAP": "shap", "LIME": "lime", "Anchor": "anchor", "DiCE": "dice"}


def extension_inputs(run_dir, *, rater=None, llm_model=None, llm_base_url=None, personas=None, narratives=None,
                     methods=None, sample_size=None) -> tuple[dict, list[str]]:
    """``evaluate``'s arguments for the run at ``run_dir`` with the additions asked, and the additions in words.

    Raises
    ------
    RunError
        The run was edited after it was saved, its model or CSV is gone or changed, or an addition is already
        there (a method it has, a sample no larger than its own).
    """
    run = load_run(run_dir)
    name = shown(run.run_id)
    if run.integrity.edited:
        raise RunError(f"Run {name} was edited after it was saved ({', '.join(run.integrity.edited)}), so it cannot "
                       "be extended: its results may not be what HEXEval computed. Run the evaluation again instead.")
    manifest = run.manifest
    model_path, data_path = model_file(run.path, manifest), data_file(run.path, manifest)
    for what, path, section in (("model file", model_path, manifest.get("model") or {}),
                                ("CSV", data_path, manifest.get("data") or {})):
        if path is None:
            raise RunError(f"Run {name} cannot be extended: its {what} ({shown(section.get('source'), 200)}) is gone. "
                           "Put it back where it was, or run the evaluation again.")
        if not matches_record(path, section):
            raise RunError(f"Run {name} cannot be extended: its {what} {shown(path, 200)} changed since the run. "
                           "Extending needs the same inputs; run the evaluation again instead.")
    config = copy.deepcopy(manifest["config"])
    config.pop("source", None)
    words = []
    settings = config.setdefault("personas", {})
    if rater:
        settings.update({"enabled": True, "rater": rater})
        if llm_model:
            settings["llm_model"] = llm_model
        if llm_base_url:
            settings["base_url"] = llm_base_url
        words.append(f"ratings by the {'LLM' if rater == 'openai' else 'built-in simulated'} rater"
                     + (f" ({llm_model or settings.get('llm_model', '')})" if rater == "openai" else ""))
    if personas:
        if not Path(personas).is_file():
            raise RunError(f"Persona file {shown(personas, 200)} does not exist. Give the path of a persona YAML file.")
        settings.update({"enabled": True, "file": str(Path(personas).resolve())})
        words.append(f"the personas of {Path(personas).name}")
    if narratives:
        if config.get("narratives", {}).get("enabled"):
            raise RunError(f"Run {name} already tells its explanations as narratives; nothing to add.")
        config.setdefault("narratives", {})["enabled"] = True
        words.append("narratives")
    explainers = config.setdefault("evaluation", {}).setdefault("explainers", {})
    for method in methods or []:
        section = explainers.setdefault(METHOD_SECTIONS[method], {})
        if section.get("enabled", True) and method in set(run.technical_metrics["method"]):
            raise RunError(f"Run {name} already has {method}; nothing to add. Methods it has: "
                           f"{', '.join(run.technical_metrics['method'])}.")
        section["enabled"] = True
        words.append(f"the method {method}")
    if sample_size is not None:
        now = int(config["evaluation"].get("sample_size", 0))
        if sample_size <= now:
            raise RunError(f"Run {name} already evaluates {now} cases; --sample-size adds cases, so give more than "
                           f"{now}.")
        config["evaluation"]["sample_size"] = int(sample_size)
        words.append(f"{sample_size - now} more cases ({sample_size} in all)")
    custom = str(manifest["usecase"]).startswith("custom-")
    arguments = {"model_path": str(model_path), "data_path": str(data_path),
                 "target_column": (manifest.get("data") or {}).get("summary", {}).get("target"),
                 "config_overrides": config, "usecase": None if custom else manifest["usecase"],
                 "output_dir": Path(run.path).parent.parent, "save": False, "reuse": True}
    return arguments, words


def amend_with_extension(run_dir, result, *, words: list[str]) -> dict:
    """Write the extended evaluation's files into the run as one amendment; returns what changed.

    Returns
    -------
    dict
        ``changed`` (files added or replaced), ``kept`` (the folder holding their earlier versions),
        ``what`` (the additions in words), ``recommendation_changes`` (``{role: (before, after)}``).
    """
    run_dir = Path(run_dir)
    new = _run_files(result)
    n = 1 + sum(1 for p in (run_dir / EXTENSIONS).glob("*") if p.is_dir()) if (run_dir / EXTENSIONS).is_dir() else 1
    kept = f"{EXTENSIONS}/{n}"
    files, rows, changed = {}, {}, []
    for name, content in new.items():
        path = run_dir / name
        before = path.read_bytes() if path.is_file() else None
        if before == content:
            continue
        changed.append(name)
        files[name] = content
        if before is not None:
            files[f"{kept}/{name}"] = before
    for key, table_name in TABLES.items():
        if table_name in changed:
            rows[key] = int(_rows(result, key))
    what = "; ".join(words)
    record = {"what": what, "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "changed": changed, "reuse": result.manifest.get("reuse", {}), "rater": result.manifest.get("rater"),
              "persona_stats": result.persona_stats, "config": result.manifest.get("config"),
              "warnings": result.warnings, "counts": result.manifest.get("counts")}
    files[f"{kept}/extension.json"] = json.dumps(record, indent=2, default=_json_default).encode("utf-8")
    extra = {"tables": rows, **{key: result.manifest.get(key) for key in EXTENDED}}
    record_amendment(run_dir, what=f"extended with {what}", files=files,
                     extra=json.loads(json.dumps(extra, default=_json_default)))  # plain JSON: the entry is signed
    before = json.loads(files.get(f"{kept}/recommendations.json", b"{}") or b"{}")
    return {"changed": changed, "kept": kept, "what": what,
            "recommendation_changes": _changes(before, result.recommendations)}


def _run_files(result) -> dict[str, bytes]:
    """The bytes each of the run's result files has for ``result`` (as :func:`~.store.save_run` writes them)."""
    files = {}
    tables = evaluation_tables(result.technical, result.persona_ratings, _narratives(result))
    for key, table in tables.items():
        if table is not None:
            files[TABLES[key]] = neutralise_cells(table).to_csv(index=False).encode("utf-8")
    files["recommendations.json"] = json.dumps(result.recommendations, indent=2, default=_json_default).encode("utf-8")
    records = explanation_records(result.technical, result.persona_ratings,
                                  only_shown=not result.config.output.save_explanations)
    files["explanations.jsonl"] = "".join(json.dumps(item, default=_json_default) + "\n"
                                          for item in records).encode("utf-8")
    return files


class _Told:
    """The narrative stage's tables as :func:`~.record.evaluation_tables` reads them."""

    def __init__(self, table, extractions):
        self.table, self.extractions = table, extractions


def _narratives(result):
    if result.narratives is None:
        return None
    return _Told(result.narratives, result.narrative_extractions)


def _rows(result, key: str) -> int:
    tables = evaluation_tables(result.technical, result.persona_ratings, _narratives(result))
    table = tables.get(key)
    return len(table) if table is not None else 0


def _changes(before: dict, after: dict) -> dict:
    """``{role: (method before, method after)}`` for each stakeholder whose recommended method changed."""
    old, new = before.get("stakeholders", {}) or {}, after.get("stakeholders", {}) or {}
    out = {}
    for role in sorted(set(old) | set(new)):
        a, b = (old.get(role) or {}).get("recommended_method"), (new.get(role) or {}).get("recommended_method")
        if a != b:
            out[role] = (a, b)
    return out

