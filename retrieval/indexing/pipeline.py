"""The indexing run: load -> chunk -> embed -> extract -> write, then reconcile entities,
relationships and communities from what the chunks say.

Why this shape (restartable, incremental): documents are the only input. A document's
content_hash is written last, so a killed run redoes exactly the unfinished document; everything
derived (entities, RELATED, communities) is recomputed from the chunks and only the difference is
written, guarded by the project's `communities_dirty` flag, which is set before the first document
write and cleared after the communities are done. Unchanged input writes nothing at all.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import DriftLensError
from retrieval.indexing import batches, code_outline, languages, repo_facts
from retrieval.indexing.chunking import Chunk
from retrieval.indexing.code_chunking import chunk_source
from retrieval.indexing.derived import DerivedStages
from retrieval.indexing.document_writes import WrittenDocument, write_documents
from retrieval.indexing.embed_worker import EmbedWorker
from retrieval.indexing.extract_llm import extract_with_llm
from retrieval.indexing.extract_process import offline_extractions
from retrieval.indexing.model import ChunkExtraction, ProgressCallback
from retrieval.indexing.repo_facts import DocumentFacts
from retrieval.indexing.report import DocumentCallback, DocumentEvent, IndexReport, Status, issue_status
from retrieval.indexing.run_state import EMBED_STEP
from retrieval.indexing.sources import LoadIssue, LoadLimits, SourceDocument, count_candidates, load
from retrieval.llm.client import ChatModel
from retrieval.store.base import GraphStore

#: Chunks of the documents written together (begin, chunks, mentions, finish: a few statements per batch).
WRITE_BATCH_CHUNKS = 500


class _Run(DerivedStages):
    """One run: its state (`RunState`), the derived graph's stages (`DerivedStages`) and the documents' own."""

    # --- documents ----------------------------------------------------------------------------
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
        extractions = [[ChunkExtraction() for _ in chunks] for chunks in chunked]
        pending = deque(batches.plan([len(chunks) for chunks in chunked], WRITE_BATCH_CHUNKS))
        worker = EmbedWorker(self.embedder, texts, EMBED_STEP)  # embeds while this thread extracts

        def embedding(done: int) -> None:
            self.tick("embed", done, len(texts))

        def write_ready(extracted: int, wait: bool) -> None:
            """Write each next batch whose documents are all extracted and, unless `wait`, already embedded."""
            while pending and pending[0].end <= extracted and (wait or worker.progress() >= pending[0].chunks_end):
                batch = pending.popleft()
                vectors = worker.rows(batch.chunks_start, batch.chunks_end, embedding)
                self.write_batch(batch, vectors, docs=docs, chunked=chunked, extractions=extractions, facts=facts)

        def between(extracted: int) -> None:
            embedding(worker.progress())
            write_ready(extracted, wait=False)

        try:
            self.tick("embed", 0, len(texts))
            self.tick("write", 0, len(docs))
            self.extract(docs, chunked, extractions, between)
            write_ready(len(docs), wait=True)
            vectors = worker.result(embedding)
        finally:
            worker.close()
        self.add_seconds("embed", worker.seconds)
        self.tick("embed", len(texts), len(texts))
        self.tick("write", len(docs), len(docs))
        self.chunk_vectors.update(zip(texts, vectors, strict=True))

    def extract(
        self,
        docs: list[SourceDocument],
        chunked: list[list[Chunk]],
        extractions: list[list[ChunkExtraction]],
        between: Callable[[int], None],
    ) -> None:
        """Entities and relations per chunk of each document, into `extractions` (code and configuration keep
        theirs empty: symbols instead of entities); `between(n)` after each document and while waiting for the
        extraction process, `n` the documents whose extractions are final (the first n). A document whose
        extraction fails is reported as an issue and written without entities: the other documents, and its
        own chunks, are still indexed."""
        prose = [i for i, doc in enumerate(docs) if languages.has_prose(doc.path)]
        s = self.settings
        jobs = [(docs[i].text, chunked[i]) for i in prose]
        final = prose[0] if prose else len(docs)  # the documents before the next prose one have their extractions
        with (
            self.stage("extract", len(docs)),
            offline_extractions(
                jobs, s.extract_processes, s.extract_process_min_words, lambda: between(final)
            ) as outcomes,
        ):
            for n, (i, outcome) in enumerate(zip(prose, outcomes, strict=True), start=1):
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
                final = prose[n] if n < len(prose) else len(docs)
                between(final)

    def write_batch(
        self,
        batch: batches.Batch,
        vectors: np.ndarray,
        *,
        docs: list[SourceDocument],
        chunked: list[list[Chunk]],
        extractions: list[list[ChunkExtraction]],
        facts: list[DocumentFacts],
    ) -> None:
        """Write one planned batch (`vectors`: its chunks'), then tell each of its documents' outcome."""
        started = time.perf_counter()
        failed = {issue.path: issue.message for issue in self.report.issues}  # extraction failures, by path
        written: list[WrittenDocument] = []
        offset = 0
        for i in range(batch.start, batch.end):
            doc, chunks = docs[i], chunked[i]
            status: Status = "failed" if doc.path in failed else self.planned.get(doc.path, "indexed")
            outcome = DocumentEvent(doc.path, status, failed.get(doc.path, ""))
            rows = vectors[offset : offset + len(chunks)]
            written.append(
                WrittenDocument(doc, chunks, rows, extractions[i], facts[i], outcome, doc.path not in self.unstored)
            )
            offset += len(chunks)
        source = {w.doc.path: self.origin or self.roots.get(w.doc.path, "") for w in written}
        for key, n in write_documents(self.graph, self.report.project, written, source).items():
            self.count(key, n)
        self.add_seconds("write", time.perf_counter() - started)
        self.tick("write", batch.end, len(docs), docs[batch.end - 1].path)
        for w in written:
            self.said(w.doc.path, w.outcome.status, w.outcome.reason)


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
