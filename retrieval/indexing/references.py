"""Resolve a project's stored imports and calls to the symbols it defines: `(:__Document__)-[:REFERS_TO]->(:Symbol)`.

Why at the end of a run, over the whole project: an import resolves only against files that exist, and the
file it names may be added, changed or deleted in a later run than the importer. Only references that land
inside the repository are kept (`import json` refers to nothing unless the repository has its own `json.py`).

Python: `import a.b`, `from a.b import c` and relative imports, with a module found by the longest run of
trailing path parts (`retrieval.store.base` -> `.../retrieval/store/base.py` or `.../base/__init__.py`);
JavaScript/TypeScript: relative specifiers (`./util`, `../lib`) with the usual extensions and `index` files.
A call `alias.name()` through an imported module or class refers to that definition.
"""

from __future__ import annotations

import json
import posixpath
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from retrieval.indexing import languages

_PY_SUFFIXES = (".py", ".pyi")
_JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


@dataclass(frozen=True)
class Referrer:
    """A stored code document: its id, path and the `references` JSON written with it."""

    document_id: str
    path: str
    references: str


class _Index:
    """Code files by path and by Python module name, with the definitions each holds."""

    def __init__(self, paths: Iterable[str], definitions: dict[str, set[str]]) -> None:
        self.paths = set(paths)
        self.definitions = definitions
        self.modules: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.paths, key=lambda p: (p.count("/"), p)):
            if path.endswith(_PY_SUFFIXES):
                parts = posixpath.splitext(path)[0].split("/")
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                for k in range(1, len(parts) + 1):
                    self.modules[".".join(parts[-k:])].append(path)

    def python(self, module: str, importer: str) -> str | None:
        """The file of a Python module named in `importer` (absolute or relative), or None outside the repo."""
        level = len(module) - len(module.lstrip("."))
        name = module[level:]
        if not level:
            found = self.modules.get(name)
            return found[0] if found else None  # the shallowest match: closest to the repository root
        base = posixpath.dirname(importer).split("/")
        base = base[: len(base) - (level - 1)] if level > 1 else base
        stem = "/".join([*base, *name.split(".")]) if name else "/".join(base)
        for candidate in (*(stem + s for s in _PY_SUFFIXES), f"{stem}/__init__.py"):
            if candidate in self.paths:
                return candidate
        return None

    def javascript(self, specifier: str, importer: str) -> str | None:
        if not specifier.startswith("."):
            return None  # a package from node_modules or an alias: outside the repository
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
        candidates = [stem, *(stem + e for e in _JS_EXTENSIONS), *(f"{stem}/index{e}" for e in _JS_EXTENSIONS)]
        return next((c for c in candidates if c in self.paths), None)

    def module(self, spec: str, importer: str) -> str | None:
        language = languages.language(importer)
        return self.python(spec, importer) if language == "python" else self.javascript(spec, importer)


def resolve(referrers: list[Referrer], definitions: dict[str, set[str]]) -> set[tuple[str, str, str | None]]:
    """(document id, target path, target definition or None for the module itself) for every resolved reference.

    `definitions` maps each code file's path to the qualified names it defines.
    """
    index = _Index(definitions, definitions)
    found: set[tuple[str, str, str | None]] = set()
    for doc in referrers:
        try:
            refs = json.loads(doc.references)
        except ValueError:
            continue
        bound: dict[str, tuple[str, str | None]] = {}  # local name -> (file, definition) it stands for
        for module, names, alias in refs.get("imports", []):
            target = index.module(module, doc.path)
            if target is not None and alias:
                bound[alias] = (target, None)
            if target is not None and not names:
                found.add((doc.document_id, target, None))
            for local, name in names:
                member = _member(index, target, module, name, doc.path)
                if member is not None:
                    bound[local] = member
                    found.add((doc.document_id, *member))
        for call in refs.get("calls", []):
            head, _, attr = call.partition(".")
            if head not in bound:
                continue
            path, definition = bound[head]
            qualified = f"{definition}.{attr}" if definition else attr
            if qualified in definitions.get(path, ()):
                found.add((doc.document_id, path, qualified))
    own = {doc.document_id: doc.path for doc in referrers}
    return {ref for ref in found if ref[1] != own[ref[0]]}  # a file's own definitions are DEFINES, not REFERS_TO


def _member(index: _Index, target: str | None, module: str, name: str, importer: str) -> tuple[str, str | None] | None:
    """What `from module import name` names: a definition of the module, a submodule, or the module itself.

    The package itself may be absent (an empty `__init__.py` is not indexed) while its submodule is there.
    """
    if target is not None and name in index.definitions.get(target, ()):
        return target, name
    if languages.language(importer) == "python":
        sub = index.python(f"{module}.{name}" if module.strip(".") else module + name, importer)
        if sub is not None:
            return sub, None
    return (target, None) if target is not None else None
