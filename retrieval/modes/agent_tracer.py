"""Tracer: every step of an agent run (LLM responses, tool calls, errors) with its duration, exportable as JSON.

Why: an LLM writing Cypher is only trustworthy when an analyst can replay what it asked, what the graph
answered and where it went wrong; the trace is that record, and it also becomes the Answer's trace tree.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from retrieval.models import TraceStep

EventKind = Literal["llm_response", "tool_call", "error", "submit", "max_iterations"]


class TraceEvent(BaseModel):
    kind: EventKind
    iteration: int
    name: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str = ""
    duration_ms: float = 0.0
    chunk_ids: list[str] = Field(default_factory=list)
    timestamp: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())


class Tracer:
    """Collects events in order; `span` times a block and records it even when the block raises."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []

    def record(self, kind: EventKind, iteration: int, **fields: Any) -> TraceEvent:
        event = TraceEvent(kind=kind, iteration=iteration, **fields)
        self.events.append(event)
        return event

    @contextmanager
    def span(self, kind: EventKind, iteration: int, **fields: Any) -> Iterator[TraceEvent]:
        """Yield an event to fill in (result, chunk_ids); its duration and any exception are recorded on exit."""
        event = TraceEvent(kind=kind, iteration=iteration, **fields)
        started = time.perf_counter()
        try:
            yield event
        except Exception as exc:
            event.error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            event.duration_ms = (time.perf_counter() - started) * 1000
            self.events.append(event)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps([e.model_dump(mode="json") for e in self.events], indent=indent, default=str)

    def steps(self) -> list[TraceStep]:
        """The events as the Answer's trace: one step per iteration, its events as children."""
        steps: list[TraceStep] = []
        for iteration in sorted({e.iteration for e in self.events}):
            parent = f"iteration-{iteration}"
            events = [e for e in self.events if e.iteration == iteration]
            steps.append(
                TraceStep(
                    id=parent,
                    kind="agent_iteration",
                    round=iteration,
                    duration_ms=sum(e.duration_ms for e in events),
                    chunk_ids=[c for e in events for c in e.chunk_ids],
                )
            )
            steps += [
                TraceStep(
                    id=f"{parent}-{n}",
                    parent_id=parent,
                    kind=e.kind,
                    round=iteration,
                    question=e.name or json.dumps(e.arguments, default=str)[:200],
                    answer=e.error or _preview(e.result),
                    duration_ms=e.duration_ms,
                    chunk_ids=e.chunk_ids,
                    details={"arguments": e.arguments, "error": e.error} if e.arguments or e.error else {},
                )
                for n, e in enumerate(events)
            ]
        return steps


def _preview(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
