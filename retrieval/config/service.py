"""Progress events, conversation memory, the HTTP service and MCP server, and logging.

Why a group: these concern how DriftLens is served and observed, not what it answers. `Settings` (settings.py) is
every group at once; scripts/config_doc.py documents each group from its `#:` comments.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AliasChoices, BaseModel, Field, SecretStr
from pydantic_settings import NoDecode


class ServiceSettings(BaseModel):
    """Progress events, conversation memory, the HTTP service and MCP server, and logging."""

    # --- progress events & memory -------------------------------------------------------------
    #: Redis for progress events on the `ui:retrieval_progress` channel (optional).
    redis_url: str | None = Field(None, validation_alias=AliasChoices("REDIS_URL", "redis_url"))
    #: Store and recall conversation memories of the app's own threads (the Agent Framework provider has its own
    #: `memory_enabled` argument, off by default as its design has it).
    memory_enabled: bool = True
    #: Message roles stored as memories.
    memory_roles: tuple[str, ...] = ("user", "assistant")
    #: Who the analyst is: conversations and question sets are kept per user.
    user: str = Field("analyst", min_length=1)

    # --- HTTP service and MCP server (`python -m retrieval serve`) ------------------------------
    #: Port of the HTTP service.
    api_port: int = Field(8000, ge=1, le=65535, validation_alias=AliasChoices("API_PORT", "api_port"))
    #: API key of the HTTP service (a secret); set, every route but `/health` and `/health/neo4j` needs
    #: `Authorization: Bearer <key>`. Empty means no key (docker-compose passes it empty when unset); the service's
    #: log says which.
    api_key: SecretStr | None = None
    #: Answers (search, retrieve, ask, MCP tools) computed at once; on 2 cores more only queue behind each other.
    api_max_concurrent: int = Field(4, ge=1, le=256)
    #: How long a request waits for a free answer slot before it gets 503 with `Retry-After`.
    api_queue_wait_s: float = Field(2.0, ge=0.0)
    #: Longest one answer may take before the request gets 504 (the work finishes in the background).
    api_request_timeout_s: float = Field(120.0, gt=0)
    #: Longest the service warms its graph at start (searches of its own, until they stop getting faster), with
    #: `/health` answering 503 "warming" meanwhile; 0 turns the warm-up off. A freshly started Neo4j shed 13% of
    #: searches in its first half minute at 50 clients, 0-2% once warm.
    api_warmup_s: float = Field(60.0, ge=0.0)
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
