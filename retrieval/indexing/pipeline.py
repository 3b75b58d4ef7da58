"""The indexing run: load -> chunk -> embed -> extract -> write, then reconcile entities,
relationships and communities from what the chunks say.

Why this shape (restartable, incremental): documents are the only input. A document's
content_hash is written last, so a killed run redoes exactly the unfinished document; everything
derived (entities, RELATED, communities) is recomputed from the chunks and only the difference is
written, guarded by the project's `communities_dirty` flag, which is set before the first document
write and cleared after the communities are done. Unchanged input writes nothing at all.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import DriftLensError, EmbeddingMismatch
from retrieval.indexing import (
    code_outline,
    communities,
    entities,
    languages,
    references,
    relations,
    repo_facts,
    reports,
    resolution,
    titles,
)
from retrieval.indexing.chunking import Chunk
from retrieval.indexing.code_chunking import chunk_source
from retrieval.indexing.communities import Community
from retrieval.indexing.document_writes import WrittenDocument, write_documents
from retrieval.indexing.embed_worker import EmbedWorker
from retrieval.indexing.extract_llm import extract_with_llm
from retrieval.indexing.extract_process import offline_extractions
from retrieval.indexing.model import ChunkExtraction, ProgressCallback, StageProgress
from retrieval.indexing.repo_facts import DocumentFacts
from retrieval.indexing.repo_graph import RepoGraph
from retrieval.indexing.report import DocumentCallback, DocumentEvent, IndexReport, Status, issue_status
from retrieval.indexing.sources import LoadIssue, LoadLimits, SourceDocument, count_candidates, load
from retrieval.llm.client import ChatModel
from retrieval.store.base import GraphStore

#: Texts per embedder call: a progress tick each, small enough for steady feedback.
EMBED_STEP = 64
#: Chunks of the documents written together (begin, chunks, mentions, finish: a few statements per batch).
WRITE_BATCH_CHUNKS = 500


@dataclass(frozen=True)
class _Communities:
    """The communities a run computed, before any is written: the tree, what was stored, the new ones' reports."""

    tree: list[Community]
    existing: set[str]  # the stored community ids
    links: set[tuple[str, str]]  # the stored IN_COMMUNITY links (member, community)
    made: list[tuple[Community, reports.Report]]


