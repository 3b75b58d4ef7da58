"""Which chunks of the graph hold a given passage's text: how a labelled passage finds its chunks again.

Why by text: chunk ids change when a document is re-indexed and differ between graphs; a labelled passage
(a question set's unit) is matched to every chunk whose text lies inside it, so labels survive both.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from retrieval.context import Context
from retrieval.store.records import filter_clause, ident

#: Characters of a chunk's start used to find where it could sit inside a passage.
ANCHOR = 40
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class ChunkText:
    id: str
    document_id: str
    text: str


def project_chunks(ctx: Context) -> list[ChunkText]:
    """Every chunk in the context's scope, with its document and text (one read)."""
    s = ctx.settings
    where, params = filter_clause("c", ctx.project_filter)
    rows = ctx.store.read(
        f"MATCH (c:{ident(s.chunk_label)}) {'WHERE ' + where if where else ''} "
        f"RETURN c.id AS id, c.document_id AS document_id, c.{ident(s.text_property)} AS text",
        params,
    )
    return [ChunkText(str(r["id"]), str(r["document_id"] or ""), str(r["text"] or "")) for r in rows]


def locate(passages: Mapping[str, str], chunks: Iterable[ChunkText]) -> dict[str, set[str]]:
    """passage key -> ids of the chunks whose (whitespace-normalised) text occurs in the passage's text.

    Each chunk is indexed by its first ANCHOR characters; a passage is scanned once for those anchors, so the
    cost grows with the passages' length, not with passages x chunks."""
    by_anchor: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for chunk in chunks:
        text = normalise(chunk.text)
        if text:
            by_anchor[text[:ANCHOR]].append((chunk.id, text))
    short = {anchor for anchor in by_anchor if len(anchor) < ANCHOR}
    found: dict[str, set[str]] = {}
    for key, passage in passages.items():
        text = normalise(passage)
        hits: set[str] = set()
        for start in range(max(0, len(text) - ANCHOR + 1)):
            for chunk_id, chunk_text in by_anchor.get(text[start : start + ANCHOR], ()):
                if text.startswith(chunk_text, start):
                    hits.add(chunk_id)
        for anchor in short:  # chunks shorter than an anchor: a plain containment test each
            if anchor in text:
                hits.update(chunk_id for chunk_id, _t in by_anchor[anchor])
        found[key] = hits
    return found
