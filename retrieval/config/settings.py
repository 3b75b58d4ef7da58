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
from typing import Any, Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from dotenv import dotenv_values
from pydantic import AliasChoices, BaseModel, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from retrieval.config.embedding_models import KNOWN_OPENAI_DIMS, LOCAL_MINILM_DIM
from retrieval.config.graph import GraphSettings
from retrieval.config.indexing import IndexingSettings
from retrieval.config.llm import ModelSettings
from retrieval.config.search import SearchSettings
from retrieval.config.service import ServiceSettings
from retrieval.errors import ConfigError
from retrieval.models import RetrievalKnobs
from retrieval.text.redact import install_log_redaction, register_secrets

#: The repository's data/ folder (the demo corpora): indexable from the app by default.
REPO_DATA_DIR = Path(__file__).resolve().parents[2] / "data"

#: The setting groups in the order the configuration reference lists them (the retrieval knobs follow).
GROUPS: tuple[type[BaseModel], ...] = (GraphSettings, SearchSettings, IndexingSettings, ModelSettings, ServiceSettings)


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]))


class Settings(
    BaseSettings, ServiceSettings, ModelSettings, IndexingSettings, SearchSettings, GraphSettings, RetrievalKnobs
):
    """Every knob of DriftLens with its default; field names double as `DRIFTLENS_<NAME>` env vars.

    The fields are declared by setting group (`GROUPS`); this class adds how they are read (environment, `.env`),
    the checks across groups and the derived values. The groups are listed last-first because pydantic orders
    fields from the last base, so the retrieval knobs and then the groups keep the order of `GROUPS`.
    """

    model_config = SettingsConfigDict(
        env_prefix="DRIFTLENS_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        validate_default=True,
    )

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
