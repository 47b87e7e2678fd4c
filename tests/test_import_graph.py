"""The engine's layout holds: no import circle, no stage importing a later one, a small root, lazy imports explained.

The graph is read from the source with :mod:`ast` (nothing is imported), so the test sees imports inside
functions too. A module importing ``a.b.c`` also depends on the packages ``a`` and ``a.b`` (their
``__init__`` runs first), except its own parents.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "hexeval_engine"
PACKAGE = ENGINE.name

#: Pipeline order (DESIGN.md, "Where the layout goes"): a module may import its own stage and earlier ranks only.
RANK = {
    "errors": 0,
    "safe_yaml": 1, "paths": 1, "vocabulary": 1, "plain_values": 1, "explanation": 1, "progress": 1,
    "paired_stats": 1, "ratings_summary": 1,
    "config": 2, "usecases": 3, "data": 4, "models": 5, "explainers": 6, "runtime": 6, "metrics": 7,
    "technical": 8, "personas": 8, "llm": 8, "narratives": 9, "raters": 10,
    "recommend": 11, "charts": 11, "runs": 11, "report": 12, "evaluate": 13, "study": 13, "cli": 14,
    "__main__": 15,
}
#: Known upward imports, listed rather than hidden (the LLM client merge of issue 18 removed the last one):
KNOWN_UPWARD: set[tuple[str, str]] = set()  # none left: the one LLM client no longer imports the rater prompt
MAX_ROOT_MODULES = 14


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def _imports(name: str, path: Path) -> list[tuple[str, ast.stmt, bool]]:
    """(imported engine module, import statement, inside a function) for every import in ``path``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_function = {id(node) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for node in ast.walk(fn)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            names = [f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for module in names:
            if module.split(".")[0] == PACKAGE:
                found.append((module, node, id(node) in in_function))
    return found


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        own_parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        for module, _, _ in _imports(name, path):
            parts = module.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in MODULES and prefix != name and prefix not in own_parents:
                    edges[name].add(prefix)
    return edges


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_among_engine_modules():
    assert _cycles(_edges()) == []


def test_no_stage_imports_a_later_stage():
    upward = sorted((a, b) for a, targets in _edges().items() for b in targets
                    if _stage(a) and _stage(b) and _stage(a) != _stage(b) and RANK[_stage(b)] > RANK[_stage(a)]
                    and (a, b) not in KNOWN_UPWARD)
    assert upward == []


def test_every_stage_and_root_module_has_a_rank():
    stages = {_stage(m) for m in MODULES if _stage(m)}
    assert stages <= set(RANK), f"new stage or root module without a place in the pipeline: {stages - set(RANK)}"


def test_engine_root_holds_at_most_14_modules():
    root = sorted(p.name for p in ENGINE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert "evaluate.py" in root
    assert len(root) <= MAX_ROOT_MODULES, root


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_inside_functions_say_why(name):
    path = MODULES[name]
    lines = path.read_text(encoding="utf-8").splitlines()
    unexplained = []
    for _, node, inside in _imports(name, path) + _library_imports(path):
        if inside and "#" not in lines[node.lineno - 1] and not lines[node.lineno - 2].strip().startswith("#"):
            unexplained.append(f"line {node.lineno}: {lines[node.lineno - 1].strip()}")
    assert unexplained == []


def _library_imports(path: Path) -> list[tuple[str, ast.stmt, bool]]:
    """Imports of other libraries inside functions (the engine's own ones come from :func:`_imports`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and not node.level):
                    module = node.names[0].name if isinstance(node, ast.Import) else node.module
                    if module.split(".")[0] == PACKAGE:
                        continue
                    found.append(("", node, True))
    return found
