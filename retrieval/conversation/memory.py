"""Conversation memory: messages stored as `Memory` nodes, scoped, searchable, correctable.

Why these choices:
- Scope (application/agent/user/thread) is part of every read and write, so one user's memories can
  never surface in another user's context; an unscoped call is refused rather than read everything.
  Reads treat unset parts as wildcards (a user's memories across threads); `get`, invalidation and
  deletion match the full scope exactly (unset means ""), so naming a thread id shared by three users
  touches only the one owner named, never the other two.
- Every Memory node carries every key, with "" meaning "unset": FalkorDB cannot store null, and the
  stores filter over-fetched vector candidates on projected properties, which must exist to match.
- Invalidation keeps the node (an analyst can see what was believed and why it was withdrawn) but
  search skips it; deletion is for data that must go.
- Search uses the vector index on Memory. A small scope (a short thread in a big graph) barely shows
  up in the index's over-fetched candidates, so it is scored exactly instead: a bounded count decides,
  and scoring a few hundred vectors is both exact and cheaper than widening the over-fetch.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import ConfigError
from retrieval.store.base import GraphStore
from retrieval.store.records import Row, filter_clause, ident

SCOPE_KEYS: tuple[str, ...] = ("application_id", "agent_id", "user_id", "thread_id")
_TEXT_KEYS: tuple[str, ...] = ("text", "role", "timestamp", *SCOPE_KEYS, "message_id", "author_name", "payload")
_RECORD_KEYS: tuple[str, ...] = ("id", *_TEXT_KEYS, "invalid_at", "invalid_reason")
_VALID: dict[str, str] = {"invalid_at": ""}
#: Scopes up to this size are scored exactly; larger ones go through the vector index (see the module doc).
EXACT_SCOPE_LIMIT = 256


@dataclass(frozen=True)
class Scope:
    """Who a memory belongs to; unset parts are wildcards, but at least one part must be set."""

    application_id: str | None = None
    agent_id: str | None = None
    user_id: str | None = None
    thread_id: str | None = None

    def filters(self) -> dict[str, str]:
        """Equality filters for the set parts; raises ConfigError when none is set."""
        values = {key: getattr(self, key) for key in SCOPE_KEYS if getattr(self, key)}
        if not values:
            raise ConfigError(
                "Memory needs a scope: set at least one of application_id, agent_id, user_id or thread_id "
                "(or turn memory off with DRIFTLENS_MEMORY_ENABLED=false)."
            )
        return values

    def exact(self) -> dict[str, str]:
        """Every part, unset ones as "": the single owner a `get`, invalidation or deletion may touch."""
        self.filters()
        return {key: getattr(self, key) or "" for key in SCOPE_KEYS}

    def with_thread(self, thread_id: str | None) -> Scope:
        return Scope(self.application_id, self.agent_id, self.user_id, thread_id)

    @classmethod
    def of(cls, record: MemoryRecord) -> Scope:
        """The full scope a stored memory belongs to."""
        return cls(*(getattr(record, key) or None for key in SCOPE_KEYS))


class MemoryMessage(BaseModel):
    """A message to remember; `timestamp` defaults to the time it is stored."""

    text: str
    role: str
    message_id: str = ""
    author_name: str = ""
    timestamp: str = ""
    #: Opaque JSON an application keeps with the message (a conversation keeps the full answer); not embedded.
    payload: str = ""


class MemoryRecord(BaseModel):
    """A stored memory as the Memory page and the context provider see it ("" means unset)."""

    id: str
    text: str
    role: str
    timestamp: str
    application_id: str = ""
    agent_id: str = ""
    user_id: str = ""
    thread_id: str = ""
    message_id: str = ""
    author_name: str = ""
    payload: str = ""
    invalid_at: str = ""
    invalid_reason: str = ""
    score: float | None = None

    @property
    def valid(self) -> bool:
        return not self.invalid_at


class MemoryPage(BaseModel):
    items: list[MemoryRecord]
    total: int
    offset: int
    limit: int


class TimelinePoint(BaseModel):
    """Memories stored per day and role, with how many were later invalidated (Memory page chart)."""

    day: str
    role: str
    count: int
    invalid: int


class ScopeSummary(BaseModel):
    application_id: str
    agent_id: str
    user_id: str
    thread_id: str
    count: int
    last_timestamp: str


def by_owner(records: Sequence[MemoryRecord]) -> dict[Scope, list[str]]:
    """Record ids grouped by the full scope each belongs to: how a mixed selection is invalidated or deleted."""
    owners: dict[Scope, list[str]] = {}
    for record in records:
        owners.setdefault(Scope.of(record), []).append(record.id)
    return owners


def now_iso() -> str:
    """UTC ISO-8601 with microseconds: fixed width, so string order is time order on both backends."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class MemoryStore:
    """Scoped memory over any GraphStore; vector search when an embedder is given, recency otherwise."""

    def __init__(self, store: GraphStore, settings: Settings, embedder: Embedder | None = None) -> None:
        self.store = store
        self.settings = settings
        self.embedder = embedder
        self.label = ident(settings.memory_label)
        self._schema_ready = False

    # --- schema -------------------------------------------------------------------------------
    def ensure_schema(self) -> None:
        """Range indexes for id and scope lookups, and the vector index when there is an embedder (idempotent)."""
        if self._schema_ready:
            return
        s = self.settings
        for key in ("id", *SCOPE_KEYS):
            self.store.ensure_range_index(s.memory_label, key)
        if self.embedder is not None:
            self.store.ensure_vector_index(
                s.memory_vector_index, s.memory_label, s.embedding_property, self.embedder.dim
            )
        self._schema_ready = True

    # --- writes -------------------------------------------------------------------------------
    def add(self, scope: Scope, messages: Sequence[MemoryMessage], batch_size: int = 500) -> list[MemoryRecord]:
        """Store the messages whose role is in `settings.memory_roles` and that have text; returns what was stored."""
        scope_values = scope.filters()
        kept = [m for m in messages if m.role in self.settings.memory_roles and m.text.strip()]
        if not kept:
            return []
        self.ensure_schema()
        base = datetime.now(UTC)
        records = [
            MemoryRecord(
                id=uuid.uuid4().hex,
                text=m.text,
                role=m.role,
                # a batch shares one clock reading; microsecond steps keep its order for recency search
                timestamp=m.timestamp or (base + timedelta(microseconds=i)).isoformat(timespec="microseconds"),
                message_id=m.message_id,
                author_name=m.author_name,
                payload=m.payload,
                application_id=scope_values.get("application_id", ""),
                agent_id=scope_values.get("agent_id", ""),
                user_id=scope_values.get("user_id", ""),
                thread_id=scope_values.get("thread_id", ""),
            )
            for i, m in enumerate(kept)
        ]
        vectors = self.embedder.embed([r.text for r in records]) if self.embedder else None
        rows = [
            {
                "props": r.model_dump(include=set(_RECORD_KEYS)),
                **({"v": vectors[i]} if vectors is not None else {}),  # the float32 row, as the indexer writes
            }
            for i, r in enumerate(records)
        ]
        embedding = ident(self.settings.embedding_property)
        set_vector = f", m.{embedding} = {self.store.vec('row.v')}" if vectors is not None else ""
        self.store.write_batch(
            f"UNWIND $rows AS row CREATE (m:{self.label}) SET m = row.props{set_vector}",
            rows,
            batch_size,
            writes=self.label,
        )
        return records

    def invalidate(self, ids: Sequence[str], reason: str, scope: Scope) -> int:
        """Mark memories of exactly `scope` as no longer true: search skips them, listing shows them with the reason."""
        where, params = self._where(scope.exact(), {"ids": list(ids)}, "m.id IN $ids")
        rows = self.store.query(
            f"MATCH (m:{self.label}) WHERE {where} AND m.invalid_at = '' "
            "SET m.invalid_at = $at, m.invalid_reason = $reason RETURN count(m) AS n",
            {**params, "at": now_iso(), "reason": reason or "invalidated"},
            writes=self.label,
        )
        return int(rows[0]["n"]) if rows else 0

    def restore(self, ids: Sequence[str], scope: Scope) -> int:
        """Undo an invalidation: the memories of exactly `scope` are valid again (recalled and searched)."""
        where, params = self._where(scope.exact(), {"ids": list(ids)}, "m.id IN $ids")
        rows = self.store.query(
            f"MATCH (m:{self.label}) WHERE {where} AND m.invalid_at <> '' "
            "SET m.invalid_at = '', m.invalid_reason = '' RETURN count(m) AS n",
            params,
            writes=self.label,
        )
        return int(rows[0]["n"]) if rows else 0

    def delete(self, ids: Sequence[str], scope: Scope) -> int:
        """Delete the listed memories that belong to exactly `scope`."""
        where, params = self._where(scope.exact(), {"ids": list(ids)}, "m.id IN $ids")
        return self._delete(where, params)

    def delete_thread(self, scope: Scope) -> int:
        """Delete one thread of exactly one owner: the same thread id under another user is not touched."""
        if not scope.thread_id:
            raise ConfigError("Deleting a thread needs the scope's thread_id (and its user, agent, application).")
        return self._delete(*self._where(scope.exact(), {}))

    def delete_user(self, scope: Scope) -> int:
        """Delete every thread of one user within exactly the scope's application and agent."""
        if not scope.user_id or scope.thread_id:
            raise ConfigError(
                "Deleting a user's memories needs the scope's user_id and no thread_id (use delete_thread for one)."
            )
        owner = {key: value for key, value in scope.exact().items() if key != "thread_id"}
        return self._delete(*self._where(owner, {}))

    def _delete(self, where: str, params: Row) -> int:
        rows = self.store.query(
            f"MATCH (m:{self.label}) WHERE {where} WITH m, m.id AS id DETACH DELETE m RETURN count(id) AS n",
            params,
            writes=self.label,
        )
        return int(rows[0]["n"]) if rows else 0

    # --- search -------------------------------------------------------------------------------
    def search(
        self, scope: Scope, query: str = "", k: int = 5, *, query_vector: Sequence[float] | None = None
    ) -> list[MemoryRecord]:
        """The k valid memories of `scope` most similar to the query, or the k most recent without an embedder."""
        filters = {**scope.filters(), **_VALID}
        if k < 1:
            return []
        if self.embedder is None or not (query.strip() or query_vector is not None):
            return self.recent(scope, k)
        self.ensure_schema()
        vector = list(query_vector) if query_vector is not None else self.embedder.embed_query(query)
        if self._scope_size(filters) <= EXACT_SCOPE_LIMIT:
            return self._exact(filters, vector, k)
        hits = self.store.vector_search(
            self.settings.memory_label, vector, k, filters=filters, fetch=self._fetch_size(filters, k)
        )
        return [self._record(h.props, h.score) for h in hits]

    def recent(self, scope: Scope, k: int = 5) -> list[MemoryRecord]:
        where, params = self._where(scope, {}, "m.invalid_at = ''")
        rows = self.store.read(
            f"MATCH (m:{self.label}) WHERE {where} RETURN {self._columns()} ORDER BY m.timestamp DESC LIMIT $k",
            {**params, "k": int(k)},
        )
        return [self._record(r) for r in rows]

    def _scope_size(self, filters: Mapping[str, str]) -> int:
        """How many valid memories the scope has, counted only up to EXACT_SCOPE_LIMIT + 1 (bounded cost)."""
        where, params = filter_clause("m", filters)
        rows = self.store.read(
            f"MATCH (m:{self.label}) WHERE {where} WITH m LIMIT $limit RETURN count(m) AS n",
            {**params, "limit": EXACT_SCOPE_LIMIT + 1},
        )
        return int(rows[0]["n"]) if rows else 0

    def _fetch_size(self, filters: Mapping[str, str], k: int) -> int:
        """Candidates to ask the index for so one round holds ~2k of this scope: k x (all memories / scope's)."""
        where, params = filter_clause("m", filters)
        label = self.label
        total = self.store.read(f"MATCH (m:{label}) RETURN count(m) AS n")[0]["n"]
        scope = self.store.read(f"MATCH (m:{label}) WHERE {where} RETURN count(m) AS n", params)[0]["n"]
        return int(2 * k * max(1, total) / max(1, scope))

    def _exact(self, filters: Mapping[str, str], vector: Sequence[float], k: int) -> list[MemoryRecord]:
        """Cosine over every memory of a small scope: exact, and cheaper than an index over-fetch that finds few."""
        where, params = filter_clause("m", filters)
        embedding = ident(self.settings.embedding_property)
        rows = self.store.read(
            f"MATCH (m:{self.label}) WHERE {where} AND m.{embedding} IS NOT NULL "
            f"RETURN {self._columns()}, m.{embedding} AS v",
            params,
        )
        if not rows:
            return []
        matrix = np.asarray([r["v"] for r in rows], dtype=np.float32)
        query = np.asarray(vector, dtype=np.float32)
        scores = matrix @ query / np.maximum(np.linalg.norm(matrix, axis=1) * np.linalg.norm(query), 1e-12)
        order = np.argsort(-scores)[:k]
        return [self._record(rows[i], float(scores[i])) for i in order]

    # --- inspection (Memory page) -------------------------------------------------------------
    def get(self, memory_id: str, scope: Scope) -> MemoryRecord | None:
        """The memory with this id if it belongs to exactly `scope`, else None."""
        where, params = self._where(scope.exact(), {"id": memory_id}, "m.id = $id")
        rows = self.store.read(f"MATCH (m:{self.label}) WHERE {where} RETURN {self._columns()}", params)
        return self._record(rows[0]) if rows else None

    def message(self, scope: Scope, message_id: str) -> list[MemoryRecord]:
        """Every memory of `scope` (set parts; others any) stored under one message id, oldest first."""
        where, params = self._where(scope, {"message_id": message_id}, "m.message_id = $message_id")
        rows = self.store.read(
            f"MATCH (m:{self.label}) WHERE {where} RETURN {self._columns()} ORDER BY m.timestamp", params
        )
        return [self._record(r) for r in rows]

    def whole_messages(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """The records plus every other memory stored under the same message id in the same scope.

        Why: a conversation turn is one message id (its question and each mode's answer); deleting part of it
        leaves a turn that can only be shown as damaged, so the Memory page deletes what this returns.
        """
        whole = {r.id: r for r in records}
        for record in records:
            if record.message_id:
                owner = Scope.of(record)
                whole.update({m.id: m for m in self.message(owner, record.message_id) if Scope.of(m) == owner})
        return list(whole.values())

    def page(
        self, scope: Scope, *, offset: int = 0, limit: int = 50, include_invalid: bool = True, role: str | None = None
    ) -> MemoryPage:
        """Newest first, paged; invalidated memories are included (with their reason) unless asked not to."""
        extra = [] if include_invalid else ["m.invalid_at = ''"]
        extra_params: Row = {}
        if role:
            extra.append("m.role = $role")
            extra_params["role"] = role
        where, params = self._where(scope, extra_params, *extra)
        total = self.store.read(f"MATCH (m:{self.label}) WHERE {where} RETURN count(m) AS n", params)
        rows = self.store.read(
            f"MATCH (m:{self.label}) WHERE {where} RETURN {self._columns()} "
            "ORDER BY m.timestamp DESC SKIP $offset LIMIT $limit",
            {**params, "offset": int(max(offset, 0)), "limit": int(max(limit, 1))},
        )
        return MemoryPage(
            items=[self._record(r) for r in rows],
            total=int(total[0]["n"]) if total else 0,
            offset=offset,
            limit=limit,
        )

    def timeline(self, scope: Scope, unit: Literal["day", "hour", "minute"] = "day") -> list[TimelinePoint]:
        """Memories per `unit` (its start as `day`: `2026-11-26`, `2026-11-26T14`, `2026-11-26T14:05`) and role."""
        where, params = self._where(scope, {})
        width = {"day": 10, "hour": 13, "minute": 16}[unit]
        rows = self.store.read(
            f"MATCH (m:{self.label}) WHERE {where} "
            f"WITH substring(m.timestamp, 0, {width}) AS day, m.role AS role, "
            "CASE WHEN m.invalid_at = '' THEN 0 ELSE 1 END AS bad "
            "RETURN day, role, count(*) AS n, sum(bad) AS invalid ORDER BY day, role",
            params,
        )
        return [TimelinePoint(day=r["day"], role=r["role"], count=r["n"], invalid=r["invalid"]) for r in rows]

    def scopes(self, limit: int = 500) -> list[ScopeSummary]:
        """Every distinct scope with its size and latest activity, most recent first (the page's scope picker)."""
        keys = ", ".join(f"m.{k} AS {k}" for k in SCOPE_KEYS)
        rows = self.store.read(
            f"MATCH (m:{self.label}) WITH {keys}, count(m) AS count, max(m.timestamp) AS last_timestamp "
            f"RETURN {', '.join(SCOPE_KEYS)}, count, last_timestamp ORDER BY last_timestamp DESC LIMIT $limit",
            {"limit": int(limit)},
        )
        return [
            ScopeSummary(**{k: r[k] or "" for k in (*SCOPE_KEYS, "last_timestamp")}, count=r["count"]) for r in rows
        ]

    # --- helpers ------------------------------------------------------------------------------
    def _where(self, scope: Scope | Mapping[str, str], params: Row, *conditions: str) -> tuple[str, Row]:
        """A scope's filters (a Scope: set parts only; a mapping: exactly those values) and extra conditions.

        An unset part ("") is tested by its length: FalkorDB's range index on the scope keys finds no node
        for an equality with the empty string, so `m.user_id = ''` would match nothing.
        """
        filters = scope.filters() if isinstance(scope, Scope) else scope
        scope_where, scope_params = filter_clause("m", {k: v for k, v in filters.items() if v})
        unset = [f"size(m.{ident(k)}) = 0" for k, v in filters.items() if not v]
        parts = [c for c in (scope_where, *unset, *conditions) if c]
        return " AND ".join(parts), {**scope_params, **params}

    @staticmethod
    def _columns() -> str:
        return ", ".join(f"m.{k} AS {k}" for k in _RECORD_KEYS)

    @staticmethod
    def _record(props: Mapping[str, Any], score: float | None = None) -> MemoryRecord:
        values = {k: ("" if props.get(k) is None else str(props[k])) for k in _RECORD_KEYS}
        return MemoryRecord(**values, score=score)
