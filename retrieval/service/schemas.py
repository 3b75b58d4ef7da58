"""Request and response bodies of the HTTP API (and of the MCP tools, which return the same JSON).

Why pydantic models with bounds on every field: FastAPI turns them into the OpenAPI schema and into the 422
answers, so a client learns every limit from `/openapi.json` and a bad body never reaches the engine. The
`/v1/retrieval/search` bodies are camelCase, as the seed spells them; `/retrieve` keeps its snake_case.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from retrieval.models import Answer, Mode

#: Longest question accepted (characters); a longer one is a document, not a question.
MAX_QUERY_CHARS = 4000
#: Largest embedding accepted (the local embedder makes 384 dimensions, OpenAI's large model 3072).
MAX_EMBEDDING_DIM = 4096
#: Largest magnitude of one embedding component. Embedding models write unit vectors (components within ±1); the
#: vector indexes keep float32, which turns 1e39 into infinity and whose squares overflow from about 1e19. The
#: database would answer such a value with its parser's message; here it is a 422 naming the component.
MAX_EMBEDDING_VALUE = 1000.0

EmbeddingValue = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_EMBEDDING_VALUE, le=MAX_EMBEDDING_VALUE)]

Query = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="The question or search text.")
ProjectId = Field(
    default=None,
    min_length=1,
    max_length=200,
    description="Project to search; omitted: not scoped, every project in the graph is read (as the seed defines).",
)


class Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


# --- POST /v1/retrieval/search ------------------------------------------------------------------------------
class Weights(Camel):
    vector: float = Field(default=0.6, ge=0.0, le=1.0, description="Weight of the vector arm in linear fusion.")
    keyword: float = Field(default=0.4, ge=0.0, le=1.0, description="Weight of the keyword (fulltext) arm.")

    @model_validator(mode="after")
    def _some_weight(self) -> Weights:
        if self.vector + self.keyword <= 0:
            raise ValueError("at least one of weights.vector and weights.keyword must be above 0")
        return self

    @property
    def alpha(self) -> float:
        return self.vector / (self.vector + self.keyword)


class LocalOptions(Camel):
    k: int = Field(default=10, ge=1, le=200, description="Chunks returned.")
    weights: Weights = Field(default_factory=Weights)


class DriftOptions(Camel):
    max_hops: int = Field(default=2, ge=0, le=5, description="Hops of the drift-scored walk around the seed entities.")
    max_nodes: int = Field(default=100, ge=1, le=5000, description="Most entities the walk visits.")
    drift_budget: float | None = Field(
        default=None,
        ge=0,
        description="Accumulated drift score at which the walk stops early (0: no budget; default: the setting). "
        "`meta.truncated.budget` says when it did.",
    )


class GlobalOptions(Camel):
    enabled: bool = Field(default=False, description="Also answer in global mode and merge that answer in.")
    level: int | None = Field(default=None, ge=0, le=10, description="Community level; default: chosen per question.")
    limit_communities: int = Field(
        default=10, ge=1, le=100, description="Most community reports the global answer reads."
    )


class SearchRequest(Camel):
    project_id: str | None = ProjectId
    query: str = Query
    embedding: list[EmbeddingValue] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_EMBEDDING_DIM,
        description="Query vector, finite components within ±1000, as many as the graph's embedder makes; "
        "default: embedded here.",
    )
    local: LocalOptions = Field(default_factory=LocalOptions)
    drift: DriftOptions = Field(default_factory=DriftOptions)
    global_: GlobalOptions = Field(default_factory=GlobalOptions, alias="global")

    @field_validator("embedding")
    @classmethod
    def _has_a_direction(cls, value: list[float] | None) -> list[float] | None:
        """Ranking is by cosine: an all-zero vector has no direction, and every similarity to it is undefined."""
        if value is not None and not any(value):
            raise ValueError("the embedding is all zero: it points nowhere, so nothing can be ranked by it")
        return value


class EntityOut(Camel):
    """The seed's `{id, name, score}`; `title` (the same text, this service's earlier name for it) and the rest
    stay beside them, so clients written against either keep working."""

    id: str
    name: str
    title: str
    type: str | None = None
    description: str = ""
    score: float = Field(description="Seeds: match score; neighbours: drift score.")
    hop: int = 0
    degree: int = 0


class ChunkOut(Camel):
    chunk_id: str
    text: str
    score: float
    scores: dict[str, float] = Field(description="Per-arm scores: vector, fulltext, graph.")


class DocumentOut(Camel):
    """The seed's `{id, title}`; `documentId`/`documentName` (null when the graph has none), the score and the
    chunks stay beside them. `id` is never null: a chunk without a document stands as its own document."""

    id: str
    title: str
    document_id: str | None = None
    document_name: str | None = None
    score: float = Field(description="Best score among its chunks.")
    chunks: list[ChunkOut]


class LocalMeta(Camel):
    k: int = Field(description="Chunks asked for (`local.k` of the request).")


class DriftMeta(Camel):
    expanded: int = Field(description="How many entities the drift-scored walk reached beyond the seed entities.")


class GlobalMeta(Camel):
    level: int | None = Field(
        description="Community level the global answer read; null when global did not run and no level was asked for."
    )


class SearchMeta(Camel):
    project_id: str | None = Field(description="The project searched; null when none was given (every project).")
    local: LocalMeta
    drift: DriftMeta
    global_: GlobalMeta = Field(alias="global")
    modes: list[str] = Field(description="What ran: local (hybrid + graph), global.")
    timings_ms: dict[str, float]
    truncated: dict[str, bool]
    no_data_found: bool = False
    reason: str | None = Field(default=None, description="Why nothing was found.")
    notes: list[str] = Field(default_factory=list)


class SearchResponse(Camel):
    entities: list[EntityOut]
    neighbor_entities: list[EntityOut]
    documents: list[DocumentOut]
    final_answer: str | None = None
    meta: SearchMeta


# --- POST /retrieve ------------------------------------------------------------------------------------------
class RetrieveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Query
    top_k: int = Field(default=10, ge=1, le=200, description="Chunks each search step returns.")
    project_id: str | None = ProjectId
    mode: Mode = Field(default="drift", description="Answer mode; DRIFT by default.")


class CitationOut(BaseModel):
    chunk_id: str
    span: str
    document_name: str


class KeyFactOut(BaseModel):
    fact: str
    citations: list[CitationOut | str] = Field(
        description="Each citation enriched as `{chunk_id, span, document_name}`, or, when no verified span "
        "enriches it (the quoted words are not in the chunk, or none were quoted), the plain chunk id string."
    )


class RetrieveResponse(BaseModel):
    final_answer: str
    key_facts: list[KeyFactOut]
    residual_uncertainty: str
    no_data_found: bool = False
    retrieval_id: str = Field(description="The `retrieval_id` of this answer's progress events.")


# --- POST /v1/ask --------------------------------------------------------------------------------------------
class AskRequest(Camel):
    query: str = Query
    mode: Mode = "local"
    project_id: str | None = ProjectId
    top_k: int | None = Field(default=None, ge=1, le=200)
    max_hops: int | None = Field(default=None, ge=0, le=5)
    include_trace: bool = Field(default=False, description="Include the reasoning trace (DRIFT tree, agent steps).")


# --- errors and health ---------------------------------------------------------------------------------------
# --- GET /v1/documents ------------------------------------------------------------------------------------------
#: Most documents one listing returns (the default; `limit` goes up to MAX_DOCUMENTS).
DEFAULT_DOCUMENTS = 1000
MAX_DOCUMENTS = 10_000

DocumentStatus = Literal["indexed", "updated", "unchanged", "failed", "skipped"]


class DocumentItem(Camel):
    id: str
    project_id: str
    title: str
    path: str = Field(description="Relative to the folder, file or archive it was read from.")
    source: str = Field(description="That folder, file or archive; `upload` for uploaded files; empty if unknown.")
    size: int = Field(description="Bytes of its text (UTF-8).")
    chunks: int
    entities: int = Field(description="Distinct entities its chunks mention.")
    indexed_at: str = Field(description="When it was last written (UTC, ISO-8601).")
    content_hash: str = Field(description="sha256 of its normalised text; empty while a write is unfinished.")
    status: DocumentStatus = Field(description="What the last run that touched it did.")
    reason: str = Field(description="Why it failed or was skipped; empty otherwise.")


class DocumentsResponse(Camel):
    project_id: str | None = Field(description="The project listed; null when none was given (every project).")
    documents: list[DocumentItem]
    total: int = Field(description="Documents in the project, listed or not.")
    truncated: bool = Field(description="True when `limit` cut the list.")


class ErrorBody(BaseModel):
    error: str = Field(description="What failed, in a few words.")
    detail: str = Field(description="What to check.")
    request_id: str = "-"


class GraphHealth(BaseModel):
    reachable: bool
    uri: str = ""
    counts: dict[str, int] = Field(default_factory=dict)
    indexes: list[dict[str, Any]] = Field(default_factory=list)
    message: str = ""


class GraphCheck(BaseModel):
    """`GET /health/neo4j` as the seed defines it; it checks whichever graph backend is configured."""

    status: Literal["healthy", "unhealthy"]
    message: str


class HealthResponse(BaseModel):
    healthy: bool
    backend: Literal["falkordb", "neo4j"]
    graph: GraphHealth
    embedder: str
    llm: str | None = Field(description="The chat model, or null: answers are extractive.")
    warming: bool = Field(
        default=False, description="The service is still warming its graph: `healthy` is false (503) until it is done."
    )
    warmup: str | None = Field(
        default=None, description="What the warm-up did so far, or how it ended; null when it is off."
    )


def answer_json(answer: Answer, *, include_trace: bool) -> dict[str, Any]:
    """The project's `Answer` as JSON (the trace only when asked: a DRIFT tree is large)."""
    return answer.model_dump(mode="json", exclude=set() if include_trace else {"trace"})
