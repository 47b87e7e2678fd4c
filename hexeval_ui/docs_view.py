"""Documentation from the markdown files in ``docs/``, in reading order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hexeval_engine.paths import project_root

# Reading order; any other docs/*.md follow alphabetically.
ORDER = ("how_it_works", "metrics", "recommendations", "narratives", "simulated_rater", "studies", "multiclass",
         "configuration", "plugins", "safety")
#: A tab's name: a few words that fit a tab bar (the document's full title heads the tab). Other files: their title.
TAB_NAMES = {"how_it_works": "How it works", "metrics": "Metrics", "recommendations": "Recommendations",
             "narratives": "Narratives", "simulated_rater": "Simulated rater", "studies": "Studies with people",
             "multiclass": "Multi-class and regression", "configuration": "Configuration",
             "plugins": "Your own explainer", "safety": "Safety"}


@dataclass(frozen=True)
class Doc:
    stem: str
    title: str
    body: str  # markdown without the title line

    @property
    def tab(self) -> str:
        """The tab's name (:data:`TAB_NAMES`), the title for a file not listed there."""
        return TAB_NAMES.get(self.stem, self.title)


def docs_dir() -> Path:
    return project_root() / "docs"


def load_docs(folder: Path | None = None) -> list[Doc]:
    folder = folder or docs_dir()
    files = sorted(folder.glob("*.md"), key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else len(ORDER), p.stem))
    return [_read(p) for p in files]


def _read(path: Path) -> Doc:
    text = path.read_text(encoding="utf-8")
    first, _, rest = text.partition("\n")
    if first.startswith("# "):
        return Doc(path.stem, first[2:].strip(), rest.lstrip("\n"))
    return Doc(path.stem, path.stem.replace("_", " ").capitalize(), text)
