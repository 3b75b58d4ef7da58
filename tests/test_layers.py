"""The package's layering holds: no import cycle inside `retrieval`, and no import from a lower layer to a higher one.

The layers are read from the table under "## Layers" in docs/architecture.md, top layer first, so the page a
newcomer reads and the rule this test enforces are one text. A module belongs to the layer of the longest prefix
listed for it; every module must belong to one, so a new top-level module or folder is placed on purpose.

Which imports count, read from the source with `ast` (nothing is imported):

- for cycles, every import that runs: at module level and inside functions. An import inside a function is a
  runtime dependency all the same; putting it there only hides a cycle from the interpreter's import order.
  Imports under `if TYPE_CHECKING:` never run, so they are left out: a type-only reference back is how two
  modules that name each other's classes in annotations stay acyclic.
- for layer direction, every import, `TYPE_CHECKING` ones too: naming a higher layer's type still makes the
  lower layer know about it.

Importing `a.b.c` also runs `a/b/__init__.py`; that implicit edge is not counted (a package's `__init__` that
imports its own modules would otherwise cycle with each of them, though Python handles that order).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ARCHITECTURE = REPO / "docs" / "architecture.md"


@dataclass(frozen=True)
class Edge:
    """One import: `source` imports `target`; `runtime` is False for an import under `if TYPE_CHECKING:`."""

    source: str
    target: str
    line: int
    runtime: bool


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package under `root` (the folder holding `package`), by dotted name."""
    found: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """Lines of the imports under `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}:
            lines |= {n.lineno for child in node.body for n in ast.walk(child) if isinstance(n, ast.stmt)}
    return lines


def imports(root: Path, package: str) -> list[Edge]:
    """Every import from one module of `package` to another, resolved to the module it loads."""
    known = modules(root, package)

    def owner(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[Edge, None] = {}  # one edge per import statement, in order
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        typing_only = _type_checking_lines(tree)
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                # `from pkg import mod` loads the module pkg.mod; `from mod import name` loads mod.
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            for target in targets:
                if target.split(".")[0] != package or (resolved := owner(target)) in (None, name):
                    continue
                assert resolved is not None
                edges[Edge(name, resolved, node.lineno, node.lineno not in typing_only)] = None
    return list(edges)


def cycles(edges: Iterable[Edge]) -> list[list[str]]:
    """The strongly connected groups of more than one module among the runtime imports (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        if e.runtime:
            graph.setdefault(e.source, set()).add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while (member := stack.pop()) != node:
                group.append(member)
            group.append(node)
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def declared_layers(text: str) -> list[tuple[str, list[str]]]:
    """The "## Layers" table of the architecture page: (layer, module prefixes) rows, top layer first."""
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "`" in line]
    return [(row.split("|")[1].strip(), re.findall(r"`([\w.]+)`", row.split("|")[2])) for row in rows]


def layer_of(module: str, layers: list[tuple[str, list[str]]]) -> int | None:
    """The index of the layer whose longest listed prefix covers `module` (0 is the top)."""
    best: tuple[int, int] | None = None
    for rank, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), rank)
    return None if best is None else best[1]


def upward(edges: Iterable[Edge], layers: list[tuple[str, list[str]]]) -> list[str]:
    """Imports from a lower layer to a higher one, as readable lines."""
    found = []
    for e in edges:
        source, target = layer_of(e.source, layers), layer_of(e.target, layers)
        if source is not None and target is not None and target < source:
            found.append(f"{e.source}:{e.line} ({layers[source][0]}) imports {e.target} ({layers[target][0]})")
    return found


LAYERS = declared_layers(ARCHITECTURE.read_text(encoding="utf-8"))
EDGES = imports(REPO, "retrieval")


def test_the_architecture_page_declares_the_layers() -> None:
    assert len(LAYERS) >= 5, LAYERS
    listed = [prefix for _, prefixes in LAYERS for prefix in prefixes]
    assert len(listed) == len(set(listed)), "a module prefix is listed in two layers"


def test_every_module_belongs_to_a_layer() -> None:
    unplaced = [m for m in modules(REPO, "retrieval") if m != "retrieval" and layer_of(m, LAYERS) is None]
    assert not unplaced, f"add these to the Layers table of docs/architecture.md: {unplaced}"


def test_no_import_cycle_inside_retrieval() -> None:
    assert not cycles(EDGES), f"import cycles: {cycles(EDGES)}"


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    assert not upward(EDGES, LAYERS), "\n".join(upward(EDGES, LAYERS))


def _package(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A synthetic package with a cycle through a function-level import and an upward import is caught; a type-only
    import back is not a cycle."""
    _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/top.py": "from pkg.low import helper\n",
            "pkg/low/__init__.py": "",
            "pkg/low/helper.py": "def f():\n    from pkg import top\n",
            "pkg/low/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.low import helper\n",
            "pkg/low/other.py": "from . import typed\n",
        },
    )
    edges = imports(tmp_path, "pkg")
    assert cycles(edges) == [["pkg.low.helper", "pkg.top"]]
    assert Edge("pkg.low.other", "pkg.low.typed", 1, True) in edges
    assert Edge("pkg.low.typed", "pkg.low.helper", 3, False) in edges
    table = "| layer | modules |\n|---|---|\n| top | `pkg.top` |\n| low | `pkg.low` |\n"
    layers = declared_layers(f"intro\n## Layers\n\n{table}")
    assert upward(edges, layers) == ["pkg.low.helper:2 (low) imports pkg.top (top)"]
