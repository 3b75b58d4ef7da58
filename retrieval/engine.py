"""Engine: the one object the UI, the CLI and notebooks talk to.

Why a facade: pages stay thin (read widgets, call one method, render an Answer) and every
entry point gets the same checks — embedder matches the graph, questions and project names are
cleaned of text no encoder accepts, empty questions and empty graphs answer "no data found",
progress events are framed, usage is timed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder, make_embedder
from retrieval.errors import (
    ConfigError,
    DriftLensError,
    EmbeddingMismatch,
    IndexMissing,
    InvalidInput,
    StoreUnavailable,
)
from retrieval.indexing.documents import DocumentInfo, list_documents
from retrieval.judge.answerability import asked_about, decide, local_meanings
from retrieval.judge.confidence import assess, match_citations
from retrieval.llm.client import ChatModel, Message, make_chat_model
from retrieval.models import Answer, AnsweredBy, Mode, QueryParams
from retrieval.modes import mode_function
from retrieval.search import explore
from retrieval.search.enrich import check_retrieval_query
from retrieval.search.graph_search import GraphSearch, graph_search
from retrieval.search.ranking import missing_data
from retrieval.search.scope import whole_graph_scope
from retrieval.store import GraphStore, Health, open_store
from retrieval.telemetry.events import ProgressBus, ProgressEvent, RetrievalProgress, completion_details
from retrieval.text.clean import clean_text
from retrieval.text.readable import nothing_to_search
from retrieval.text.redact import redact

ProgressCallback = Callable[[ProgressEvent], None]


class Engine:
    def __init__(
        self,
        settings: Settings,
        *,
        store: GraphStore | None = None,
        embedder: Embedder | None = None,
        llm: ChatModel | None = None,
        opening: Callable[[str], None] | None = None,
    ) -> None:
        """Open the graph and the embedder; `opening` hears each step, for a person waiting on a slow open."""
        tell = opening or (lambda _message: None)
        self.store = store or open_store(settings, tell)
        self.settings = self.store.adopt_indexes(settings)  # a graph another tool built: its indexes, by name
        if embedder is None:
            tell("Loading the embedder")
        self.embedder = embedder or make_embedder(settings)
        self.meanings = local_meanings(settings)
        self.llm = llm if llm is not None else make_chat_model(settings)
        self.bus = ProgressBus(settings, default_url=self.store.pubsub_url)
        tell("Checking the graph")
        self.check_embedder()
        check_retrieval_query(self.context())  # a bad enrichment query fails now, not on the first question
        self.embedder.embed_query("warm-up")  # loads the model now, so the first question is not the slow one

    # --- checks -----------------------------------------------------------------------------
    def check_embedder(self) -> None:
        """Refuse a graph indexed with another embedder: its vectors and ours are not comparable."""
        s = self.settings
        declared = s.vector_index_dimensions  # known models were checked with the settings; this catches the rest
        if declared is not None and declared != self.embedder.dim:
            raise ConfigError(
                f"VECTOR_INDEX_DIMENSIONS={declared} does not match the embedder {self.embedder.name} "
                f"({self.embedder.dim}-d); set it to {self.embedder.dim} or unset it."
            )
        rows = self.store.read(
            f"MATCH (p:`{s.project_label}`) WHERE p.embedder IS NOT NULL RETURN p.embedder AS name, p.dim AS dim"
        )
        for row in rows:
            if row["name"] != self.embedder.name or int(row["dim"] or 0) != self.embedder.dim:
                raise EmbeddingMismatch(str(row["name"]), int(row["dim"] or 0), self.embedder.name, self.embedder.dim)
        dim = self.store.vectors.dimension(s.chunk_label)
        if dim is not None and dim != self.embedder.dim:
            raise EmbeddingMismatch(f"(index {s.chunk_vector_index})", dim, self.embedder.name, self.embedder.dim)

    # --- reads ------------------------------------------------------------------------------
    def context(self, project: str | None = None, *, every_project: bool = False, **settings_update: Any) -> Context:
        """The per-call context; `settings_update` changes settings for this call only (e.g. a request's caps).

        A graph with no projects, asked for none, is read whole (see search.scope); decided per call, so a project
        indexed meanwhile confines the next read at once. `every_project` reads the whole graph whatever it holds:
        the service's contract, where an omitted project means "not scoped" rather than the configured one."""
        settings = self.settings.model_copy(update=settings_update) if settings_update else self.settings
        name = clean_text(project or self.settings.project)
        scoped = not every_project and not whole_graph_scope(self.store, self.settings, name)
        return Context(settings, self.store, self.embedder, self.llm, name, scoped)

    def params(self, **overrides: Any) -> QueryParams:
        return QueryParams.from_settings(self.settings, **overrides)

    def health(self) -> Health:
        """The store's health; when the database is unreachable, one reconnect first (raises while still down).

        Why here: the app asks for health on every run, so a database that died and came back (an embedded server
        started again, a Neo4j the driver reaches again) clears the app's banner without restarting the app.
        """
        try:
            return self.store.health()
        except StoreUnavailable:
            self.store.reconnect()
            return self.store.health()

    def projects(self) -> list[str]:
        rows = self.store.read(f"MATCH (p:`{self.settings.project_label}`) RETURN p.name AS name ORDER BY name")
        return [str(r["name"]) for r in rows if r["name"]]

    def documents(self, project: str | None = None, *, every_project: bool = False) -> list[DocumentInfo]:
        """The documents of `project` (default: the configured one; `every_project`: all) with their size, chunk and
        entity counts, content hash and what the last run did to each."""
        return list_documents(
            self.store, self.settings, None if every_project else clean_text(project or self.settings.project)
        )

    @property
    def llm_description(self) -> str | None:
        return self.llm.describe() if self.llm else None

    def search(
        self,
        query: str,
        params: QueryParams | None = None,
        *,
        project: str | None = None,
        every_project: bool = False,
        query_vector: list[float] | None = None,
        walk: bool = True,
    ) -> GraphSearch:
        """Ranked chunks and the graph around `query` as data (seeds, neighbours, per-arm scores, timings).

        `walk=False` for a caller that reads the chunks only: the same chunks without the neighbours' walk."""
        if query_vector is not None and len(query_vector) != self.embedder.dim:
            raise InvalidInput(
                f"The embedding has {len(query_vector)} dimensions; this graph's embedder "
                f"{self.embedder.name} makes {self.embedder.dim}."
            )
        ctx = self.context(project, every_project=every_project)
        found = _unless_empty(
            ctx,
            lambda: graph_search(
                ctx,
                clean_text(query).strip(),
                params or self.params(),
                query_vector=query_vector,
                walk=walk,
            ),
        )
        return found or GraphSearch(no_data=missing_data(ctx), project=ctx.project)

    def ask(
        self,
        question: str,
        mode: Mode = "local",
        params: QueryParams | None = None,
        *,
        project: str | None = None,
        every_project: bool = False,
        on_progress: ProgressCallback | None = None,
        max_communities: int | None = None,
        history: list[Message] | None = None,
    ) -> Answer:
        """Answer in any mode; the modes fill in the middle phases, the engine frames start, end and errors.

        `max_communities` caps the community reports global mode reads for this question only. `history` (earlier
        questions and answers of a conversation) reaches agent mode, the one mode that reads a conversation
        itself; the others get a follow-up already resolved (`retrieval.conversation.thread`). `every_project`: see
        `context`.
        """
        caps = {"global_max_communities": max_communities} if max_communities else {}
        ctx = self.context(project, every_project=every_project, **caps)
        params = params or self.params()
        progress = self.bus.retrieval(ctx.project, callbacks=[on_progress] if on_progress else [])
        progress.emit("initializing", 0, f"{mode} search on {ctx.scope_description}")
        answered_by: AnsweredBy = "llm" if self.llm else "extractive"
        question = clean_text(question).strip()
        if not question:
            progress.emit("completed", 100, "empty question")
            return Answer.empty("", mode, answered_by, "Type a question to search the graph.")
        unsearchable = nothing_to_search(question) if mode != "agent" else None
        if unsearchable:
            progress.emit("completed", 100, "nothing to search for")
            return Answer.empty(question, mode, answered_by, unsearchable)
        started = time.perf_counter()
        try:
            answer = _unless_empty(ctx, lambda: self._run(ctx, mode, question, params, progress, history=history))
            answer = answer or Answer.empty(question, mode, answered_by, missing_data(ctx) or "No data found")
        except Exception as exc:  # every failed run ends with an event, or subscribers wait forever
            progress.emit("error", 100, _failure(exc))
            raise
        answer.usage.wall_ms = (time.perf_counter() - started) * 1000
        answer.params = params.model_dump(mode="json")
        self.judge(answer, ctx)
        summary = "no data found" if answer.no_data_found else "answer ready"
        progress.emit("completed", 100, summary, completion_details(answer.citations()))
        return answer

    @staticmethod
    def _run(
        ctx: Context,
        mode: Mode,
        question: str,
        params: QueryParams,
        progress: RetrievalProgress,
        *,
        history: list[Message] | None,
    ) -> Answer:
        """The mode's answer; agent mode with a conversation's history gets the earlier turns too."""
        if mode == "agent" and history:
            from retrieval.modes.agent import run_agent

            return run_agent(ctx, question, params, progress, history=history)[0]
        return mode_function(mode)(ctx, question, params, progress)

    def judge(self, answer: Answer, ctx: Context) -> None:
        """Check each citation's span against its source, rate the answer's confidence and decide whether the
        documents answer it at all (every face's answers, every mode). Whether the documents hold the asked-about
        words at all is read here, from the chunk index, since an answer's evidence is only its best passages."""
        texts = {h.id: h.text for h in answer.evidence}
        missing = [c.chunk_id for c in answer.citations() if c.kind == "chunk" and c.chunk_id not in texts]
        texts.update({chunk_id: hit.text for chunk_id, hit in explore.chunks(ctx, missing).items()})
        match_citations(answer, texts)
        answer.confidence = assess(answer)
        held = None if answer.no_data_found else _holding(ctx, asked_about(answer.question))
        decide(answer, held, self.meanings)

    def close(self) -> None:
        self.bus.close()
        self.store.close()


def _unless_empty[T](ctx: Context, run: Callable[[], T]) -> T | None:
    """`run()`, or None when it failed for want of an index because the project has no data at all.

    A graph nothing was indexed into has no indexes either; that is "no data found", not an error. When the
    project does have chunks, the missing index is a real fault and `missing_data` raises it again.
    """
    try:
        return run()
    except IndexMissing:
        if missing_data(ctx) is None:
            raise
        return None


def _holding(ctx: Context, words: list[str]) -> dict[str, bool] | None:
    """Whether a passage of the question's project holds each word, by the chunk keyword index; None
    without one (a graph built with no keyword index, or not yet holding it): the answer's evidence then stands
    in for the documents.

    Within the project, never over the whole graph: "no passage of these documents mentions ..." would otherwise
    tell an analyst of one project whether another project's documents hold a word.
    """
    s = ctx.settings
    if not s.chunk_fulltext_index:
        return None
    try:
        return ctx.store.holds(s.chunk_label, words, index=s.chunk_fulltext_index, filters=ctx.project_filter)
    except IndexMissing:
        return None


def _failure(exc: Exception) -> str:
    """The error event's text: a product error's own message, else the exception's kind too; secrets masked."""
    return redact(str(exc) if isinstance(exc, DriftLensError) else f"{type(exc).__name__}: {exc}")
