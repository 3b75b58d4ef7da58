"""Settings: one validated object built from the environment and `.env`.

Why pydantic-settings: it reads env vars and `.env` with types, aliases (the `OAI_*` and
`NEO4J_USER` spellings other tools use) and validation, so a bad combination fails at
start-up with one message instead of deep inside a query.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from retrieval.errors import ConfigError
from retrieval.models import RetrievalKnobs

DEFAULT_DATA_DIR = Path(".driftlens")

#: USD per 1M tokens (prompt, completion); override with DRIFTLENS_LLM_PRICES as JSON.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
}


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


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
    neo4j_uri: str | None = Field(None, validation_alias=_alias("NEO4J_URI", "neo4j_uri"))
    neo4j_username: str = Field("neo4j", validation_alias=_alias("NEO4J_USERNAME", "NEO4J_USER", "neo4j_username"))
    neo4j_password: SecretStr | None = Field(None, validation_alias=_alias("NEO4J_PASSWORD", "neo4j_password"))
    neo4j_database: str = Field("neo4j", validation_alias=_alias("NEO4J_DATABASE", "neo4j_database"))
    data_dir: Path = DEFAULT_DATA_DIR
    graph_path: Path | None = Field(None, validation_alias=_alias("DRIFTLENS_GRAPH_PATH", "graph_path"))
    graph_name: str = "driftlens"
    # Embedded server limits. Defaults suit a 24 GB machine shared with the app and the indexer: the server may
    # hold 8 GB of data (then writes fail with "OOM", reads go on) and one query may use 1 GB of working memory.
    graph_max_memory_mb: int = Field(8192, ge=64)
    graph_query_memory_mb: int = Field(1024, ge=16)
    #: Server-side limit for every read (user Cypher, search, explorer); a hung server fails the read this long
    #: (plus a short grace) after it was sent, instead of blocking for the loading timeout below.
    query_timeout_ms: int = Field(30_000, ge=100)
    #: How long opening a graph may take: the server replays its log and rebuilds indexes; writes get as long.
    graph_load_timeout_s: float = Field(600.0, gt=0)
    project: str = "demo"

    # --- graph model: labels, properties, index names (bring-your-own-graph) -------------
    document_label: str = "__Document__"
    chunk_label: str = "__Chunk__"
    entity_label: str = "__Entity__"
    community_label: str = "__Community__"
    project_label: str = "__Project__"
    memory_label: str = "Memory"
    text_property: str = "text"
    embedding_property: str = "embedding"
    chunk_vector_index: str = "chunk_embedding"
    chunk_fulltext_index: str | None = "chunk_text"
    entity_vector_index: str = "entity_embedding"
    entity_fulltext_index: str | None = "entity_text"
    community_vector_index: str = "community_embedding"
    memory_vector_index: str = "memory_embedding"
    retrieval_query: str | None = None

    # --- vector index (HNSW) --------------------------------------------------------------
    hnsw_m: int = Field(32, ge=4, le=128)
    hnsw_ef_construction: int = Field(200, ge=10)
    hnsw_ef_runtime: int = Field(100, ge=10)

    # --- retrieval knobs: the RetrievalKnobs fields (search_type, fusion, alpha, top_k, max_hops, ...) ---------
    global_map_batch: int = Field(5, ge=1)
    global_max_communities: int = Field(24, ge=1)

    # --- indexing ---------------------------------------------------------------------------
    chunk_tokens: int = Field(256, ge=32, le=8192)
    chunk_overlap: float = Field(0.15, ge=0.0, lt=0.9)
    max_community_size: int = Field(40, ge=2)
    community_levels: int = Field(3, ge=1, le=6)

    # --- embeddings -------------------------------------------------------------------------
    embedder: Literal["local", "openai", "azure"] = "local"
    embedding_batch: int = Field(16, ge=1, le=256)
    openai_embedding_model: str = Field(
        "text-embedding-3-small", validation_alias=_alias("OAI_EMBED_MODEL_NAME", "openai_embedding_model")
    )

    # --- language model (OpenAI / Azure OpenAI / compatible) --------------------------------
    openai_api_key: SecretStr | None = Field(None, validation_alias=_alias("OPENAI_API_KEY", "openai_api_key"))
    openai_base_url: str | None = Field(None, validation_alias=_alias("OPENAI_BASE_URL", "openai_base_url"))
    llm_model: str = Field("gpt-4o-mini", validation_alias=_alias("DRIFTLENS_LLM_MODEL", "OPENAI_MODEL", "llm_model"))
    azure_openai_endpoint: str | None = Field(
        None, validation_alias=_alias("AZURE_OPENAI_ENDPOINT", "OAI_BASE_URL", "azure_openai_endpoint")
    )
    azure_openai_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("AZURE_OPENAI_API_KEY", "OAI_KEY", "azure_openai_api_key")
    )
    azure_openai_api_version: str = Field(
        "2024-10-21", validation_alias=_alias("AZURE_OPENAI_API_VERSION", "OAI_API_VERSION", "azure_openai_api_version")
    )
    azure_chat_deployment: str | None = Field(
        None, validation_alias=_alias("AZURE_OPENAI_DEPLOYMENT", "OAI_MODEL", "azure_chat_deployment")
    )
    azure_embed_deployment: str | None = Field(
        None,
        validation_alias=_alias("AZURE_OPENAI_EMBED_DEPLOYMENT", "OAI_EMBED_DEPLOYMENT_NAME", "azure_embed_deployment"),
    )
    llm_timeout_sec: float = Field(60.0, gt=0, validation_alias=_alias("OAI_TIMEOUT_SEC", "llm_timeout_sec"))
    llm_temperature: float = Field(0.0, ge=0.0, le=2.0, validation_alias=_alias("LLM_TEMPERATURE", "llm_temperature"))
    llm_prices: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    llm_concurrency: int = Field(4, ge=1, le=64)

    # --- retries ----------------------------------------------------------------------------
    retry_max_attempts: int = Field(4, ge=1, le=20, validation_alias=_alias("RETRY_MAX_ATTEMPTS", "retry_max_attempts"))
    retry_backoff_base_sec: float = Field(
        0.5, ge=0.0, validation_alias=_alias("RETRY_BACKOFF_BASE_SEC", "retry_backoff_base_sec")
    )
    retry_backoff_factor: float = Field(
        2.0, ge=1.0, validation_alias=_alias("RETRY_BACKOFF_FACTOR", "retry_backoff_factor")
    )
    retry_backoff_max_sec: float = Field(
        20.0, ge=0.0, validation_alias=_alias("RETRY_BACKOFF_MAX_SEC", "retry_backoff_max_sec")
    )

    # --- progress events & memory -------------------------------------------------------------
    redis_url: str | None = Field(None, validation_alias=_alias("REDIS_URL", "redis_url"))
    memory_enabled: bool = True
    memory_roles: tuple[str, ...] = ("user", "assistant")

    @field_validator("llm_prices", mode="before")
    @classmethod
    def _prices_from_json(cls, value: object) -> object:
        return json.loads(value) if isinstance(value, str) else value

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
        if self.embedder == "openai" and not (self.openai_api_key or self.openai_base_url):
            raise ValueError("embedder 'openai' needs OPENAI_API_KEY or OPENAI_BASE_URL")
        if self.embedder == "azure" and not (self.azure_openai_endpoint and self.azure_embed_deployment):
            raise ValueError("embedder 'azure' needs AZURE_OPENAI_ENDPOINT and OAI_EMBED_DEPLOYMENT_NAME")
        if self.retry_backoff_max_sec < self.retry_backoff_base_sec:
            raise ValueError("RETRY_BACKOFF_MAX_SEC must be >= RETRY_BACKOFF_BASE_SEC")
        return self

    # --- derived ------------------------------------------------------------------------------
    @property
    def backend(self) -> Literal["neo4j", "falkordb"]:
        return "neo4j" if self.neo4j_uri else "falkordb"

    @property
    def embedded_graph_path(self) -> Path:
        return self.graph_path or self.data_dir / "graph.db"

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
        if self.neo4j_uri:
            return f"Neo4j {self.neo4j_uri} (database {self.neo4j_database})"
        return f"Embedded FalkorDB Lite {self.embedded_graph_path}"


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