class _Run:
    """One run's state: the graph, the models, progress reporting and timings."""

    def __init__(
        self,
        settings: Settings,
        store: GraphStore,
        embedder: Embedder,
        project: str,
        *,
        on_progress: ProgressCallback | None,
        chat_model: ChatModel | None,
        on_document: DocumentCallback | None = None,
        origin: str | None = None,
    ) -> None:
        self.settings = settings
        self.on_document = on_document
        self.origin = origin  # "upload": the files' own location means nothing to the reader
        self.roots: dict[str, str] = {}
        self.planned: dict[str, Status] = {}  # what writing each document will be: a first write or an update
        self.unstored: set[str] = set()  # paths with no document node in the graph: nothing of theirs to clear
        self.store = store
        self.embedder = embedder
        self.graph = RepoGraph(store, settings, project)
        self.chat = chat_model
        self.on_progress = on_progress
        self.report = IndexReport(project=project)
        #: This run's chunk vectors by text: the title step's passages are chunks, and is spared embedding them again.
        self.chunk_vectors: dict[str, np.ndarray] = {}

    def tick(self, stage: str, done: int, total: int, message: str = "") -> None:
        if self.on_progress is not None:
            self.on_progress(StageProgress(stage, done, total, message))

    @contextmanager
    def stage(self, name: str, total: int = 1) -> Iterator[None]:
        started = time.perf_counter()
        self.tick(name, 0, total)
        yield
        self.report.seconds[name] = round(self.report.seconds.get(name, 0.0) + time.perf_counter() - started, 3)
        self.tick(name, total, total)

    def said(self, path: str, status: Status, reason: str = "") -> None:
        if self.on_document is not None:
            self.on_document(DocumentEvent(path, status, reason))

    def count(self, key: str, n: int) -> None:
        self.report.written[key] = self.report.written.get(key, 0) + n

    # --- setup ------------------------------------------------------------------------------
    def prepare(self) -> dict[str, Any] | None:
        """Refuse a graph built with another embedder, then make sure indexes and the project node exist."""
        info = self.graph.project_info()
        name, dim = self.embedder.name, self.embedder.dim
        if info and (info["embedder"] != name or info["dim"] != dim):
            raise EmbeddingMismatch(info["embedder"], int(info["dim"]), name, dim)
        stored_dim = self.store.vectors.dimension(self.settings.chunk_label)
        if stored_dim is not None and stored_dim != dim:
            raise EmbeddingMismatch(f"(another project, {stored_dim}-d)", stored_dim, name, dim)
        with self.stage("indexes"):
            self.store.ensure_schema(dim)
            self.store.vectors.ensure(dim)
            self.graph.ensure_indexes()
            if info is None:
                self.graph.ensure_project(name, dim)
        return info

    # --- documents ----------------------------------------------------------------------------
    def embed(self, texts: Sequence[str], stage: str) -> np.ndarray:
        """A vector per text, in order (`embedding`, waited for at once)."""
        with self.embedding(texts, stage) as vectors:
            return vectors()

    @contextmanager
    def embedding(self, texts: Sequence[str], stage: str) -> Iterator[Callable[[], np.ndarray]]:
        """Starts embedding `texts` on a worker thread and yields the wait for their vectors, a vector per text in
        order; leaving the block stops the worker (a failed run does not wait for the stage).

        Why a worker: the entity and community stages follow the number of entities (~14x as many per word in
        small documents as in long ones), and the stages between them (titles, summaries, describe, relate) are
        single-threaded Python and graph writes that left a core idle; ONNX Runtime releases the GIL, so they
        run beside the embedding. Each distinct text is embedded once, shortest first: a community that splits
        no further is its own parent, members, title and summary alike, at the next level (604 of 1,545
        community texts over MuSiQue's 1,890 passages repeat), and the embedder pads each batch to its longest
        text but sorts only the EMBED_STEP texts of a call, so texts sorted across the whole stage are padded
        less. The vectors are the same in any order and on any thread: a text's does not depend on what it is
        batched with."""
        distinct = sorted(dict.fromkeys(texts), key=len)
        worker = EmbedWorker(self.embedder, distinct, EMBED_STEP)
        self.tick(stage, 0, len(distinct))

        @functools.cache  # the stage's seconds are counted once, however often its vectors are asked for
        def wait() -> np.ndarray:
            done = worker.result(lambda n: self.tick(stage, n, len(distinct)))
            # the worker's own wall time, as for the chunks' "embed" stage: it overlaps the stages it ran beside
            self.report.seconds[stage] = round(self.report.seconds.get(stage, 0.0) + worker.seconds, 3)
            self.tick(stage, len(distinct), len(distinct))
            row = {text: i for i, text in enumerate(distinct)}
            return done[[row[text] for text in texts]]

        try:
            yield wait
        finally:
            worker.close()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """A vector per text, in order: a chunk this run embedded answers from its vector (the same the embedder
        would give: a text's vector does not depend on what it is batched with), every other text is embedded.
        Why: the title step weighs phrases against the passages of the communities it titles; embedding those
        passages again was half its CPU on MuSiQue's 1,890 passages (12.4 -> 6.2 s), for vectors the run had."""
        missing = [text for text in dict.fromkeys(texts) if text not in self.chunk_vectors]
        found = dict(zip(missing, self.embedder.embed(missing), strict=True)) if missing else {}
        vectors = [self.chunk_vectors[text] if text in self.chunk_vectors else found[text] for text in texts]
        return np.stack(vectors) if vectors else np.zeros((0, self.embedder.dim), dtype=np.float32)

    def write_documents(self, docs: list[SourceDocument]) -> None:
        chunked: list[list[Chunk]] = []
        facts: list[DocumentFacts] = []
        s = self.settings
        with self.stage("chunk", len(docs)):
            for i, doc in enumerate(docs):
                language = languages.language(doc.path)  # code is parsed once, for its chunks and its symbols
                outline = code_outline.parse(language, doc.text) if language else None
                chunked.append(chunk_source(doc.path, doc.text, outline, s.chunk_tokens, s.chunk_overlap))
                facts.append(repo_facts.of(doc.path, doc.text, outline))
                self.tick("chunk", i + 1, len(docs), doc.path)
        texts = [c.text for chunks in chunked for c in chunks]
        worker = EmbedWorker(self.embedder, texts, EMBED_STEP)  # embeds while this thread extracts
        try:
            self.tick("embed", 0, len(texts))
            extractions = self.extract(docs, chunked, lambda: self.tick("embed", worker.progress(), len(texts)))
            vectors = worker.result(lambda done: self.tick("embed", done, len(texts)))
        finally:
            worker.close()
        self.report.seconds["embed"] = round(self.report.seconds.get("embed", 0.0) + worker.seconds, 3)
        self.tick("embed", len(texts), len(texts))
        self.chunk_vectors.update(zip(texts, vectors, strict=True))
        offset = 0
        failed = {issue.path: issue.message for issue in self.report.issues}  # extraction failures, by path
        batch: list[WrittenDocument] = []
        with self.stage("write", len(docs)):
            for i, (doc, chunks, found, fact) in enumerate(zip(docs, chunked, extractions, facts, strict=True)):
                status: Status = "failed" if doc.path in failed else self.planned.get(doc.path, "indexed")
                outcome = DocumentEvent(doc.path, status, failed.get(doc.path, ""))
                stored = doc.path not in self.unstored
                rows = vectors[offset : offset + len(chunks)]
                batch.append(WrittenDocument(doc, chunks, rows, found, fact, outcome, stored))
                offset += len(chunks)
                if i + 1 == len(docs) or sum(len(w.chunks) for w in batch) >= WRITE_BATCH_CHUNKS:
                    self.write_batch(batch)
                    self.tick("write", i + 1, len(docs), doc.path)
                    for written in batch:
                        self.said(written.doc.path, written.outcome.status, written.outcome.reason)
                    batch = []

    def extract(
        self, docs: list[SourceDocument], chunked: list[list[Chunk]], between: Callable[[], None]
    ) -> list[list[ChunkExtraction]]:
        """Entities and relations per chunk of each document; `between()` after each and while waiting for the
        extraction process (embed progress). A document whose extraction fails is reported as an issue and
        written without entities: the other documents, and its own chunks, are still indexed."""
        # code and configuration: symbols instead of entities
        extractions = [[ChunkExtraction() for _ in chunks] for chunks in chunked]
        prose = [i for i, doc in enumerate(docs) if languages.has_prose(doc.path)]
        s = self.settings
        jobs = [(docs[i].text, chunked[i]) for i in prose]
        with (
            self.stage("extract", len(docs)),
            offline_extractions(jobs, s.extract_processes, s.extract_process_min_words, between) as outcomes,
        ):
            for i, outcome in zip(prose, outcomes, strict=True):
                doc, chunks = docs[i], chunked[i]
                if isinstance(outcome, Exception):
                    message = f"entity extraction failed ({type(outcome).__name__}: {outcome})"[:300]
                    self.report.issues.append(LoadIssue(doc.path, f"{message}; indexed without entities"))
                else:
                    extractions[i] = outcome
                if self.chat is not None:
                    extractions[i], notes = extract_with_llm(
                        chunks, extractions[i], self.chat, self.report.usage, s.llm_concurrency
                    )
                    self.report.notes.extend(f"{doc.path} {note}" for note in notes)
                self.tick("extract", i + 1, len(docs), doc.path)
                between()
        return extractions

    def write_batch(self, batch: Sequence[WrittenDocument]) -> None:
        source = {w.doc.path: self.origin or self.roots.get(w.doc.path, "") for w in batch}
        for key, n in write_documents(self.graph, self.report.project, batch, source).items():
            self.count(key, n)

    # --- derived graph ------------------------------------------------------------------------
    def reconcile(self, resumed: bool) -> None:
        """Bring entities, RELATED and communities in line with the chunks; write only differences.

        `resumed`: the last run stopped before its communities were done, so the stored communities may not
        be those of the stored RELATED edges, and are recomputed from scratch instead of kept where unchanged.

        Order: the graph is written as ever (entities, then RELATED, then communities), but the communities are
        computed before the first of those writes, so that the entity vectors are embedded on a worker while
        the communities, their titles and summaries are computed, and the community vectors while the entities
        and RELATED are written (`embedding`). What they are computed from is read before the writes, and is
        what it would be after them: the writes before the communities' touch no chunk, community or link of a
        wanted entity, and the one read they change, RELATED, loses exactly the edges of the entities deleted
        (DETACH DELETE), which are left out of it here."""
        g = self.graph
        with self.stage("references"):
            written, dropped = g.sync_refers(references.resolve(g.referrers(), g.definitions()))
            self.count("references", written)
            self.count("references_deleted", dropped)
            self.count("links_deleted", g.delete_unlinked_urls())
        with self.stage("resolve"):
            found = g.mentions()
            merged = resolution.resolve(resolution.keys_of(found))
            wanted = entities.resolve(found, merged)
            stored = g.entities()
            stale = sorted(set(stored) - set(wanted))
            todo = entities.changed(wanted, stored)
            mentions = [{**row, "entity": merged.of(row["key"])} for row in found]
            edges = relations.aggregate(g.chunk_relations(), wanted, merged.canonical)
            derived = relations.entity_fields(edges, mentions, g.chunk_dates())
            moved = [
                {"chunk": row["chunk"], "key": row["key"], "old": row["entity"], "new": merged.of(row["key"])}
                for row in found
                if merged.of(row["key"]) != row["entity"]
            ]
            gone = set(stale)
            stored_edges = {pair: row for pair, row in g.related().items() if gone.isdisjoint(pair)}
            write, drop = relations.diff(edges, stored_edges)
        # Only what Leiden sees moves a community: an edge added, dropped or reweighted (an edited document
        # re-dates every edge it supports, which leaves the partition alone).
        touched = [
            pair for pair, row in edges.items() if stored_edges.get(pair, {}).get("weight") != row["weight"]
        ] + drop
        changed = None if resumed else frozenset(e for pair in touched for e in pair)
        with self.embedding([e.embedding_text() for e in todo], "entity embeddings") as entity_vectors:
            plan = self.communities(wanted, edges, mentions, changed)
            texts = [f"{r.title}\n{r.summary}" for _c, r in plan.made]
            with self.embedding(texts, "community embeddings") as community_vectors:
                self.describe(todo, entity_vectors(), derived, moved, stale)
                with self.stage("relate"):
                    g.write_related(write)
                    g.delete_related(drop)
                    degrees = g.sync_degrees()
                    dated = g.sync_timestamps()
                self.count("relationships", len(write))
                self.count("relationships_deleted", len(drop))
                self.count("degrees", degrees)
                self.count("timestamps", dated)
                self.write_communities(plan, mentions, community_vectors())

    def describe(
        self,
        todo: list[entities.Entity],
        vectors: np.ndarray,
        derived: dict[str, dict[str, Any]],
        moved: list[dict[str, Any]],
        stale: list[str],
    ) -> None:
        """Write the changed entities with their vectors, move merged keys' mentions (`moved`: {chunk, key, old,
        new}), delete the stale entities."""
        g = self.graph
        with self.stage("describe", len(todo)):
            unrelated = {"degree": 0, "updated_at": None, "ingested_at": None}
            g.write_entities(
                [
                    {**e.row(), **derived.get(e.id, unrelated), "embedding": v.tolist()}
                    for e, v in zip(todo, vectors, strict=True)
                ],
                derived=True,
            )
            # Merged keys' mentions move to their entity before the entities nobody resolves to are deleted.
            g.repoint_mentions(moved)
            g.delete_nodes(g.settings.entity_label, stale)
        self.count("mentions_moved", len(moved))
        self.count("entities", len(todo))
        self.count("entities_deleted", len(stale))

    def rebuild_vector_indexes(self) -> None:
        """After a bulk write, the vector indexes it filled are rebuilt in one pass (`GraphStore.
        rebuild_vector_indexes`: on Neo4j, a search of the index as written cost ten times one of the rebuilt)."""
        if not self.store.vectors.in_graph:
            return  # the vectors live in Qdrant, and the graph's vector indexes hold none
        s, written = self.settings, self.report.written
        wrote = {s.chunk_label: "chunks", s.entity_label: "entities", s.community_label: "communities"}
        with self.stage("vector indexes"):
            rebuilt = self.store.rebuild_vector_indexes({label: written.get(key, 0) for label, key in wrote.items()})
        self.count("vector_indexes_rebuilt", len(rebuilt))

    def communities(
        self,
        wanted: dict[str, entities.Entity],
        edges: dict[tuple[str, str], dict[str, Any]],
        mentions: list[dict[str, Any]],
        changed: frozenset[str] | None,
    ) -> _Communities:
        """Communities, keeping the stored ones none of whose entities' relationships `changed` (None: all
        recomputed); only new communities are summarised (and later embedded). Reads the graph, writes nothing."""
        g, s = self.graph, self.settings
        with self.stage("communities"):
            existing = g.community_ids()
            links = g.community_links()
            previous = communities.Previous(
                community_of={m: k for m, k in links if m in wanted},
                parent_of={m: k for m, k in links if m in existing},
                changed=changed or frozenset(),
            )
            tree = communities.hierarchy(
                self.report.project,
                sorted(wanted),
                communities.damped(
                    [(a, b, row["weight"]) for (a, b), row in sorted(edges.items())],
                    mentions,
                    {key for key, entity in wanted.items() if entity.type == "PERSON"},
                ),
                max_size=s.max_community_size,
                max_levels=s.community_levels,
                previous=None if changed is None else previous,
            )
            # A community written by a run killed before its vector was stored is written again.
            done = existing & g.vectors.ids(s.community_label, self.report.project)
            new = [c for c in tree if c.id not in done]
        made: list[tuple[communities.Community, reports.Report]] = []
        with self.stage("summaries", len(new)):
            named = (
                titles.community_titles(tree, wanted, mentions, g.chunk_texts(), self.embed_passages)
                if new and self.chat is None
                else {}
            )
            relations = reports.index_relations(edges)
            for i, community in enumerate(new):
                view = reports.CommunityView.of(community, wanted, relations)
                if self.chat is None:
                    made.append((community, reports.extractive_report(view, named.get(community.id))))
                else:
                    report, notes = reports.llm_report(view, self.chat, self.report.usage)
                    made.append((community, report))
                    self.report.notes.extend(f"community {community.id}: {note}" for note in notes)
                self.tick("summaries", i + 1, len(new))
        return _Communities(tree, existing, links, made)

    def write_communities(self, plan: _Communities, mentions: list[dict[str, Any]], vectors: np.ndarray) -> None:
        """Delete the stored communities the plan does not keep, write its new ones with their vectors, link."""
        g = self.graph
        stale = sorted(plan.existing - {c.id for c in plan.tree})
        with self.stage("community links"):
            g.delete_nodes(g.settings.community_label, stale)
            g.write_communities(
                [
                    {
                        "id": c.id,
                        "level": c.level,
                        "title": r.title,
                        "summary": r.summary,
                        "full_content": r.full_content,
                        "rank": r.rank,
                        "size": len(c.members),
                        "source_chunks": list(r.source_chunks),
                        "embedding": v.tolist(),
                    }
                    for (c, r), v in zip(plan.made, vectors, strict=True)
                ]
            )
            self._link(plan.tree, mentions, plan.links)
        self.count("communities", len(plan.made))
        self.count("communities_deleted", len(stale))

    def _link(self, tree: list[Community], mentions: list[dict[str, Any]], have: set[tuple[str, str]]) -> None:
        """Entities and chunks -> level-0 communities, child -> parent; only links not already there.

        `mentions` are the ones the entities were resolved from (read once: the project's largest read), `have`
        the links read before stale communities were deleted (a deleted community is linked to by nothing new)."""
        g = self.graph
        level0 = {e: c.id for c in tree if c.level == 0 for e in c.members}
        entity_links = sorted((e, k) for e, k in level0.items())
        chunk_links = sorted({(row["chunk"], level0[row["entity"]]) for row in mentions if row["entity"] in level0})
        parent_links = sorted((c.id, c.parent) for c in tree if c.parent)
        for label, links in (
            (g.lab.entity, entity_links),
            (g.lab.chunk, chunk_links),
            (g.lab.community, parent_links),
        ):
            g.link_communities(label, [{"member": m, "community": k} for m, k in links if (m, k) not in have])


