"""The configuration reference documents every config key with its real default."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel

from hexeval_engine.config.schema import HexevalConfig
from hexeval_ui.docs_view import ORDER, load_docs

ROOT = Path(__file__).resolve().parents[1]


def _leaves(model: type[BaseModel], prefix: str = ""):
    for name, field in model.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from _leaves(ann, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", field.get_default(call_default_factory=True)


def _documented() -> dict[str, str]:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    pattern = r"^\| `([a-z_.]+)` \| `([^`]*)` \|"
    return {m.group(1): m.group(2) for m in re.finditer(pattern, text, flags=re.M)}


def test_every_config_key_is_documented_with_its_default():
    documented = _documented()
    for key, default in _leaves(HexevalConfig):
        assert key in documented, f"{key} is missing from docs/configuration.md"
        assert json.loads(documented[key]) == json.loads(json.dumps(default)), f"default of {key}"


def test_no_documented_key_is_unknown_to_the_schema():
    known = {key for key, _ in _leaves(HexevalConfig)}
    assert set(_documented()) <= known


def test_docs_are_listed_in_reading_order(tmp_path):
    for name in ("safety", "zeta_notes", "how_it_works", "configuration"):
        (tmp_path / f"{name}.md").write_text(f"# Title of {name}\n\nBody.\n", encoding="utf-8")
    docs = load_docs(tmp_path)
    assert [d.stem for d in docs] == ["how_it_works", "configuration", "safety", "zeta_notes"]
    assert docs[0].title == "Title of how_it_works" and docs[0].body.startswith("Body.")
    assert ORDER[0] == "how_it_works"


def test_the_docs_say_where_the_pages_live_and_why():
    """The pages live in ``app_pages/``; no doc or entry file still sends a reader to a ``pages/`` folder."""
    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "a folder named `pages/` next to `app.py` makes a fresh" in readme.replace("\n", " ")
    assert not (root / "pages").exists()
    for entry in ("app.py", "study_app.py"):
        text = (root / entry).read_text(encoding="utf-8")
        assert not re.search(r"(?<!app_)\bpages/", text), entry


def test_how_it_works_describes_the_current_pipeline_not_the_old_technical_plus_ratings_score():
    """The earlier walk: "1. Technical evidence … 3. Recommendation: combines the technical scores with that
    persona's ratings" described a pipeline HEXEval no longer runs (picks are measured on the questions)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "how_it_works.md").read_text(encoding="utf-8")
    assert "## 1. Technical evidence" not in text and "combines the technical scores with that" not in text
    for question in ("**why**", "**what if**", "**will it hold**", "**how to change it**"):
        assert question in text
    assert "never decide a pick" in text and "skill over no explanation" in text.lower()
