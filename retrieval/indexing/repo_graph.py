"""The Cypher of repository ingestion: symbols, links, MCP metadata and resolved references, per project.

Why apart from `graph.py`: these nodes exist only for repository files, and each is owned by one document
(`DEFINES`, `DEFINED_IN`) or shared and garbage-collected (`URL`), so their life cycle is written down here
in one place. Same rules as the rest of the indexer: common FalkorDB/Neo4j subset, MERGE on `id`, every
node carries `projectId`, and ids start with the project so projects never share a node.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from retrieval.indexing.graph import IndexGraph
from retrieval.indexing.references import Referrer
from retrieval.indexing.repo_facts import DocumentFacts, symbol_id
from retrieval.store.records import Row

SYMBOL, URL, TOOL, MCP_SERVER = "Symbol", "URL", "Tool", "MCPServer"
LABELS = (SYMBOL, URL, TOOL, MCP_SERVER)


class RepoGraph(IndexGraph):
    """The indexer's graph with the repository nodes each document owns, cleared with the document."""

    @property
    def doc(self) -> str:
        return self.lab.document

    def ensure_indexes(self) -> None:
        for label in LABELS:
            self.store.ensure_range_index(label, "id")

    def drop_owned(self, doc_ids: Sequence[str]) -> None:
        super().drop_owned(doc_ids)
        self.clear_documents(doc_ids)

    def delete_document(self, doc_id: str) -> None:
        self.clear_document(doc_id)
        super().delete_document(doc_id)

    def clear_document(self, doc_id: str) -> None:
        self.clear_documents([doc_id])

    def clear_documents(self, doc_ids: Sequence[str]) -> None:
        """Drop what the documents own (their symbols, tools, servers), their links and stored references: one
        statement each for all of them."""
        rows = [{"id": doc_id} for doc_id in doc_ids]
        start = f"UNWIND $rows AS row MATCH (d:{self.doc} {{id: row.id}})"
        self._batch(f"{start}-[:DEFINES]->(s:{SYMBOL}) DETACH DELETE s", rows)
        for label in (TOOL, MCP_SERVER):
            self._batch(
                f"UNWIND $rows AS row MATCH (t:{label})-[:DEFINED_IN]->(:{self.doc} {{id: row.id}}) DETACH DELETE t",
                rows,
            )
        self._batch(f"{start}-[r:LINKS_TO]->(:{URL}) DELETE r", rows)
        self._batch(f"{start} WHERE d.references IS NOT NULL SET d.references = null", rows)

    def write(self, doc_id: str, path: str, facts: DocumentFacts) -> dict[str, int]:
        """The document's symbols, links and MCP items, and its unresolved references; returns counts written."""
        g, doc = self, self.doc
        g._batch(
            f"UNWIND $rows AS row MATCH (d:{doc} {{id: row.document_id}}) MERGE (s:{SYMBOL} {{id: row.id}}) "
            "SET s.name = row.name, s.kind = row.kind, s.path = row.path, s.line = row.line, "
            "s.end_line = row.end_line, s.projectId = row.project MERGE (d)-[:DEFINES]->(s)",
            [
                {
                    "id": symbol_id(self.project, path, None if s.kind == "module" else s.name),
                    "document_id": doc_id,
                    "name": s.name,
                    "kind": s.kind,
                    "path": path,
                    "line": s.line,
                    "end_line": s.end_line,
                }
                for s in facts.symbols
            ],
        )
        g._batch(
            f"UNWIND $rows AS row MATCH (d:{doc} {{id: row.document_id}}) MERGE (u:{URL} {{id: row.id}}) "
            "ON CREATE SET u.url = row.url, u.projectId = row.project MERGE (d)-[:LINKS_TO]->(u)",
            [{"id": self._url_id(u), "url": u, "document_id": doc_id} for u in facts.urls],
        )
        for label in (TOOL, MCP_SERVER):
            g._batch(
                f"UNWIND $rows AS row MATCH (d:{doc} {{id: row.document_id}}) MERGE (t:{label} {{id: row.id}}) "
                "SET t.name = row.name, t.description = row.description, t.server = row.server, "
                "t.path = row.path, t.projectId = row.project MERGE (t)-[:DEFINED_IN]->(d)",
                [
                    {
                        "id": f"{self.project}:{path}#{label}:{item.name}",
                        "document_id": doc_id,
                        "name": item.name,
                        "description": item.description,
                        "server": item.server,
                        "path": path,
                    }
                    for item in facts.mcp
                    if item.label == label
                ],
            )
        if facts.references:
            g._q(f"MATCH (d:{doc} {{id: $id}}) SET d.references = $refs", id=doc_id, refs=facts.references)
        return {"symbols": len(facts.symbols), "links": len(facts.urls), "mcp": len(facts.mcp)}

    def _url_id(self, url: str) -> str:
        return f"{self.project}:url:{hashlib.sha256(url.encode()).hexdigest()[:24]}"

    # --- whole-project reconciliation ----------------------------------------------------------
    def referrers(self) -> list[Referrer]:
        rows = self._q(
            f"MATCH (d:{self.doc} {{projectId: $project}}) WHERE d.references IS NOT NULL "
            "RETURN d.id AS id, d.path AS path, d.references AS refs"
        )
        return [Referrer(r["id"], r["path"], r["refs"]) for r in rows]

    def definitions(self) -> dict[str, set[str]]:
        """Qualified names defined per code file (every code file has its module symbol, so every one is listed)."""
        rows = self._q(
            f"MATCH (s:{SYMBOL} {{projectId: $project}}) RETURN s.path AS path, s.name AS name, s.kind AS kind"
        )
        out: dict[str, set[str]] = {}
        for row in rows:
            names = out.setdefault(row["path"], set())
            if row["kind"] != "module":
                names.add(row["name"])
        return out

    def refers(self) -> set[tuple[str, str]]:
        rows = self._q(
            f"MATCH (d:{self.doc} {{projectId: $project}})-[:REFERS_TO]->(s:{SYMBOL}) RETURN d.id AS d, s.id AS s"
        )
        return {(r["d"], r["s"]) for r in rows}

    def sync_refers(self, wanted: Iterable[tuple[str, str, str | None]]) -> tuple[int, int]:
        """Make REFERS_TO exactly `wanted` (document id, path, definition); returns (written, deleted)."""
        target = {(doc_id, symbol_id(self.project, path, name)) for doc_id, path, name in wanted}
        have = self.refers()
        write = [{"d": d, "s": s} for d, s in sorted(target - have)]
        drop = [{"d": d, "s": s} for d, s in sorted(have - target)]
        self._batch(
            f"UNWIND $rows AS row MATCH (d:{self.doc} {{id: row.d}}), (s:{SYMBOL} {{id: row.s}}) "
            "MERGE (d)-[:REFERS_TO]->(s)",
            write,
        )
        self._batch(
            f"UNWIND $rows AS row MATCH (:{self.doc} {{id: row.d}})-[r:REFERS_TO]->(:{SYMBOL} {{id: row.s}}) DELETE r",
            drop,
        )
        return len(write), len(drop)

    def delete_unlinked_urls(self) -> int:
        rows: list[Row] = self._q(
            f"MATCH (u:{URL} {{projectId: $project}}) OPTIONAL MATCH (u)<-[r:LINKS_TO]-() "
            "WITH u, count(r) AS links WHERE links = 0 DETACH DELETE u RETURN count(u) AS n"
        )
        return int(rows[0]["n"]) if rows else 0