def _load(run: _Run, paths: Sequence[Path]) -> tuple[list[SourceDocument], list[str]]:
    """Documents to (re)write, and the stored paths to delete; fills the report's added/updated/unchanged."""
    limits = LoadLimits.of(run.settings)
    total = count_candidates(list(paths), limits)
    done: list[str] = []

    def file_done(path: str) -> None:
        done.append(path)
        run.tick("load", len(done), total, path)

    with run.stage("load", total):
        loaded = load(list(paths), limits, on_file=file_done)
    run.report.issues.extend(loaded.issues)
    run.roots = loaded.roots
    stored = run.graph.documents()
    todo = []
    for doc in loaded.documents:
        have = stored.get(doc.path)
        if have is not None and have["content_hash"] == doc.content_hash:
            run.report.unchanged.append(doc.path)
            run.said(doc.path, "unchanged")
            if have["status"] in ("failed", "skipped"):  # readable again: the stored copy is current after all
                run.graph.set_status(have["id"], "unchanged", "")
            continue
        (run.report.added if have is None else run.report.updated).append(doc.path)
        if have is None:
            run.unstored.add(doc.path)
        # a first write a killed run left unfinished is still a first write
        run.planned[doc.path] = "indexed" if have is None or not (have["content_hash"] or have["status"]) else "updated"
        todo.append(doc)
        run.said(doc.path, "queued")
    for issue in loaded.issues:
        status = issue_status(issue)
        run.said(issue.path, status, issue.message)
        if issue.path in stored and issue.keeps_stored:  # the stored copy stays, and says why it is not current
            run.graph.set_status(stored[issue.path]["id"], status, issue.message)
    present = {doc.path for doc in loaded.documents} | {i.path for i in loaded.issues if i.keeps_stored}
    gone = sorted(p for p in stored if p not in present and any(p.startswith(scope) for scope in loaded.scopes))
    return todo, gone


