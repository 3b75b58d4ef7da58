"""Typed errors: each carries a message an analyst can act on.

The UI and the CLI show `str(error)` as-is, so every message names what went wrong
and what to do about it. Secrets are masked in every message (see `DriftLensError`).
"""

from __future__ import annotations

from retrieval.text.redact import redact


class DriftLensError(Exception):
    """Base class: anything the product can explain to a user in one sentence.

    The message is redacted on construction, so a URI with a password or a key a server echoed back
    never reaches a page, a log or a traceback through `str(error)`.
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(arg) if isinstance(arg, str) else arg for arg in args))


class ConfigError(DriftLensError):
    """Settings are invalid or inconsistent; raised at start-up."""


class StoreUnavailable(DriftLensError):
    """The graph database cannot be reached."""

    def __init__(self, uri: str, hint: str, cause: BaseException | None = None) -> None:
        detail = f" ({type(cause).__name__}: {cause})" if cause else ""
        super().__init__(f"Graph database at {uri} is unavailable{detail}. {hint}")
        self.uri = redact(uri)


class VectorStoreUnavailable(DriftLensError):
    """The vector store (Qdrant) cannot be reached, refused the request, or its local folder is taken."""

    def __init__(self, where: str, hint: str, cause: BaseException) -> None:
        super().__init__(f"Qdrant ({where}) is unavailable ({type(cause).__name__}: {cause}). {hint}")


class IndexMissing(DriftLensError):
    """A vector or fulltext index the query needs does not exist yet."""

    def __init__(
        self, index: str, hint: str = "Build the graph first (Index page or `python -m retrieval index PATH`)."
    ) -> None:
        super().__init__(f"Index '{index}' does not exist. {hint}")
        self.index = index


class EmbeddingMismatch(DriftLensError):
    """The configured embedder differs from the one the graph was built with."""

    def __init__(self, graph_embedder: str, graph_dim: int, embedder: str, dim: int) -> None:
        super().__init__(
            f"This graph was indexed with embedder '{graph_embedder}' ({graph_dim}-d) but the configured "
            f"embedder is '{embedder}' ({dim}-d). Either switch back to '{graph_embedder}' in the settings, "
            f"or re-index the documents with '{embedder}' into a new graph (DRIFTLENS_GRAPH_PATH). A graph built by "
            "another tool is re-embedded instead: set DRIFTLENS_EMBEDDING_PROPERTY to a new property and run "
            "`python -m retrieval reembed`."
        )
        self.graph_embedder = graph_embedder
        self.graph_dim = graph_dim


class InvalidInput(DriftLensError):
    """A caller's value cannot be used (an embedding of the wrong size, a project the graph does not have)."""


class ReadOnlyViolation(DriftLensError):
    """A query sent through the read-only path tried to write."""


class QueryError(DriftLensError):
    """A Cypher query failed; the message carries the database's reason."""


class QueryMemoryExceeded(QueryError):
    """The server stopped a query at its per-query memory cap (nothing it wrote was kept)."""


class QueryAborted(QueryError):
    """DriftLens ended a statement the database did not stop by its deadline, or one that took the graph server
    down; such a statement is never run again on the caller's behalf."""


class LLMError(DriftLensError):
    """The language model could not be reached or kept failing after retries."""


class LLMNotConfigured(DriftLensError):
    """A feature needs a language model and none is configured."""
