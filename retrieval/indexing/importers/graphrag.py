"""Import a Microsoft GraphRAG index output folder (parquet) into a project.

GraphRAG already made what our offline indexer would only approximate: entity descriptions,
weighted relationships and LLM-written community reports. So they are kept as they are, and only
the vectors are remade (the stored ones come from another model, and only reports carry them).
Level numbering is the one real translation: GraphRAG counts from the root (level 0 is coarsest,
and a leaf may sit at any level), DriftLens from the leaves (level 0 is the finest partition, which
global search maps over by default). A community's level here is its height: 0 for a leaf, one
more than its tallest child otherwise. Entities and chunks
link to their finest (leaf) community, as in a native graph. Community ids hash their members
like native ones, so a re-import whose clustering changed drops the old communities and links.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import DriftLensError
from retrieval.indexing.communities import _community_id
from retrieval.indexing.importers.common import (
    ImportedChunk,
    ImportedDocument,
    ImportedMention,
    Importer,
    ImportReport,
)
from retrieval.indexing.model import CONCEPT, ProgressCallback, document_id, entity_id, slug
from retrieval.indexing.sources import content_hash
from retrieval.store.base import GraphStore
from retrieval.store.records import Row

#: The tables read and the columns used (GraphRAG 1.x/2.x output names).
TABLES: dict[str, tuple[str, ...]] = {
    "documents": ("id", "title", "text"),
    "text_units": ("id", "human_readable_id", "text", "document_id"),
    "entities": ("id", "title", "type", "description", "text_unit_ids"),
    "relationships": ("source", "target", "description", "weight", "text_unit_ids"),
    "communities": ("community", "level", "parent", "entity_ids"),
    "community_reports": ("community", "title", "summary", "full_content", "rank"),
}


def read_tables(folder: Path) -> dict[str, pd.DataFrame]:
    """Every table, or one clear error naming the missing file or columns."""
    if not folder.is_dir():
        raise DriftLensError(f"{folder} is not a folder; pass the output folder of `graphrag index`.")
    tables = {}
    for name, columns in TABLES.items():
        path = folder / f"{name}.parquet"
        if not path.exists():
            raise DriftLensError(
                f"{path} is missing: a GraphRAG index output folder holds {', '.join(TABLES)} as .parquet files."
            )
        table = pd.read_parquet(path)
        missing = [c for c in columns if c not in table.columns]
        if missing:
            raise DriftLensError(f"{path} lacks the columns {', '.join(missing)} (GraphRAG 1.x/2.x output expected).")
        tables[name] = table
    return tables


def _offsets(document: str, texts: list[str]) -> list[tuple[int, int]]:
    """Where each text unit lies in its document (they overlap, in order); (0, len) when it is not found verbatim."""
    out, search_from = [], 0
    for text in texts:
        start = document.find(text, search_from)
        if start < 0:
            out.append((0, len(text)))
        else:
            out.append((start, start + len(text)))
            search_from = start + 1
    return out


class _GraphRAGImport:
    """Source tables -> native records and rows; `chunk_of` maps a text unit id to our chunk id (set with `docs`)."""

    def __init__(self, project: str, folder: Path, tables: dict[str, pd.DataFrame]) -> None:
        self.project = project
        self.folder = folder
        self.t = tables
        self.entity_of = {row.id: entity_id(project, slug(row.title)) for row in tables["entities"].itertuples()}
        self.title_of = {row.title: entity_id(project, slug(row.title)) for row in tables["entities"].itertuples()}
        self.units_of = dict(zip(tables["entities"]["id"], tables["entities"]["text_unit_ids"], strict=True))
        self.chunk_of: dict[str, str] = {}
        self.docs = self._documents()

    def _documents(self) -> list[ImportedDocument]:
        mentions: dict[str, list[ImportedMention]] = defaultdict(list)
        for e in self.t["entities"].itertuples():
            for unit in e.text_unit_ids:
                mentions[unit].append(ImportedMention(self.entity_of[e.id], e.title, e.type or CONCEPT))
        claims: dict[str, list[tuple[str, str, float, str]]] = defaultdict(list)
        for r in self.relationships():
            share = float(r.weight) / max(1, len(r.text_unit_ids))  # a native reconcile sums shares back
            for unit in r.text_unit_ids:
                claims[unit].append((self.title_of[r.source], self.title_of[r.target], share, r.description))
        units = self.t["text_units"].sort_values("human_readable_id")
        docs = []
        for d in self.t["documents"].itertuples():
            path = f"{self.folder.name}/{d.title}"
            doc_id = document_id(self.project, path)
            mine = units[units["document_id"] == d.id]
            texts = list(mine["text"])
            chunks = []
            for n, (unit, text, (start, end)) in enumerate(
                zip(mine["id"], texts, _offsets(d.text, texts), strict=True)
            ):
                self.chunk_of[unit] = f"{doc_id}:{n}"
                chunks.append(ImportedChunk(n, text, start, end, tuple(mentions[unit]), tuple(claims[unit])))
            docs.append(ImportedDocument(doc_id, path, d.title, content_hash(d.text), tuple(chunks)))
        return docs

    def entities(self) -> list[Row]:
        rows = []
        for e in self.t["entities"].itertuples():
            chunks = [self.chunk_of[u] for u in e.text_unit_ids if u in self.chunk_of]
            rows.append(
                {
                    "id": self.entity_of[e.id],
                    "title": e.title,
                    "type": e.type or CONCEPT,
                    "description": e.description or "",
                    "source_chunks": chunks,
                    "mentions": len(chunks),
                }
            )
        return rows

    def relationships(self) -> list[Any]:
        """Relationships whose ends are both entities; GraphRAG output can name an entity it pruned."""
        return [
            r for r in self.t["relationships"].itertuples() if r.source in self.title_of and r.target in self.title_of
        ]

    def dangling(self) -> list[str]:
        table = self.t["relationships"]
        names = set(table["source"]) | set(table["target"])
        return sorted(names - set(self.title_of))

    def related(self) -> list[Row]:
        return [
            {
                "source": self.title_of[r.source],
                "target": self.title_of[r.target],
                "weight": float(r.weight),
                "description": r.description or "",
            }
            for r in self.relationships()
        ]

    def communities(self) -> tuple[list[Row], dict[str, str]]:
        """Community rows (levels as heights) and each entity's leaf community."""
        table = self.t["communities"]
        reports = {r.community: r for r in self.t["community_reports"].itertuples()}
        children: dict[int, list[int]] = defaultdict(list)
        for c in table.itertuples():
            if c.parent >= 0:
                children[c.parent].append(c.community)
        members = {c.community: sorted(self.entity_of[e] for e in c.entity_ids) for c in table.itertuples()}
        height: dict[int, int] = {}

        def level(community: int) -> int:
            if community not in height:
                height[community] = 1 + max((level(k) for k in children[community]), default=-1)
            return height[community]

        ids = {
            c.community: _community_id(self.project, level(c.community), members[c.community])
            for c in table.itertuples()
        }
        rows, leaf = [], {}
        for c in table.sort_values("level").itertuples():  # deeper levels last: they win `leaf`
            report = reports.get(c.community)
            chunks = sorted({self.chunk_of[u] for e in c.entity_ids for u in self.units_of[e] if u in self.chunk_of})
            rows.append(
                {
                    "id": ids[c.community],
                    "level": level(c.community),
                    "parent": ids.get(c.parent),
                    "title": report.title if report is not None else f"Community {c.community}",
                    "summary": report.summary if report is not None else "",
                    "full_content": report.full_content if report is not None else "",
                    "rank": float(report.rank) if report is not None else 0.0,
                    "size": len(members[c.community]),
                    "source_chunks": chunks,
                }
            )
            leaf.update({entity: ids[c.community] for entity in members[c.community]})
        return rows, leaf


