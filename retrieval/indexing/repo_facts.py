"""What one repository file contributes to the graph besides its chunks: the symbols it defines, the imports
and calls it makes (resolved later, against the whole project), the links it names and its MCP metadata."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from retrieval.indexing import languages, links, mcp_manifest
from retrieval.indexing.code_outline import Outline
from retrieval.indexing.mcp_manifest import McpItem


@dataclass(frozen=True)
class SymbolFact:
    name: str
    kind: str
    line: int
    end_line: int


@dataclass
class DocumentFacts:
    symbols: list[SymbolFact] = field(default_factory=list)
    #: The outline's imports and calls as JSON, stored on the document: resolution needs the whole project,
    #: and a file added later can resolve an import of a file that did not change.
    references: str = ""
    urls: list[str] = field(default_factory=list)
    mcp: list[McpItem] = field(default_factory=list)


#: The symbol every code file defines for itself: imports of the whole module refer to it.
MODULE = "module"


def symbol_id(project: str, path: str, name: str | None = None) -> str:
    """A module's id is its path; a definition's adds `#qualified.name`."""
    return f"{project}:{path}" + (f"#{name}" if name else "")


def of(path: str, text: str, outline: Outline | None) -> DocumentFacts:
    if outline is None:
        prose = languages.kind(path) in ("text", "markdown", "pdf")
        return DocumentFacts(urls=links.urls(text) if prose else [], mcp=mcp_manifest.items(path, text))
    module = SymbolFact(path, MODULE, 1, text.count("\n") + 1)
    references: dict[str, Any] = {
        "imports": [[i.module, [list(n) for n in i.names], i.alias] for i in outline.imports],
        "calls": sorted(c for c in outline.calls if "." in c),
    }
    return DocumentFacts(
        symbols=[module, *(SymbolFact(d.name, d.kind, d.start, d.end) for d in outline.definitions)],
        references=json.dumps(references),
        urls=links.urls("\n".join(outline.comments)),
    )