def run_index(
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    paths: Sequence[Path],
    *,
    project: str | None = None,
    on_progress: ProgressCallback | None = None,
    chat_model: ChatModel | None = None,
    on_document: DocumentCallback | None = None,
    origin: str | None = None,
) -> IndexReport:
    """Index files/folders/zips into `project`; a folder run also deletes documents gone from the folder.

    `on_document` hears each document's status as the run decides or writes it; `origin` names where the files
    came from when their location means nothing (`"upload"`), else each document records the folder, file or
    archive it was read from (what a re-index reads again)."""
    run = _Run(
        settings,
        store,
        embedder,
        project or settings.project,
        on_progress=on_progress,
        chat_model=chat_model,
        on_document=on_document,
        origin=origin,
    )
    info = run.prepare()
    todo, gone = _load(run, paths)
    run.report.deleted.extend(gone)
    _apply(run, info, todo, gone)
    return run.report


def remove_document(
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    document: str,
    *,
    project: str | None = None,
    on_progress: ProgressCallback | None = None,
    chat_model: ChatModel | None = None,
) -> IndexReport:
    """Delete a document (by id, path or title) with its chunks, then reconcile what depended on it."""
    run = _Run(settings, store, embedder, project or settings.project, on_progress=on_progress, chat_model=chat_model)
    info = run.prepare()
    stored = run.graph.documents()
    matches = [p for p, row in stored.items() if document in (row["id"], p, row["title"])]
    if len(matches) != 1:
        known = ", ".join(sorted(stored)[:10]) or "none"
        what = "matches several documents" if matches else "matches no document"
        raise DriftLensError(f"'{document}' {what} in project '{run.report.project}' (documents: {known}).")
    run.report.deleted.append(matches[0])
    _apply(run, info, [], matches)
    return run.report


def _apply(run: _Run, info: dict[str, Any] | None, todo: list[SourceDocument], gone: list[str]) -> None:
    g = run.graph
    if not (todo or gone or (info and info.get("dirty"))):
        return
    g.set_dirty(True)
    stored = g.documents()
    for path in gone:
        g.delete_document(stored[path]["id"])
        run.said(path, "removed")
    if todo:
        run.write_documents(todo)
    run.reconcile(resumed=bool(info and info.get("dirty")))
    run.rebuild_vector_indexes()
    run.count("vectors_dropped", g.sync_vectors())
    g.set_dirty(False)
    g.set_last_run({k: len(getattr(run.report, k)) for k in ("added", "updated", "unchanged", "deleted")})