def import_graphrag(
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    folder: Path,
    *,
    project: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import (or re-import, idempotently) a GraphRAG output folder; stale entities, edges and communities go."""
    report = ImportReport(project=project or settings.project, source=str(folder), kind="graphrag")
    run = Importer(settings, store, embedder, report, on_progress)
    with run.stage("read"):
        source = _GraphRAGImport(report.project, folder, read_tables(folder))
        docs = source.docs
        entities = source.entities()
        related = source.related()
        communities, leaf = source.communities()
    report.read = {
        "documents": len(docs),
        "chunks": sum(len(d.chunks) for d in docs),
        "entities": len(entities),
        "relationships": len(related),
        "communities": len(communities),
    }
    if missing := source.dangling():
        skipped = len(source.t["relationships"]) - len(related)
        report.notes.append(
            f"skipped {skipped} relationship(s) naming entities absent from entities.parquet: {', '.join(missing)}"
        )
    run.index_run()
    run.write_documents(docs)
    g = run.graph
    vectors = run.embed([f"{e['title']} ({e['type']}): {e['description']}" for e in entities], "entity embeddings")
    with run.stage("entities"):
        g.delete_nodes(g.settings.entity_label, sorted(set(g.entities()) - {e["id"] for e in entities}))
        g.write_entities([{**e, "embedding": v} for e, v in zip(entities, vectors, strict=True)])
        g.delete_related(sorted(set(g.related()) - {(r["source"], r["target"]) for r in related}))
        g.write_related(related)
        g.sync_degrees()
    vectors = run.embed([f"{c['title']}\n{c['summary']}" for c in communities], "community embeddings")
    with run.stage("communities"):
        g.delete_nodes(g.settings.community_label, sorted(g.community_ids() - {c["id"] for c in communities}))
        g.write_communities([{**c, "embedding": v} for c, v in zip(communities, vectors, strict=True)])
        _link(run, docs, leaf, communities)
    return report


def _link(run: Importer, docs: list[ImportedDocument], leaf: dict[str, str], communities: list[Row]) -> None:
    """Entities and their chunks -> leaf community; child -> parent."""
    g = run.graph
    chunk_links = {
        (doc.chunk_id(chunk.n), leaf[m.entity])
        for doc in docs
        for chunk in doc.chunks
        for m in chunk.mentions
        if m.entity in leaf
    }
    g.link_communities(g.lab.entity, [{"member": e, "community": k} for e, k in sorted(leaf.items())])
    g.link_communities(g.lab.chunk, [{"member": c, "community": k} for c, k in sorted(chunk_links)])
    parents = [{"member": c["id"], "community": c["parent"]} for c in communities if c["parent"]]
    g.link_communities(g.lab.community, parents)
