"""Progress events for a running retrieval: to in-process callbacks and, optionally, Redis pub/sub.

Why: DRIFT takes seconds to minutes, and an analyst should see what it is doing (which phase,
how far, on what evidence). The UI subscribes with a callback; other processes (a web front end,
a notebook) subscribe to the Redis channel. Progress is a side channel: a broken callback or an
unreachable Redis is logged and never fails the retrieval.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import redis
from pydantic import BaseModel, Field

from retrieval.config import Settings
from retrieval.models import Citation

log = logging.getLogger(__name__)

PROGRESS_CHANNEL = "ui:retrieval_progress"

Phase = Literal[
    "initializing",
    "expanding_query",
    "retrieving_communities",
    "executing_followup",
    "aggregating_results",
    "completed",
    "error",
]

#: Where each phase starts; follow-ups advance from 40 to FOLLOWUP_END_PCT (see `followup_pct`).
PHASE_PCT: dict[str, int] = {
    "initializing": 0,
    "expanding_query": 20,
    "retrieving_communities": 40,
    "executing_followup": 40,
    "aggregating_results": 90,
    "completed": 100,
}
FOLLOWUP_END_PCT = 80
_FINAL_PHASES = frozenset({"completed", "error"})


class ProgressEvent(BaseModel):
    message_type: Literal["retrieval_progress"] = "retrieval_progress"
    project_id: str
    retrieval_id: str
    phase: Phase
    progress_pct: int = Field(ge=0, le=100)
    thought_summary: str
    details_md: str = ""
    #: A finished reasoning step (`TraceStep.model_dump()`), so a UI can draw the DRIFT tree while it grows.
    step: dict[str, Any] | None = None
    message_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    timestamp: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())


Callback = Callable[[ProgressEvent], None]


def followup_pct(done: int, total: int) -> int:
    """Progress after `done` of `total` follow-up questions, spread over the follow-up band."""
    start = PHASE_PCT["executing_followup"]
    if total <= 0:
        return FOLLOWUP_END_PCT
    return start + round((FOLLOWUP_END_PCT - start) * min(done, total) / total)


class ProgressBus:
    """App-wide delivery: shared callbacks plus the Redis channel of `settings.redis_url`, else of `default_url`
    (the engine passes the embedded graph server's own socket, so progress can be subscribed to with no setup)."""

    def __init__(self, settings: Settings, callbacks: Iterable[Callback] = (), default_url: str | None = None) -> None:
        self._callbacks = list(callbacks)
        url = settings.redis_url or default_url
        self._redis = redis.Redis.from_url(url) if url else None

    def retrieval(
        self, project_id: str, retrieval_id: str | None = None, callbacks: Iterable[Callback] = ()
    ) -> RetrievalProgress:
        """A reporter for one retrieval; `callbacks` hear only this one (e.g. one page's progress bar)."""
        return RetrievalProgress(self, project_id, retrieval_id or uuid.uuid4().hex, list(callbacks))

    def publish(self, event: ProgressEvent, extra_callbacks: Sequence[Callback] = ()) -> None:
        for callback in (*self._callbacks, *extra_callbacks):
            try:
                callback(event)
            except Exception:
                log.exception("progress callback %r failed; retrieval continues", callback)
        if self._redis is not None:
            try:
                self._redis.publish(PROGRESS_CHANNEL, event.model_dump_json())
            except redis.RedisError as exc:
                log.warning("could not publish progress to Redis (%s); retrieval continues", type(exc).__name__)

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()


class RetrievalProgress:
    """Events of one retrieval: ids and timestamps filled in, progress never going backwards.

    Follow-ups run in a thread pool and may report out of order, so a lower percentage is raised to
    the last one sent rather than rejected; the lock makes delivery order match that order. After
    `completed` or `error` the retrieval is over and later events are dropped.
    """

    def __init__(self, bus: ProgressBus, project_id: str, retrieval_id: str, callbacks: list[Callback]) -> None:
        self.project_id = project_id
        self.retrieval_id = retrieval_id
        self._bus = bus
        self._callbacks = callbacks
        self._lock = threading.Lock()
        self._last_pct = 0
        self._finished = False

    def emit(
        self, phase: Phase, pct: int, thought: str, details_md: str = "", step: dict[str, Any] | None = None
    ) -> ProgressEvent | None:
        """Send one event; returns it, or None when the retrieval had already finished."""
        with self._lock:
            if self._finished:
                log.debug("dropping %s event for finished retrieval %s", phase, self.retrieval_id)
                return None
            self._last_pct = max(self._last_pct, min(pct, 100))
            self._finished = phase in _FINAL_PHASES
            event = ProgressEvent(
                project_id=self.project_id,
                retrieval_id=self.retrieval_id,
                phase=phase,
                progress_pct=self._last_pct,
                thought_summary=thought,
                details_md=details_md,
                step=step,
            )
            self._bus.publish(event, self._callbacks)
            return event


def _excerpt(text: str, max_chars: int) -> str:
    flat = " ".join(text.split()).replace('"', "'")
    return flat if len(flat) <= max_chars else flat[: max_chars - 1].rstrip() + "…"


def followup_details(citations: Iterable[Citation], max_chars: int = 160) -> str:
    """Markdown for a follow-up's evidence: one `- [document] "excerpt"` line per citation."""
    return "\n".join(
        f'- [{c.document_name or c.chunk_id}] "{_excerpt(c.span, max_chars)}"' for c in citations if c.span.strip()
    )


def _cited_documents(citations: Iterable[Citation]) -> list[str]:
    """Each cited document once, in first-cited order (a chunk without a document stands for itself)."""
    return list(dict.fromkeys(c.document_name or c.chunk_id for c in citations))


def aggregation_details(citations: Iterable[Citation]) -> str:
    """The `aggregating_results` event's sources as the DRIFT design's examples show them: `doc1, doc2`."""
    return ", ".join(_cited_documents(citations))


def completion_details(citations: Iterable[Citation]) -> str:
    """The `completed` event's sources as the DRIFT design's examples show them: `[doc1], [doc2]`."""
    return ", ".join(f"[{name}]" for name in _cited_documents(citations))
