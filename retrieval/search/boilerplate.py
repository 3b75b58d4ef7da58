"""Boilerplate of a project: sentences its documents open with again and again (show intros, sponsor lines).

Why the opening chunks: a podcast's "Welcome to Behind the Tech. I'm your host, ..." or a report
series' standard preamble sits at the start of every document; reading the first two chunks of each
document finds it at a cost that grows with the number of documents, not their length. The set is
cached per store and project and recomputed when the number of documents changes.
"""

from __future__ import annotations

import threading

from retrieval.context import Context
from retrieval.search.evidence import sentences
from retrieval.store.records import ident
from retrieval.text.readable import boilerplate

#: Opening chunks read per document.
OPENING_CHUNKS = 2
#: Most documents read; past this the first ones stand for the rest.
MAX_DOCUMENTS = 2000

_cache: dict[tuple[str, str], tuple[int, frozenset[str]]] = {}
_lock = threading.Lock()


def project_boilerplate(ctx: Context) -> frozenset[str]:
    """`sentence_key`s of the sentences found in the opening chunks of BOILERPLATE_DOCUMENTS or more documents."""
    label = ident(ctx.settings.chunk_label)
    rows = ctx.store.read(
        f"MATCH (c:{label}) WHERE {ctx.in_scope('c')} AND c.n = 0 RETURN count(c) AS n", {"project": ctx.project}
    )
    documents = int(rows[0]["n"]) if rows else 0
    key = (ctx.settings.backend_display, ctx.project if ctx.scoped else "")
    with _lock:
        cached = _cache.get(key)
    if cached is not None and cached[0] == documents:
        return cached[1]
    rows = ctx.store.read(
        f"MATCH (c:{label}) WHERE {ctx.in_scope('c')} AND c.n < $opening "
        "RETURN c.document_id AS document, c.text AS text LIMIT $limit",
        {"project": ctx.project, "opening": OPENING_CHUNKS, "limit": MAX_DOCUMENTS * OPENING_CHUNKS},
    )
    found = frozenset(
        boilerplate((str(row["document"]), sentence) for row in rows for sentence in sentences(str(row["text"] or "")))
    )
    with _lock:
        _cache[key] = (documents, found)
    return found
