"""Settings: one validated object built from the environment and `.env`.

Why pydantic-settings: it reads env vars and `.env` with types, aliases (the `OAI_*` and
`NEO4J_USER` spellings other tools use) and validation, so a bad combination fails at
start-up with one message instead of deep inside a query.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from dotenv import dotenv_values
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from retrieval.embedding_models import KNOWN_OPENAI_DIMS, LOCAL_MINILM_DIM
from retrieval.errors import ConfigError
from retrieval.models import RetrievalKnobs
from retrieval.redact import install_log_redaction, register_secrets

DEFAULT_DATA_DIR = Path(".driftlens")
#: The repository's data/ folder (the demo corpora): indexable from the app by default.
REPO_DATA_DIR = Path(__file__).resolve().parents[1] / "data"

#: USD per 1M tokens (prompt, completion); override with DRIFTLENS_LLM_PRICES as JSON.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
}


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]))


class Settings(BaseSettings, RetrievalKnobs):
    """Every knob of DriftLens with its default; field names double as `DRIFTLENS_<NAME>` env vars."""

    model_config = SettingsConfigDict(
        env_prefix="DRIFTLENS_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        validate_default=True,
    )

    # --- graph backend -------------------------------------------------------------------
    #: Bolt/neo4j URI of a Neo4j 5 server; when set, Neo4j replaces the embedded graph.
    neo4j_uri: str | None = Field(None, validation_alias=_alias("NEO4J_URI", "neo4j_uri"))
    #: Neo4j user name.
    neo4j_username: str = Field("neo4j", validation_alias=_alias("NEO4J_USERNAME", "NEO4J_USER", "neo4j_username"))
    #: Neo4j password (a secret: masked in every message and log).
    neo4j_password: SecretStr | None = Field(None, validation_alias=_alias("NEO4J_PASSWORD", "neo4j_password"))
    #: Neo4j database to use.
    neo4j_database: str = Field("neo4j", validation_alias=_alias("NEO4J_DATABASE", "neo4j_database"))
    #: Folder for local state: the embedded graph (unless `graph_path` is set) and the chat history;
    #: one of the default index roots.
    data_dir: Path = DEFAULT_DATA_DIR
    #: Embedded graph file (FalkorDB Lite); default `data_dir/graph.db`. The CLI's `--graph` sets it.
    graph_path: Path | None = Field(None, validation_alias=_alias("DRIFTLENS_GRAPH_PATH", "graph_path"))
    #: Name of the graph inside the embedded FalkorDB server.
    graph_name: str = "driftlens"
    #: Most memory (MB) the embedded server may hold; a 24 GB machine shares it with the app and the indexer.
    #: Past it writes fail with "OOM" and reads go on.
    graph_max_memory_mb: int = Field(8192, ge=64)
    #: Working memory (MB) one query may use on the embedded server before it is stopped. A vector index's growth
    #: counts against the write that grows it, so a write that hits the cap raises it to twice the largest
    #: vector index (at most `graph_max_memory_mb`) and runs again; reads stay under whatever it is.
    graph_query_memory_mb: int = Field(1024, ge=16)
    #: Server-side limit for every read (user Cypher, search, explorer); a hung server fails the read this long
    #: (plus a short grace) after it was sent, instead of blocking for the loading timeout below.
    query_timeout_ms: int = Field(30_000, ge=100)
    #: Server-side limit for Cypher a person or a model writes: the explorer's Cypher box, the agent's tools and
    #: the service's `read_cypher`. Below `query_timeout_ms` (which caps it): a runaway query frees the graph sooner.
    cypher_timeout_ms: int = Field(10_000, ge=100)
    #: How long opening a graph may take: the server replays its log and rebuilds indexes; writes get as long.
    graph_load_timeout_s: float = Field(600.0, gt=0)
    #: Leave the embedded graph server running when the last DriftLens closes the graph, so the next start
    #: attaches to it in about a second instead of reloading the graph and rebuilding its indexes (minutes for
    #: 100k chunks). The server keeps the graph's memory until `python -m retrieval stop` stops it.
    graph_keep_server: bool = False
    #: Project used when a call names none; every node carries its project in `projectId`. Left unset, a graph
    #: that holds no project at all (built by another tool) is read whole.
    project: str = "demo"

    # --- graph model: labels, properties, index names (bring-your-own-graph) -------------
    #: Label of document nodes.
    document_label: str = "__Document__"
    #: Label of chunk nodes (the text units that are searched and cited).
    chunk_label: str = "__Chunk__"
    #: Label of entity nodes.
    entity_label: str = "__Entity__"
    #: Label of community nodes (Leiden clusters of entities, with summaries).
    community_label: str = "__Community__"
    #: Label of project nodes (embedder name and dimension, indexing state).
    project_label: str = "__Project__"
    #: Label of conversation memory nodes.
    memory_label: str = "Memory"
    #: Property holding a chunk's text.
    text_property: str = "text"
    #: Property holding a node's embedding vector (chunks, entities, communities, memories).
    embedding_property: str = "embedding"
    #: Property holding an entity's name (neo4j-graphrag writes `name`).
    entity_name_property: str = "title"
    #: Relationship types walked between entities (graph expansion, the explorer); a JSON list.
    entity_relationships: tuple[str, ...] = ("RELATED",)
    #: Relationship tying a chunk to an entity it mentions (neo4j-graphrag: `FROM_CHUNK`).
    mention_relationship: str = "HAS_ENTITY"
    #: Whether that relationship points from the chunk to the entity; neo4j-graphrag's `FROM_CHUNK` points from
    #: the entity to the chunk (false).
    mention_from_chunk: bool = True
    #: Vector index over chunk embeddings.
    chunk_vector_index: str = Field(
        "chunk_embedding",
        validation_alias=_alias(
            "DRIFTLENS_CHUNK_VECTOR_INDEX",
            "NEO4J_INDEX_NAME",
            "NEO4J_VECTOR_INDEX_NAME",
            "CHUNK_VECTOR_INDEX_NAME",
            "chunk_vector_index",
        ),
    )
    #: Fulltext index over chunk text; hybrid and fulltext search need it.
    chunk_fulltext_index: str | None = Field(
        "chunk_text",
        validation_alias=_alias("DRIFTLENS_CHUNK_FULLTEXT_INDEX", "NEO4J_FULLTEXT_INDEX_NAME", "chunk_fulltext_index"),
    )
    #: Vector index over entity embeddings.
    entity_vector_index: str = Field(
        "entity_embedding",
        validation_alias=_alias("DRIFTLENS_ENTITY_VECTOR_INDEX", "ENTITY_VECTOR_INDEX", "entity_vector_index"),
    )
    #: Fulltext index over entity title and description (optional).
    entity_fulltext_index: str | None = Field(
        "entity_text",
        validation_alias=_alias("DRIFTLENS_ENTITY_FULLTEXT_INDEX", "FT_INDEX_ENTITIES", "entity_fulltext_index"),
    )
    #: Vector index over community summary embeddings.
    community_vector_index: str = Field(
        "community_embedding",
        validation_alias=_alias(
            "DRIFTLENS_COMMUNITY_VECTOR_INDEX", "COMMUNITY_VECTOR_INDEX_NAME", "community_vector_index"
        ),
    )
    #: Vector index over memory embeddings.
    memory_vector_index: str = "memory_embedding"
    #: Enrichment Cypher run per hit: receives `node` and `score`, returns at least `text` and `score`
    #: (for graphs built by other tools).
    retrieval_query: str | None = None

    # --- vector store: where the chunk, entity and community vectors live ------------------
    #: `graph`: on the graph nodes, searched by the graph store's own vector indexes; `qdrant`: in Qdrant
    #: collections keyed by the graph node id (entry points there, traversal in the graph store).
    vector_store: Literal["graph", "qdrant"] = "graph"
    #: Qdrant server or Qdrant Cloud URL; unset: Qdrant's local mode in `qdrant_path` (no server, one process).
    qdrant_url: str | None = Field(None, validation_alias=_alias("QDRANT_URL", "qdrant_url"))
    #: Qdrant API key (a secret), for a server or Qdrant Cloud.
    qdrant_api_key: SecretStr | None = Field(None, validation_alias=_alias("QDRANT_API_KEY", "qdrant_api_key"))
    #: Folder of Qdrant's local mode; default `data_dir/qdrant`.
    qdrant_path: Path | None = None
    #: Collections are named `<prefix>_chunk`, `<prefix>_entity`, `<prefix>_community`.
    qdrant_collection_prefix: str = Field("driftlens", pattern=r"^[A-Za-z0-9_-]+$")

    # --- vector index (HNSW) --------------------------------------------------------------
    #: HNSW graph degree of the embedded vector indexes (recall against memory).
    hnsw_m: int = Field(32, ge=4, le=128)
    #: HNSW candidate list size while building the embedded vector indexes.
    hnsw_ef_construction: int = Field(200, ge=10)
    #: HNSW candidate list size while searching the embedded vector indexes (recall against latency).
    hnsw_ef_runtime: int = Field(100, ge=10)
    #: Dimension the vector indexes are declared with (optional): set, it must equal the embedder's dimension,
    #: or the start-up fails instead of the first search.
    vector_index_dimensions: int | None = Field(
        None,
        ge=1,
        validation_alias=_alias(
            "DRIFTLENS_VECTOR_INDEX_DIMENSIONS", "VECTOR_INDEX_DIMENSIONS", "vector_index_dimensions"
        ),
    )
    #: Similarity of the vector indexes: DriftLens ranks by cosine, so `cosine` is the one value accepted.
    vector_index_similarity: Literal["cosine"] = Field(
        "cosine",
        validation_alias=_alias(
            "DRIFTLENS_VECTOR_INDEX_SIMILARITY", "VECTOR_INDEX_SIMILARITY", "vector_index_similarity"
        ),
    )

    # --- global mode (the other retrieval knobs are the RetrievalKnobs fields, listed last) -------
    #: Community reports per map call in global mode.
    global_map_batch: int = Field(5, ge=1)
    #: Most communities global mode reads for one question.
    global_max_communities: int = Field(24, ge=1)

    # --- indexing ---------------------------------------------------------------------------
    #: Chunk size in MiniLM tokens.
    chunk_tokens: int = Field(256, ge=32, le=8192)
    #: Fraction of a chunk repeated at the start of the next one.
    chunk_overlap: float = Field(0.15, ge=0.0, lt=0.9)
    #: Largest community before Leiden splits it into a lower level.
    max_community_size: int = Field(40, ge=2)
    #: Levels of the community hierarchy.
    community_levels: int = Field(3, ge=1, le=6)
    #: Processes that run offline extraction (spaCy, yake) beside the embedder thread: extraction is pure
    #: Python holding the GIL, so only a process of its own gives it the second core. 1 suits 2 cores (one
    #: for the extraction process, one for the embedder); 0 extracts in the indexer's own process.
    extract_processes: int = Field(1, ge=0, le=64)
    #: Runs with fewer words of prose than this extract in the indexer's own process: a child's start-up
    #: (~1.7 s on 2 cores, mostly loading spaCy) would cost about what overlapping saves on one episode.
    extract_process_min_words: int = Field(20_000, ge=0)

    # --- indexing input: what a run may read ---------------------------------------------------
    #: Larger single documents are refused: ~1.5M words would take most of an hour to embed on 2 cores.
    max_document_bytes: int = Field(5 * 1024 * 1024, ge=1024)
    #: Bytes one archive may expand to, counted as members are read (a forged header cannot raise it).
    max_archive_bytes: int = Field(512 * 1024 * 1024, ge=1024)
    #: Bytes one indexing run may read in total; the rest gets a message and waits for another run.
    max_run_bytes: int = Field(2048 * 1024 * 1024, ge=1024)
    #: Follow symbolic links that lead out of an indexed folder (off: such a link is skipped with a message).
    index_follow_links: bool = False
    #: Folders the app and the API may index from ("folder on this machine"); unset: the repository's data/
    #: and `data_dir`. A JSON list or paths separated by the OS path separator.
    index_roots: tuple[Path, ...] | None = None

    # --- embeddings -------------------------------------------------------------------------
    #: Who embeds: `local` (ONNX MiniLM shipped in a package, offline), `openai`, `azure` (Azure OpenAI; also
    #: spelled `azure-openai`) or `azure-ai` (an Azure AI Foundry project's model inference endpoint);
    #: a graph remembers its embedder.
    embedder: Literal["local", "openai", "azure", "azure-ai"] = Field(
        "local", validation_alias=_alias("DRIFTLENS_EMBEDDER", "EMBEDDING_PROVIDER", "embedder")
    )
    #: Texts per local embedder call.
    embedding_batch: int = Field(16, ge=1, le=256)
    #: Threads of the local embedder (ONNX Runtime intra-op); 0 means one per core. While indexing, the
    #: embedder runs beside offline extraction, which keeps one more core busy.
    embedding_threads: int = Field(0, ge=0, le=64)
    #: Embedding model when `embedder` is `openai` or `azure`.
    openai_embedding_model: str = Field(
        "text-embedding-3-small",
        validation_alias=_alias("OAI_EMBED_MODEL_NAME", "EMBEDDING_MODEL", "openai_embedding_model"),
    )
    #: Key of the embedding endpoint (a secret) when it differs from the chat model's; unset, the embedder
    #: uses OPENAI_API_KEY (or AZURE_OPENAI_API_KEY for `azure` and `azure-ai`).
    embedding_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("DRIFTLENS_EMBEDDING_API_KEY", "EMBEDDING_API_KEY", "embedding_api_key")
    )

    #: Azure AI Foundry project endpoint (`https://<resource>.services.ai.azure.com/api/projects/<project>`) of
    #: the `azure-ai` embedder; its model inference endpoint (`.../models`) is derived from it.
    azure_ai_project_endpoint: str | None = Field(
        None, validation_alias=_alias("AZURE_AI_PROJECT_ENDPOINT", "azure_ai_project_endpoint")
    )
    #: Embedding model deployed in that project (the `azure-ai` embedder).
    azure_ai_embedding_name: str = Field(
        "text-embedding-ada-002", validation_alias=_alias("AZURE_AI_EMBEDDING_NAME", "azure_ai_embedding_name")
    )

    # --- language model (OpenAI / Azure OpenAI / compatible) --------------------------------
    #: OpenAI API key (a secret); with it or `openai_base_url` the model-backed answers are on.
    openai_api_key: SecretStr | None = Field(None, validation_alias=_alias("OPENAI_API_KEY", "openai_api_key"))
    #: Base URL of any OpenAI-compatible server (vLLM, llama.cpp, Ollama...).
    openai_base_url: str | None = Field(None, validation_alias=_alias("OPENAI_BASE_URL", "openai_base_url"))
    #: Chat model name.
    llm_model: str = Field("gpt-4o-mini", validation_alias=_alias("DRIFTLENS_LLM_MODEL", "OPENAI_MODEL", "llm_model"))
    #: Azure OpenAI endpoint; set, Azure is used for the chat model.
    azure_openai_endpoint: str | None = Field(
        None, validation_alias=_alias("AZURE_OPENAI_ENDPOINT", "OAI_BASE_URL", "azure_openai_endpoint")
    )
    #: Azure OpenAI key (a secret).
    azure_openai_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("AZURE_OPENAI_API_KEY", "OAI_KEY", "azure_openai_api_key")
    )
    #: Azure OpenAI API version.
    azure_openai_api_version: str = Field(
        "2024-10-21", validation_alias=_alias("AZURE_OPENAI_API_VERSION", "OAI_API_VERSION", "azure_openai_api_version")
    )
    #: Azure deployment of the chat model.
    azure_chat_deployment: str | None = Field(
        None, validation_alias=_alias("AZURE_OPENAI_DEPLOYMENT", "OAI_MODEL", "azure_chat_deployment")
    )
    #: Azure deployment of the embedding model (when `embedder` is `azure`).
    azure_embed_deployment: str | None = Field(
        None,
        validation_alias=_alias("AZURE_OPENAI_EMBED_DEPLOYMENT", "OAI_EMBED_DEPLOYMENT_NAME", "azure_embed_deployment"),
    )
    #: Timeout of one model request, in seconds (the designs' `OAI_TIMEOUT_SEC` default).
    llm_timeout_sec: float = Field(10.0, gt=0, validation_alias=_alias("OAI_TIMEOUT_SEC", "llm_timeout_sec"))
    #: Sampling temperature of the chat model.
    llm_temperature: float = Field(0.0, ge=0.0, le=2.0, validation_alias=_alias("LLM_TEMPERATURE", "llm_temperature"))
    #: USD per 1M tokens (prompt, completion) per model, for the cost shown with each answer; JSON.
    llm_prices: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    #: Model calls in flight at once (DRIFT follow-ups, global map, LLM extraction).
    llm_concurrency: int = Field(4, ge=1, le=64)

    # --- retries ----------------------------------------------------------------------------
    #: Attempts per model call on 429, 5xx and timeouts (the designs' default: 3).
    retry_max_attempts: int = Field(3, ge=1, le=20, validation_alias=_alias("RETRY_MAX_ATTEMPTS", "retry_max_attempts"))
    #: First retry wait, in seconds (exponential backoff with jitter; the designs' default: 2 s).
    retry_backoff_base_sec: float = Field(
        2.0, ge=0.0, validation_alias=_alias("RETRY_BACKOFF_BASE_SEC", "retry_backoff_base_sec")
    )
    #: Growth of the retry wait per attempt.
    retry_backoff_factor: float = Field(
        2.0, ge=1.0, validation_alias=_alias("RETRY_BACKOFF_FACTOR", "retry_backoff_factor")
    )
    #: Longest retry wait, in seconds (the designs' default: 60 s).
    retry_backoff_max_sec: float = Field(
        60.0, ge=0.0, validation_alias=_alias("RETRY_BACKOFF_MAX_SEC", "retry_backoff_max_sec")
    )

    # --- progress events & memory -------------------------------------------------------------
    #: Redis for progress events on the `ui:retrieval_progress` channel (optional).
    redis_url: str | None = Field(None, validation_alias=_alias("REDIS_URL", "redis_url"))
    #: Store and recall conversation memories of the app's own threads (the Agent Framework provider has its own
    #: `memory_enabled` argument, off by default as its design has it).
    memory_enabled: bool = True
    #: Message roles stored as memories.
    memory_roles: tuple[str, ...] = ("user", "assistant")
    #: Who the analyst is: conversations and question sets are kept per user.
    user: str = Field("analyst", min_length=1)

    # --- HTTP service and MCP server (`python -m retrieval serve`) ------------------------------
    #: Port of the HTTP service.
    api_port: int = Field(8000, ge=1, le=65535, validation_alias=_alias("API_PORT", "api_port"))
    #: API key of the HTTP service (a secret); set, every route but `/health` needs `Authorization: Bearer <key>`.
    #: Empty means no key (docker-compose passes it empty when unset); the service's log says which.
    api_key: SecretStr | None = None
    #: Answers (search, retrieve, ask, MCP tools) computed at once; on 2 cores more only queue behind each other.
    api_max_concurrent: int = Field(4, ge=1, le=256)
    #: How long a request waits for a free answer slot before it gets 503 with `Retry-After`.
    api_queue_wait_s: float = Field(2.0, ge=0.0)
    #: Longest one answer may take before the request gets 504 (the work finishes in the background).
    api_request_timeout_s: float = Field(120.0, gt=0)
    #: Largest request body accepted, in bytes; larger ones get 413 before they are read.
    api_max_body_bytes: int = Field(1024 * 1024, ge=1024)
    #: Seconds an idle keep-alive connection stays open. Longer than common load balancers' idle timeout (60 s);
    #: at uvicorn's default 5 s the load benchmark saw connections reset under 50 clients on a busy machine.
    api_keep_alive_s: int = Field(75, ge=1, le=3600)
    #: Seconds a client has to send a request's headers, from opening the connection (or the first byte of a later
    #: request on it); slower ones are disconnected, so slow-header clients (slowloris) cannot hold connections.
    api_header_timeout_s: float = Field(10.0, gt=0, le=300)
    #: Browser origins allowed by CORS, comma-separated or a JSON list; empty (the default) sends no CORS headers.
    api_cors_origins: Annotated[tuple[str, ...], NoDecode] = ()
    #: Most rows `read_cypher` (MCP) returns.
    api_cypher_max_rows: int = Field(200, ge=1, le=10_000)
    #: Offer the MCP tool `read_cypher` (read-only Cypher from the caller). Off by default: Cypher cannot be confined
    #: to one project, so whoever may call the tool reads every project in the graph. Off, the tool is not listed.
    api_raw_cypher: bool = False
    #: Log level of the service and the app (DEBUG, INFO, WARNING, ERROR).
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    def __init__(self, **values: Any) -> None:
        if problem := _contradicting_names(values):
            raise ConfigError(f"Invalid DriftLens settings: {problem}")
        super().__init__(**values)

    @field_validator("embedder", mode="before")
    @classmethod
    def _known_embedding_provider(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        name = value.strip().lower()
        name = "azure" if name == "azure-openai" else name  # the designs' spelling of Azure OpenAI
        if name not in ("local", "openai", "azure", "azure-ai"):
            raise ValueError(
                f"unknown embedding provider {value!r} (EMBEDDING_PROVIDER): "
                "use local, openai, azure-openai or azure-ai"
            )
        return name

    @field_validator("vector_index_similarity", mode="before")
    @classmethod
    def _cosine_only(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() != "cosine":
            raise ValueError(
                f"DriftLens ranks by cosine similarity; VECTOR_INDEX_SIMILARITY={value} is not supported (use cosine)"
            )
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("api_key", mode="before")
    @classmethod
    def _empty_key_is_no_key(cls, value: object) -> object:
        """An empty key is none: as a key, it would shut every caller out (no one can send an empty bearer token)."""
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if isinstance(text, str) and not text.strip() else value

    @field_validator("llm_prices", mode="before")
    @classmethod
    def _prices_from_json(cls, value: object) -> object:
        return json.loads(value) if isinstance(value, str) else value

    @field_validator("api_cors_origins", mode="before")
    @classmethod
    def _origins_from_list(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            return json.loads(text) if text.startswith("[") else tuple(p.strip() for p in text.split(",") if p.strip())
        return value

    @field_validator("index_roots", mode="before")
    @classmethod
    def _roots_from_path_list(cls, value: object) -> object:
        if isinstance(value, str) and not value.lstrip().startswith("["):
            return tuple(Path(part) for part in value.split(os.pathsep) if part.strip())
        return value

    @field_validator("retrieval_query")
    @classmethod
    def _retrieval_query_mentions_node_and_score(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        missing = [word for word in ("node", "score") if word not in value]
        if missing:
            raise ValueError(
                f"retrieval_query must use the variables `node` and `score` it receives; missing: {', '.join(missing)}"
            )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.search_type == "hybrid" and not self.chunk_fulltext_index:
            raise ValueError("search_type 'hybrid' needs a fulltext index name (DRIFTLENS_CHUNK_FULLTEXT_INDEX)")
        if self.search_type == "fulltext" and not self.chunk_fulltext_index:
            raise ValueError("search_type 'fulltext' needs a fulltext index name (DRIFTLENS_CHUNK_FULLTEXT_INDEX)")
        if self.embedder == "openai" and not (self.openai_api_key or self.embedding_api_key or self.openai_base_url):
            raise ValueError("embedder 'openai' needs OPENAI_API_KEY (or EMBEDDING_API_KEY) or OPENAI_BASE_URL")
        if self.embedder == "azure" and not (self.azure_openai_endpoint and self.azure_embed_deployment):
            raise ValueError("embedder 'azure' needs AZURE_OPENAI_ENDPOINT and OAI_EMBED_DEPLOYMENT_NAME")
        if self.embedder == "azure-ai" and not self.azure_ai_project_endpoint:
            raise ValueError("embedder 'azure-ai' needs AZURE_AI_PROJECT_ENDPOINT")
        if self.retry_backoff_max_sec < self.retry_backoff_base_sec:
            raise ValueError("RETRY_BACKOFF_MAX_SEC must be >= RETRY_BACKOFF_BASE_SEC")
        return self

    @model_validator(mode="after")
    def _embedding_names_agree(self) -> Settings:
        """VECTOR_INDEX_DIMENSIONS describes the embedder's vectors: it must be the dimension of the one in use.

        (A model name beside the local embedder is left alone: seed `.env` files set OAI_EMBED_MODEL_NAME always.)
        """
        if self.vector_index_dimensions is None:
            return self
        if self.embedder == "local":
            expected: int | None = LOCAL_MINILM_DIM
            what = "the local MiniLM embedder"
        else:
            model = self.azure_ai_embedding_name if self.embedder == "azure-ai" else self.openai_embedding_model
            expected = KNOWN_OPENAI_DIMS.get(model) if self.embedder in ("openai", "azure-ai") else None
            what = model
        if expected is not None and expected != self.vector_index_dimensions:
            raise ValueError(
                f"VECTOR_INDEX_DIMENSIONS={self.vector_index_dimensions} does not match {what} ({expected}-d); "
                f"set it to {expected} or unset it"
            )
        return self

    @model_validator(mode="after")
    def _neo4j_credentials_out_of_uri(self) -> Settings:
        """`bolt://user:password@host` works: the driver refuses credentials in the URI (and would quote
        it, password included, in its error), so they move to the username and password settings."""
        if not self.neo4j_uri:
            return self
        parts = urlsplit(self.neo4j_uri)
        if parts.username is None and parts.password is None:
            return self
        self.neo4j_uri = urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]))
        if parts.username:
            self.neo4j_username = unquote(parts.username)
        if parts.password is not None:
            register_secrets([parts.password, unquote(parts.password)])
            self.neo4j_password = SecretStr(unquote(parts.password))
        return self

    @model_validator(mode="after")
    def _register_secrets(self) -> Settings:
        """From here on, every configured secret is masked in errors and logs, wherever they come from."""
        keys = (
            self.neo4j_password,
            self.openai_api_key,
            self.azure_openai_api_key,
            self.embedding_api_key,
            self.api_key,
            self.qdrant_api_key,
        )
        urls = (
            self.neo4j_uri,
            self.redis_url,
            self.openai_base_url,
            self.azure_openai_endpoint,
            self.azure_ai_project_endpoint,
            self.qdrant_url,
        )
        register_secrets(
            [*(key.get_secret_value() for key in keys if key), *(urlsplit(url).password for url in urls if url)]
        )
        install_log_redaction()
        return self

    # --- derived ------------------------------------------------------------------------------
    @property
    def backend(self) -> Literal["neo4j", "falkordb"]:
        return "neo4j" if self.neo4j_uri else "falkordb"

    @property
    def embedded_graph_path(self) -> Path:
        return self.graph_path or self.data_dir / "graph.db"

    @property
    def qdrant_local_path(self) -> Path:
        return self.qdrant_path or self.data_dir / "qdrant"

    @property
    def allowed_index_roots(self) -> tuple[Path, ...]:
        return self.index_roots if self.index_roots is not None else (REPO_DATA_DIR, self.data_dir)

    @property
    def llm_provider(self) -> Literal["azure", "openai"] | None:
        """Azure wins when its endpoint is set; otherwise any OpenAI key or base URL means OpenAI(-compatible)."""
        if self.azure_openai_endpoint:
            return "azure"
        if self.openai_api_key or self.openai_base_url:
            return "openai"
        return None

    @property
    def backend_display(self) -> str:
        """Where the graph lives, safe to show (no credentials)."""
        graph = (
            f"Neo4j {self.neo4j_uri} (database {self.neo4j_database})"
            if self.neo4j_uri
            else f"Embedded FalkorDB Lite {self.embedded_graph_path}"
        )
        if self.vector_store == "qdrant":
            where = _without_credentials(self.qdrant_url) if self.qdrant_url else f"local {self.qdrant_local_path}"
            return f"{graph}, vectors in Qdrant {where}"
        return graph


def _contradicting_names(values: Mapping[str, Any]) -> str | None:
    """The first setting two of whose environment names are set to different values, described in one line.

    Why: an alias is picked first-found, so `NEO4J_INDEX_NAME=a` beside `DRIFTLENS_CHUNK_VECTOR_INDEX=b` would
    silently use one of them; the graph would then be searched through an index nobody meant. A value passed
    explicitly (the CLI's flags, tests) is not the environment's to contradict. Secrets are never quoted.
    """
    env_file = values.get("_env_file", Settings.model_config.get("env_file"))
    raw: dict[str, str] = {}
    if isinstance(env_file, (str, Path)) and Path(env_file).is_file():
        raw.update({k.lower(): v for k, v in dotenv_values(env_file).items() if v is not None})
    raw.update({k.lower(): v for k, v in os.environ.items()})
    for field_name, info in Settings.model_fields.items():
        alias = info.validation_alias
        if field_name in values or not isinstance(alias, AliasChoices):
            continue
        names = [c for c in alias.choices if isinstance(c, str) and c.isupper()]
        found = {n: raw[n.lower()].strip() for n in names if raw.get(n.lower(), "").strip()}
        if len(set(found.values())) > 1:
            secret = "SecretStr" in str(info.annotation)
            shown = ", ".join(f"{n}={'***' if secret else v}" for n, v in found.items())
            return f"{shown} contradict each other (each sets {field_name}); keep one of them or give them one value."
    return None


def load_settings(**overrides: object) -> Settings:
    """Build Settings or raise ConfigError with one readable line per problem."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(p) for p in error.get("loc", ())) or "settings"
            message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
            problems.append(f"{where}: {message}" if where != "settings" else message)
        raise ConfigError("Invalid DriftLens settings: " + "; ".join(problems)) from None
