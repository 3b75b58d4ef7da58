"""Neo4j replies for callers: plain rows (like the embedded store's) and errors that name their cause.

Why a module of its own: the driver's result objects (nodes, relationships, temporal values) and its error codes
are Neo4j's vocabulary; callers see dicts with `_labels` and DriftLens's typed errors on either backend.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neo4j import Record
from neo4j.exceptions import AuthError, ClientError, Neo4jError
from neo4j.graph import Node, Path, Relationship

from retrieval.config import Settings
from retrieval.errors import DriftLensError, QueryError, ReadOnlyViolation, StoreUnavailable
from retrieval.store.base import timed_out
from retrieval.store.read_admission import WRITE_REFUSED

#: Types a reply's values arrive as that need no conversion.
_PLAIN = frozenset({str, int, float, bool, type(None)})
#: EXPLAIN's query type of a query that only reads ("rw", "w" and "s" change data or schema).
READ_ONLY = "r"


def rows(records: list[Record]) -> list[dict[str, Any]]:
    return [{key: plain(value) for key, value in record.items()} for record in records]


def plain(value: Any) -> Any:
    """Nodes and relationships as `{"_labels": [...], **props}` (what the embedded store returns), temporals as ISO.

    Plain values are returned first: a search's reply holds thousands of them, and the checks below (an abstract
    base class among them) cost more than the rest of decoding them."""
    if type(value) in _PLAIN:
        return value
    if type(value) is list:  # a packed reply: lists of plain values, one call per list rather than per value
        return [v if type(v) in _PLAIN else plain(v) for v in value]
    if isinstance(value, Node):
        return {"_labels": sorted(value.labels), **{k: plain(v) for k, v in value.items()}}
    if isinstance(value, Relationship):
        return {"_labels": [value.type], **{k: plain(v) for k, v in value.items()}}
    if isinstance(value, Path):
        return [plain(n) for n in value.nodes]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    iso = getattr(value, "iso_format", None)
    return iso() if callable(iso) else value


def connection_error(uri: str, settings: Settings, exc: Exception) -> StoreUnavailable:
    """One message per way of failing to reach the database, naming the setting to change (never a secret)."""
    if isinstance(exc, AuthError):
        return StoreUnavailable(
            uri,
            f"Neo4j refused the credentials of user '{settings.neo4j_username}': check NEO4J_USERNAME/NEO4J_PASSWORD.",
        )
    if isinstance(exc, ClientError) and exc.code and exc.code.endswith("DatabaseNotFound"):
        return StoreUnavailable(
            uri, f"The server has no database '{settings.neo4j_database}': set NEO4J_DATABASE to one that exists."
        )
    return StoreUnavailable(uri, "Check that Neo4j is running and reachable at that address (NEO4J_URI).", exc)


def query_error(exc: Neo4jError, settings: Settings, timeout_ms: int | None) -> DriftLensError:
    code = exc.code or ""
    if code.endswith("Statement.AccessMode") or "ForbiddenDueToTransactionType" in code:
        return ReadOnlyViolation(WRITE_REFUSED)
    if "TransactionTimedOut" in code:
        return QueryError(timed_out(settings, timeout_ms))
    if "MemoryPoolOutOfMemory" in code:
        return QueryError(f"Query stopped: it needed more memory than the server allows; narrow it. ({exc.message})")
    return QueryError(f"Query failed: {exc.message}")
