"""GraphContextProvider: DriftLens's knowledge graph and conversation memory inside a Microsoft Agent Framework agent.

Why it looks like this:
- It subclasses agent-framework-core's `ContextProvider` (1.23: `before_run`/`after_run` hooks) and keeps the
  names other graph providers use (`thread_created`, `invoking`, `invoked`) as its own public steps, so it can be
  driven by the framework or called directly from code that has no agent.
- The search text is the last N user/assistant messages concatenated as-is: no entity extraction, so what the
  model sees depends only on the conversation and the configured index, and is reproducible.
- Graph access goes only through the GraphStore port, so the same provider works on embedded FalkorDB and Neo4j.
- The constructor takes the context-provider design's keywords (`uri`, `username`, `password`, `index_name`,
  `index_type`, `fulltext_index_name`, `retrieval_query`, `top_k`, `message_history_count`, `memory_enabled`,
  the scope ids) with its defaults (10 messages, memory off), and `Neo4jContextProvider` names the class as the
  published agent-framework-neo4j package does: code written for that package switches by changing its import.
- Store calls are blocking; they run in a worker thread so an agent's event loop keeps serving other work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from agent_framework import AgentSession, ContextProvider, Message, SessionContext, SupportsAgentRun
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from retrieval.config import Settings, load_settings
from retrieval.context import Context
from retrieval.conversation.memory import MemoryMessage, MemoryRecord, MemoryStore, Scope
from retrieval.embed import Embedder
from retrieval.errors import ConfigError
from retrieval.models import Hit, QueryParams
from retrieval.store import GraphStore, open_store
from retrieval.text.redact import register_secrets

CONVERSATION_ROLES = frozenset({"user", "assistant"})
DEFAULT_CONTEXT_PROMPT = (
    "## Context from the knowledge graph and earlier conversations\n"
    "Use it when it is relevant; each line starts with its relevance score."
)


class ProviderConfig(BaseModel):
    """What the provider searches and how much it returns; invalid combinations fail at construction."""

    model_config = ConfigDict(extra="forbid")

    #: The index searched: the vector index for `vector` and `hybrid`, the fulltext index for `fulltext`
    #: (defaults to the settings' chunk indexes).
    index_name: str | None = None
    index_type: Literal["vector", "fulltext", "hybrid"] = "vector"
    #: The fulltext index of `hybrid` search (defaults to `settings.chunk_fulltext_index`).
    fulltext_index_name: str | None = None
    #: Enrichment Cypher that receives `node` and `score` (defaults to `settings.retrieval_query`).
    retrieval_query: str | None = None
    top_k: int = Field(5, ge=1, le=200)
    message_history_count: int = Field(10, ge=1)
    #: Store each exchange as Memory nodes of the scope and recall them; off unless asked, as in the design.
    memory_enabled: bool = False
    memory_top_k: int = Field(5, ge=0, le=200)
    application_id: str | None = None
    agent_id: str | None = None
    user_id: str | None = None
    thread_id: str | None = None
    scope_to_per_operation_thread_id: bool = False
    project: str | None = None
    context_prompt: str = DEFAULT_CONTEXT_PROMPT


def format_line(score: float, metadata: Mapping[str, Any], text: str) -> str:
    """`[Score: 0.892] [key: value] text`: the score first so a model (and a reader) can weigh each line."""
    tags = "".join(f"[{key}: {value}] " for key, value in metadata.items() if value not in (None, ""))
    return f"[Score: {score:.3f}] {tags}{' '.join(text.split())}"


class GraphContextProvider(ContextProvider):
    """Adds graph search results and scoped memories before each run; remembers the exchange after it.

    Use it as an async context manager: `async with GraphContextProvider(settings, ...) as provider:`
    connects to the configured graph on enter and closes it on exit (a store passed in stays open).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        uri: str | None = None,
        username: str | None = None,
        password: str | None = None,
        embedder: Embedder | None = None,
        store: GraphStore | None = None,
        source_id: str = "driftlens",
        **config: Any,
    ) -> None:
        super().__init__(source_id)
        try:
            self.config = ProviderConfig(**config)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ConfigError(f"Invalid GraphContextProvider configuration: {problems}") from None
        c = self.config
        settings = _connection(settings, uri, username, password)
        if c.index_type == "fulltext":
            fulltext_index = c.index_name or c.fulltext_index_name or settings.chunk_fulltext_index
        else:
            fulltext_index = c.fulltext_index_name or settings.chunk_fulltext_index
        if c.index_type in ("fulltext", "hybrid") and not fulltext_index:
            raise ConfigError(f"index_type '{c.index_type}' needs a fulltext index name (fulltext_index_name=...).")
        if c.index_type in ("vector", "hybrid") and embedder is None:
            raise ConfigError(f"index_type '{c.index_type}' needs an embedder (embedder=make_embedder(settings)).")
        vector_index = c.index_name if c.index_name and c.index_type != "fulltext" else settings.chunk_vector_index
        self.settings = settings.model_copy(
            update={
                "chunk_vector_index": vector_index,
                "chunk_fulltext_index": fulltext_index,
                "retrieval_query": c.retrieval_query or settings.retrieval_query,
                "search_type": c.index_type,
            }
        )
        self.embedder = embedder
        self.scope = Scope(c.application_id, c.agent_id, c.user_id, c.thread_id)
        if c.memory_enabled and not c.scope_to_per_operation_thread_id:
            self.scope.filters()  # at least one scope value, checked now rather than at the first message
        self._store = store
        self._owns_store = store is None
        self._memory: MemoryStore | None = None
        self._entered = False
        self._operation_thread_id: str | None = None

    # --- lifecycle ------------------------------------------------------------------------------
    async def __aenter__(self) -> GraphContextProvider:
        if self._store is None:
            self._store = await asyncio.to_thread(open_store, self.settings)
        if self.config.memory_enabled:
            self._memory = MemoryStore(self._store, self.settings, self.embedder)
            await asyncio.to_thread(self._memory.ensure_schema)
        self._entered = True
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._owns_store and self._store is not None:
            await asyncio.to_thread(self._store.close)
            self._store = None
        self._memory = None
        self._entered = False

    @property
    def store(self) -> GraphStore:
        return self._connected()[0]

    @property
    def memory(self) -> MemoryStore | None:
        """The scoped memory once connected; None unless the provider was built with `memory_enabled=True`."""
        return self._connected()[1]

    def _connected(self) -> tuple[GraphStore, MemoryStore | None]:
        if not self._entered or self._store is None:
            raise ConfigError("GraphContextProvider is not connected: use it as `async with provider:`.")
        return self._store, self._memory

    # --- framework hooks -------------------------------------------------------------------------
    async def before_run(
        self, *, agent: SupportsAgentRun, session: AgentSession, context: SessionContext, state: dict[str, Any]
    ) -> None:
        await self.thread_created(context.session_id or session.session_id)
        messages = await self.invoking(context.get_messages(include_input=True))
        if messages:
            context.extend_messages(self, messages)

    async def after_run(
        self, *, agent: SupportsAgentRun, session: AgentSession, context: SessionContext, state: dict[str, Any]
    ) -> None:
        response = context.response.messages if context.response else []
        await self.invoked(context.input_messages, response)

    # --- steps ----------------------------------------------------------------------------------
    async def thread_created(self, thread_id: str | None) -> None:
        """With `scope_to_per_operation_thread_id`, the first thread id seen becomes the memory scope for good."""
        if not self.config.scope_to_per_operation_thread_id or not thread_id:
            return
        if self._operation_thread_id is None:
            self._operation_thread_id = thread_id
        elif thread_id != self._operation_thread_id:
            raise ValueError(
                f"This provider is scoped to thread {self._operation_thread_id!r} and cannot serve thread "
                f"{thread_id!r}; create one provider per thread when scope_to_per_operation_thread_id is on."
            )

    async def invoking(self, messages: Message | Sequence[Message]) -> list[Message]:
        """Context messages for the recent conversation: graph hits and memories, one formatted line each."""
        store = self.store
        recent = _conversation(messages)[-self.config.message_history_count :]
        text = "\n".join(m.text for m in recent if m.text.strip())
        if not text:
            return []
        hits, memories = await asyncio.to_thread(self._search, store, text)
        lines = [format_line(h.score, h.metadata, h.text) for h in hits]
        lines += [format_line(m.score or 0.0, {"memory": m.role, "at": m.timestamp[:19]}, m.text) for m in memories]
        if not lines:
            return []
        return [Message("user", [self.config.context_prompt + "\n" + "\n".join(lines)])]

    async def invoked(
        self, request_messages: Message | Sequence[Message], response_messages: Message | Sequence[Message] = ()
    ) -> None:
        """Store the request and the response as memories of this scope (roles per `settings.memory_roles`)."""
        memory = self.memory
        if memory is None:
            return
        exchange = [*_as_list(request_messages), *_as_list(response_messages)]
        items = [
            MemoryMessage(text=m.text, role=str(m.role), message_id=m.message_id or "", author_name=m.author_name or "")
            for m in exchange
        ]
        await asyncio.to_thread(memory.add, self.memory_scope, items)

    @property
    def memory_scope(self) -> Scope:
        if self.config.scope_to_per_operation_thread_id:
            return self.scope.with_thread(self._operation_thread_id)
        return self.scope

    # --- internals ------------------------------------------------------------------------------
    def _search(self, store: GraphStore, text: str) -> tuple[list[Hit], list[MemoryRecord]]:
        from retrieval.search.hybrid import search_chunks

        c = self.config
        vector = self.embedder.embed_query(text) if self.embedder is not None else None
        ctx = Context(self.settings, store, self.embedder, None, c.project or self.settings.project)  # type: ignore[arg-type]
        params = QueryParams.from_settings(self.settings, search_type=c.index_type, top_k=c.top_k)
        hits = search_chunks(ctx, text, params, query_vector=vector)
        memories: list[MemoryRecord] = []
        if self._memory is not None and c.memory_top_k:
            memories = self._memory.search(self.memory_scope, text, c.memory_top_k, query_vector=vector)
        return hits, memories


#: The class under the name the agent-framework-neo4j package gives it, so code written for it needs only a new import.
Neo4jContextProvider = GraphContextProvider


def _connection(settings: Settings | None, uri: str | None, username: str | None, password: str | None) -> Settings:
    """The settings with the design's connection keywords applied; unset, they come from the environment as there
    (`NEO4J_URI`, ...), and without a URI the graph is the embedded one the settings name."""
    given = {
        "neo4j_uri": uri,
        "neo4j_username": username,
        "neo4j_password": SecretStr(password) if password is not None else None,
    }
    overrides = {name: value for name, value in given.items() if value is not None}
    if settings is None:
        return load_settings(**overrides)
    if password is not None:
        register_secrets([password])  # model_copy skips the validator that registers secrets
    return settings.model_copy(update=overrides)


def _as_list(messages: Message | Sequence[Message]) -> list[Message]:
    return [messages] if isinstance(messages, Message) else list(messages)


def _conversation(messages: Message | Sequence[Message]) -> list[Message]:
    """User and assistant turns only: system prompts and tool traffic say nothing about what to look up."""
    return [m for m in _as_list(messages) if str(m.role) in CONVERSATION_ROLES]
