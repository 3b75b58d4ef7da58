"""Every Cypher statement the indexer runs, in the common subset of FalkorDB and Neo4j.

Why one module: the graph model (docs/graph-model.md) is written down once here, with labels and
property names from Settings, so the stages above deal in Python rows and never in Cypher.
All writes MERGE on `id`, so a repeated or resumed run never duplicates a node or a relationship.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from retrieval.config import Settings
from retrieval.store import bm25
from retrieval.store.base import GraphStore
from retrieval.store.labels import Labels
from retrieval.store.records import Row, ident


class IndexGraph:
    """The indexer's view of one project in a GraphStore."""

    def __init__(self, store: GraphStore, settings: Settings, project: str) -> None:
        self.store = store
        self.settings = settings
        self.project = project
        self.lab = Labels.of(settings)
        self.vectors = store.vectors

    def _set_vector(self, var: str) -> str:
        """`, var.embedding = <row.embedding>` when vectors live on the nodes; nothing when another store holds them."""
        return f", {var}.{self.lab.embedding} = {self.store.vec('row.embedding')} " if self.vectors.in_graph else " "

    def _drop_vector(self, var: str) -> str:
        """`, var.embedding = null` when vectors live on the nodes; nothing when another store holds them."""
        return f", {var}.{self.lab.embedding} = null " if self.vectors.in_graph else " "

    def _upsert_vectors(self, label: str, rows: Sequence[Row]) -> None:
        """After the node write: a run killed in between leaves the node without a vector, which it redoes."""
        if rows and not self.vectors.in_graph:
            self.vectors.upsert(label, [{**row, "projectId": self.project} for row in rows])

    def _profiles(
        self, var: str, label: str, rows: Sequence[Row], columns: dict[str, str]
    ) -> tuple[str, Sequence[Row]]:
        """Where the store reads them (`GraphStore.stores_term_counts`), `, var._bm25_terms = ...` for a write of
        `label` nodes as `var` and its rows with each node's BM25 profile (`bm25.stored`, of the label's
        `bm25.profiled_fields`; `columns` names the row key of a property the row holds under another name); else
        nothing and the rows as they are. Written in the statement that writes the text, so that a rewritten node's
        profile is never stale."""
        if not self.store.stores_term_counts:
            return "", rows
        fields = bm25.profiled_fields(self.settings)[label]
        names = [ident(name) for name in (bm25.TERMS, bm25.LENGTH, bm25.SIZE)]
        sets = "".join(f", {var}.{name} = row.{name}" for name in names)
        read = [{field: row.get(columns.get(field, field)) for field in fields} for row in rows]
        return sets, [{**row, **bm25.stored(props, fields)} for row, props in zip(rows, read, strict=True)]

    def _q(self, cypher: str, **params: Any) -> list[Row]:
        return self.store.query(cypher, {"project": self.project, **params})

    def _batch(self, cypher: str, rows: Sequence[Row], batch_size: int = 500) -> None:
        """UNWIND writes; each row carries `project` (write_batch sends only $rows)."""
        if rows:
            self.store.write_batch(cypher, [{**row, "project": self.project} for row in rows], batch_size)

    # --- project --------------------------------------------------------------------------
    def project_info(self) -> Row | None:
        rows = self._q(
            f"MATCH (p:{self.lab.project} {{id: $project}}) "
            "RETURN p.embedder AS embedder, p.dim AS dim, p.communities_dirty AS dirty, p.last_run AS last_run"
        )
        return rows[0] if rows else None

    def ensure_project(self, embedder: str, dim: int) -> None:
        self._q(
            f"MERGE (p:{self.lab.project} {{id: $project}}) "
            "ON CREATE SET p.name = $project, p.projectId = $project, p.embedder = $embedder, p.dim = $dim",
            embedder=embedder,
            dim=dim,
        )

    def set_dirty(self, dirty: bool) -> None:
        self._q(f"MATCH (p:{self.lab.project} {{id: $project}}) SET p.communities_dirty = $dirty", dirty=dirty)

    def set_last_run(self, summary: dict[str, Any]) -> None:
        self._q(f"MATCH (p:{self.lab.project} {{id: $project}}) SET p.last_run = $run", run=json.dumps(summary))

    # --- documents and chunks -------------------------------------------------------------
    def documents(self) -> dict[str, Row]:
        """Stored documents by path: id, title, content_hash (None while a write is unfinished), status."""
        rows = self._q(
            f"MATCH (d:{self.lab.document} {{projectId: $project}}) "
            "RETURN d.id AS id, d.path AS path, d.title AS title, d.content_hash AS content_hash, d.status AS status"
        )
        return {row["path"]: row for row in rows}

    def begin_document(self, doc_id: str, path: str, title: str, source: str = "", size: int = 0) -> None:
        """Mark the document unfinished (no content_hash) and drop its old chunks with their mentions."""
        self.begin_documents([{"id": doc_id, "path": path, "title": title, "source": source, "size": size}])

    def begin_documents(self, docs: Sequence[Row]) -> None:
        """`begin_document` for many in two statements, not two per document: a corpus of thousands of small
        documents paid one write transaction per statement and document.

        Rows: id, path, title, and optionally `source` (the folder, file or archive it was read from, or "upload"),
        `size` (bytes of its text) and `stored` (False: the graph held no node of it when the run read the stored
        documents, so it owns nothing to drop; default True). Why `stored`: a cold load of thousands of documents
        sent the clearing statements of every batch for documents that had nothing to clear."""
        lab = self.lab
        now = datetime.now(UTC).isoformat(timespec="seconds")
        self._batch(
            f"UNWIND $rows AS row MERGE (d:{lab.document} {{id: row.id}}) ON CREATE SET d.ingested_at = row.now "
            "SET d.title = row.title, d.path = row.path, d.projectId = row.project, d.content_hash = null, "
            "d.source = row.source, d.size = row.size "
            f"WITH d, row MATCH (p:{lab.project} {{id: row.project}}) MERGE (d)-[:IN_PROJECT]->(p)",
            [{"source": "", "size": 0, **{k: v for k, v in doc.items() if k != "stored"}, "now": now} for doc in docs],
        )
        self.drop_owned([str(doc["id"]) for doc in docs if doc.get("stored", True)])

    def drop_owned(self, doc_ids: Sequence[str]) -> None:
        """Drop what the documents own and a rewrite replaces: their chunks, with their mentions and vectors."""
        for doc_id in doc_ids:
            self.vectors.delete_document(doc_id)
        self._batch(
            f"UNWIND $rows AS row MATCH (:{self.lab.document} {{id: row.id}})-[:HAS_CHUNK]->(c:{self.lab.chunk}) "
            "DETACH DELETE c",
            [{"id": doc_id} for doc_id in doc_ids],
        )

    def write_chunks(self, rows: Sequence[Row]) -> None:
        """Each chunk with its text, place and vector; where the store reads them, its BM25 profile too
        (`bm25.stored`, written with the text so that a rewritten chunk's profile is never stale)."""
        lab = self.lab
        profile, written = self._profiles("c", self.settings.chunk_label, rows, {self.settings.text_property: "text"})
        self._batch(
            f"UNWIND $rows AS row MERGE (c:{lab.chunk} {{id: row.id}}) "
            f"SET c.{lab.text} = row.text, c.n = row.n, c.start = row.start, c.end = row.end, "
            "c.document_id = row.document_id, c.document_name = row.document_name, c.projectId = row.project, "
            "c.path = row.path, c.line_start = row.line_start, c.line_end = row.line_end, c.symbol = row.symbol, "
            f"c.relations = row.relations{profile}{self._set_vector('c')}"
            f"WITH c, row MATCH (d:{lab.document} {{id: row.document_id}}) MERGE (d)-[:HAS_CHUNK]->(c)",
            written,
            batch_size=100,
        )
        self._upsert_vectors(self.settings.chunk_label, rows)

    def write_mentions(self, rows: Sequence[Row]) -> None:
        lab = self.lab
        self._batch(
            f"UNWIND $rows AS row MATCH (c:{lab.chunk} {{id: row.chunk}}) "
            f"MERGE (e:{lab.entity} {{id: row.entity}}) "
            "ON CREATE SET e.projectId = row.project, e.title = row.surface, e.type = row.type "
            "MERGE (c)-[r:HAS_ENTITY]->(e) "
            "SET r.count = row.count, r.surface = row.surface, r.type = row.type, r.evidence = row.evidence, "
            "r.key = row.entity",
            rows,
        )

    def repoint_mentions(self, rows: Sequence[Row]) -> None:
        """Move mentions {chunk, key, old, new} to the entity their key now resolves to (resolution.py).

        The edge keeps its raw `key`, so a later run that no longer merges the key (a document removed)
        moves it back: the merge is a function of the mentions, like every entity property.
        """
        lab = self.lab
        self._batch(
            f"UNWIND $rows AS row MATCH (c:{lab.chunk} {{id: row.chunk}})"
            f"-[r:HAS_ENTITY]->(old:{lab.entity} {{id: row.old}}) "
            f"WHERE coalesce(r.key, old.id) = row.key MATCH (e:{lab.entity} {{id: row.new}}) "
            "MERGE (c)-[n:HAS_ENTITY {key: row.key}]->(e) "
            "SET n.count = r.count, n.surface = r.surface, n.type = r.type, n.evidence = r.evidence DELETE r",
            rows,
        )

    def finish_document(self, doc_id: str, content_hash: str, status: str = "indexed", reason: str = "") -> None:
        """Written last: a run killed before this line redoes the document."""
        self.finish_documents([{"id": doc_id, "hash": content_hash, "status": status, "reason": reason}])

    def finish_documents(self, docs: Sequence[Row]) -> None:
        """`finish_document` for many (rows: id, hash, and optionally status and reason), in one statement, after
        all of their writes.

        `updated_at` moves only when the content did (`dated_hash` remembers which content it dates), so a
        re-import of the same text, or a resumed run, leaves the recency of what the document supports alone.
        `indexed_at` is when it was last written, `status`/`status_reason` what that write did.
        """
        now = datetime.now(UTC).isoformat(timespec="seconds")
        self._batch(
            f"UNWIND $rows AS row MATCH (d:{self.lab.document} {{id: row.id}}) "
            "SET d.updated_at = CASE WHEN d.dated_hash = row.hash THEN d.updated_at ELSE row.now END, "
            "d.dated_hash = row.hash, d.content_hash = row.hash, d.indexed_at = row.now, "
            "d.status = row.status, d.status_reason = row.reason",
            [{"status": "indexed", "reason": "", **doc, "now": now} for doc in docs],
        )

    def set_status(self, doc_id: str, status: str, reason: str) -> None:
        """A stored document's status when a run did not write it (its file failed to load, or loads again)."""
        self._q(
            f"MATCH (d:{self.lab.document} {{id: $id}}) SET d.status = $status, d.status_reason = $reason",
            id=doc_id,
            status=status,
            reason=reason,
        )

    def forget_hash(self, doc_id: str) -> None:
        """Mark a document unfinished, so the next run over its source writes it again (a re-index)."""
        self._q(f"MATCH (d:{self.lab.document} {{id: $id}}) SET d.content_hash = null", id=doc_id)

    def delete_document(self, doc_id: str) -> None:
        lab = self.lab
        self.vectors.delete_document(doc_id)
        self._q(f"MATCH (:{lab.document} {{id: $id}})-[:HAS_CHUNK]->(c:{lab.chunk}) DETACH DELETE c", id=doc_id)
        self._q(f"MATCH (d:{lab.document} {{id: $id}}) DETACH DELETE d", id=doc_id)

    # --- what the chunks say (ground truth for every derived node) ------------------------
    def mentions(self) -> list[Row]:
        return self._q(
            f"MATCH (c:{self.lab.chunk} {{projectId: $project}})-[r:HAS_ENTITY]->(e:{self.lab.entity}) "
            "RETURN c.id AS chunk, e.id AS entity, coalesce(r.key, e.id) AS key, r.surface AS surface, "
            "r.type AS type, r.count AS count, r.evidence AS evidence"
        )

    def chunk_texts(self) -> dict[str, str]:
        """Every chunk's text by id: what offline community titles weigh a passage's key phrases against."""
        rows = self._q(f"MATCH (c:{self.lab.chunk} {{projectId: $project}}) RETURN c.id AS id, c.text AS text")
        return {str(row["id"]): str(row["text"] or "") for row in rows}

    def chunk_dates(self) -> dict[str, Row]:
        """Each chunk's document timestamps {updated_at, ingested_at}, by chunk id: what dates its entities."""
        rows = self._q(
            f"MATCH (d:{self.lab.document})-[:HAS_CHUNK]->(c:{self.lab.chunk} {{projectId: $project}}) "
            "RETURN c.id AS chunk, d.updated_at AS updated_at, d.ingested_at AS ingested_at"
        )
        return {str(row["chunk"]): row for row in rows}

    def chunk_relations(self) -> list[Row]:
        """Each chunk's claimed relations with its document's timestamps (an edge is dated by its support)."""
        return self._q(
            f"MATCH (d:{self.lab.document})-[:HAS_CHUNK]->(c:{self.lab.chunk} {{projectId: $project}}) "
            "WHERE c.relations IS NOT NULL RETURN c.id AS chunk, c.relations AS relations, "
            "d.updated_at AS updated_at, d.ingested_at AS ingested_at"
        )

    # --- entities --------------------------------------------------------------------------
    def entities(self) -> dict[str, Row]:
        rows = self._q(
            f"MATCH (e:{self.lab.entity} {{projectId: $project}}) "
            "RETURN e.id AS id, e.title AS title, e.type AS type, e.description AS description, "
            "e.source_chunks AS source_chunks, e.mentions AS mentions, e.aliases AS aliases, "
            "e.merge_reasons AS merge_reasons"
        )
        embedded = self.vectors.ids(self.settings.entity_label, self.project)
        return {row["id"]: {**row, "embedded": row["id"] in embedded} for row in rows}

    def write_entities(self, rows: Sequence[Row], *, derived: bool = False, vectors: bool = True) -> None:
        """`derived`: rows also carry `degree`, `updated_at` and `ingested_at` (relations.entity_fields), so
        `sync_degrees` and `sync_timestamps` find them current and write the entity no second time.

        `vectors=False`: rows carry no `embedding`, and each entity's stored vector is dropped with the write
        (`write_vectors` stores the new ones later). Why dropped: an entity without a vector is one that
        `entities.changed` embeds again, so a run killed in between leaves no rewritten entity with its old vector."""
        lab = self.lab
        more = ", e.degree = row.degree, e.updated_at = row.updated_at, e.ingested_at = row.ingested_at"
        more = more if derived else ""
        if not vectors:
            self.vectors.delete(self.settings.entity_label, [row["id"] for row in rows])  # before: see above
        vector = self._set_vector("e") if vectors else self._drop_vector("e")
        profile, written = self._profiles("e", self.settings.entity_label, rows, {})
        self._batch(
            f"UNWIND $rows AS row MERGE (e:{lab.entity} {{id: row.id}}) "
            "SET e.projectId = row.project, e.title = row.title, e.type = row.type, e.description = row.description, "
            "e.source_chunks = row.source_chunks, e.mentions = row.mentions, e.aliases = row.aliases, "
            f"e.merge_reasons = row.merge_reasons{more}{profile}{vector}"
            f"WITH e, row MATCH (p:{lab.project} {{id: row.project}}) MERGE (e)-[:IN_PROJECT]->(p)",
            written,
            batch_size=200,
        )
        if vectors:
            self._upsert_vectors(self.settings.entity_label, rows)

    def write_vectors(self, label: str, rows: Sequence[Row]) -> None:
        """The vectors of nodes of `label` (as named in Settings) already written: rows {id, embedding, and the
        vector store's filter fields: `type`, `level`}. Why apart from the node write: the graph server's writes of
        the entities, RELATED and communities then run while their vectors are still being embedded."""
        if not self.vectors.in_graph:
            self._upsert_vectors(label, rows)
            return
        self._batch(
            f"UNWIND $rows AS row MATCH (n:{ident(label)} {{id: row.id}}) "
            f"SET n.{self.lab.embedding} = {self.store.vec('row.embedding')}",
            [{"id": row["id"], "embedding": row["embedding"]} for row in rows],
            batch_size=200,
        )

    def delete_nodes(self, label: str, ids: Iterable[str]) -> None:
        """Delete nodes of `label` (as named in Settings) by id, with their vectors."""
        rows = [{"id": i} for i in ids]
        self._batch(f"UNWIND $rows AS row MATCH (n:{ident(label)} {{id: row.id}}) DETACH DELETE n", rows)
        self.vectors.delete(label, [row["id"] for row in rows])

    def sync_vectors(self) -> int:
        """Drop vectors whose node is gone (a run killed between the two deletes); returns how many.

        Why only this direction: a node without its vector belongs to an unfinished document or entity,
        which the resumed run rewrites anyway.
        """
        if self.vectors.in_graph:
            return 0
        dropped = 0
        for label in (self.settings.chunk_label, self.settings.entity_label, self.settings.community_label):
            rows = self._q(f"MATCH (n:{ident(label)} {{projectId: $project}}) RETURN n.id AS id")
            orphans = self.vectors.ids(label, self.project) - {row["id"] for row in rows}
            self.vectors.delete(label, orphans)
            dropped += len(orphans)
        return dropped

    # --- relationships between entities ------------------------------------------------------
    def related(self) -> dict[tuple[str, str], Row]:
        rows = self._q(
            f"MATCH (a:{self.lab.entity} {{projectId: $project}})-[r:RELATED]->(b:{self.lab.entity}) "
            "RETURN a.id AS source, b.id AS target, r.weight AS weight, r.description AS description, "
            "r.directed AS directed, r.updated_at AS updated_at, r.ingested_at AS ingested_at"
        )
        return {(row["source"], row["target"]): row for row in rows}

    def write_related(self, rows: Sequence[Row]) -> None:
        ent = self.lab.entity
        self._batch(
            f"UNWIND $rows AS row MATCH (a:{ent} {{id: row.source}}), (b:{ent} {{id: row.target}}) "
            "MERGE (a)-[r:RELATED]->(b) SET r.weight = row.weight, r.description = row.description, "
            "r.directed = row.directed, r.updated_at = row.updated_at, r.ingested_at = row.ingested_at",
            rows,
        )

    def delete_related(self, pairs: Iterable[tuple[str, str]]) -> None:
        ent = self.lab.entity
        rows = [{"source": a, "target": b} for a, b in pairs]
        self._batch(
            f"UNWIND $rows AS row MATCH (:{ent} {{id: row.source}})-[r:RELATED]->(:{ent} {{id: row.target}}) DELETE r",
            rows,
        )

    def sync_degrees(self) -> int:
        """Store each entity's RELATED count as `degree` where it changed; returns how many changed.

        Why stored: search expansion penalises hubs by degree, and counting a hub's thousands of edges
        at query time costs more than the whole walk. Run after a run's last RELATED write (edges also
        vanish with deleted entities, so the count is taken from the graph, not from the written rows).
        """
        ent = self.lab.entity
        rows = self._q(
            f"MATCH (e:{ent} {{projectId: $project}}) WITH e, size([(e)-[:RELATED]-() | 1]) AS degree "
            "WHERE e.degree IS NULL OR e.degree <> degree SET e.degree = degree RETURN count(e) AS n"
        )
        return int(rows[0]["n"]) if rows else 0

    def sync_timestamps(self) -> int:
        """Date each entity by the documents that mention it, where that changed; returns how many changed.

        `updated_at` is the latest change of a supporting document, `ingested_at` the first time one was
        indexed: what the recency boost of search expansion reads.
        """
        lab = self.lab
        rows = self._q(
            f"MATCH (e:{lab.entity} {{projectId: $project}})<-[:HAS_ENTITY]-(:{lab.chunk})"
            f"<-[:HAS_CHUNK]-(d:{lab.document}) WITH e, max(d.updated_at) AS updated, min(d.ingested_at) AS ingested "
            "WHERE coalesce(e.updated_at, '') <> coalesce(updated, '') "
            "OR coalesce(e.ingested_at, '') <> coalesce(ingested, '') "
            "SET e.updated_at = updated, e.ingested_at = ingested RETURN count(e) AS n"
        )
        return int(rows[0]["n"]) if rows else 0

    # --- communities ---------------------------------------------------------------------
    def community_ids(self) -> set[str]:
        rows = self._q(f"MATCH (k:{self.lab.community} {{projectId: $project}}) RETURN k.id AS id")
        return {row["id"] for row in rows}

    def write_communities(self, rows: Sequence[Row], *, vectors: bool = True) -> None:
        """`vectors=False`: rows carry no `embedding` (`write_vectors` stores them later); only communities
        without a stored vector are written (`DerivedStages.communities`), so there is no old one to drop."""
        lab = self.lab
        self._batch(
            f"UNWIND $rows AS row MERGE (k:{lab.community} {{id: row.id}}) "
            "SET k.level = row.level, k.title = row.title, k.summary = row.summary, "
            "k.full_content = row.full_content, k.rank = row.rank, k.size = row.size, k.projectId = row.project, "
            f"k.source_chunks = row.source_chunks{self._set_vector('k') if vectors else ' '}"
            f"WITH k, row MATCH (p:{lab.project} {{id: row.project}}) MERGE (k)-[:IN_PROJECT]->(p)",
            rows,
            batch_size=100,
        )
        if vectors:
            self._upsert_vectors(self.settings.community_label, rows)

    def link_communities(self, member_label: str, rows: Sequence[Row]) -> None:
        """(member)-[:IN_COMMUNITY]->(community) for rows {member, community}; idempotent."""
        self._batch(
            f"UNWIND $rows AS row MATCH (m:{member_label} {{id: row.member}}), "
            f"(k:{self.lab.community} {{id: row.community}}) MERGE (m)-[:IN_COMMUNITY]->(k)",
            rows,
            batch_size=1000,
        )

    def community_links(self) -> set[tuple[str, str]]:
        rows = self._q(
            f"MATCH (m)-[:IN_COMMUNITY]->(k:{self.lab.community} {{projectId: $project}}) RETURN m.id AS m, k.id AS k"
        )
        return {(row["m"], row["k"]) for row in rows}
