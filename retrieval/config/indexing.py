"""Indexing: how documents are chunked and grouped, what a run may read, and who embeds.

Why a group: these decide what a graph holds; changing the embedder or chunking means re-indexing. `Settings`
(settings.py) is every group at once; scripts/config_doc.py documents each group from its `#:` comments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, SecretStr


class IndexingSettings(BaseModel):
    """Indexing: how documents are chunked and grouped, what a run may read, and who embeds."""

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
        "local", validation_alias=AliasChoices("DRIFTLENS_EMBEDDER", "EMBEDDING_PROVIDER", "embedder")
    )
    #: Texts per local embedder call.
    embedding_batch: int = Field(16, ge=1, le=256)
    #: Threads of the local embedder: batches of one call run this many at once, each on one ONNX thread; 0
    #: means one per core. While indexing, the embedder runs beside offline extraction, which keeps one more core
    #: busy.
    embedding_threads: int = Field(0, ge=0, le=64)
    #: Embedding model when `embedder` is `openai` or `azure`.
    openai_embedding_model: str = Field(
        "text-embedding-3-small",
        validation_alias=AliasChoices("OAI_EMBED_MODEL_NAME", "EMBEDDING_MODEL", "openai_embedding_model"),
    )
    #: Key of the embedding endpoint (a secret) when it differs from the chat model's; unset, the embedder
    #: uses OPENAI_API_KEY (or AZURE_OPENAI_API_KEY for `azure` and `azure-ai`).
    embedding_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("DRIFTLENS_EMBEDDING_API_KEY", "EMBEDDING_API_KEY", "embedding_api_key")
    )

    #: Azure AI Foundry project endpoint (`https://<resource>.services.ai.azure.com/api/projects/<project>`) of
    #: the `azure-ai` embedder; its model inference endpoint (`.../models`) is derived from it.
    azure_ai_project_endpoint: str | None = Field(
        None, validation_alias=AliasChoices("AZURE_AI_PROJECT_ENDPOINT", "azure_ai_project_endpoint")
    )
    #: Embedding model deployed in that project (the `azure-ai` embedder).
    azure_ai_embedding_name: str = Field(
        "text-embedding-ada-002", validation_alias=AliasChoices("AZURE_AI_EMBEDDING_NAME", "azure_ai_embedding_name")
    )
