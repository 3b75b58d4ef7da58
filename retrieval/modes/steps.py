"""Pieces DRIFT and global search share: degrading LLM calls, timed phases, None-safe progress.

Why degrade instead of fail: a multi-step answer is worth more than an error when one step's
model call breaks (malformed JSON twice, a timeout after every retry). That step falls back to
its extractive counterpart and says so in a note; only a broken store or embedder fails the run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from retrieval.errors import LLMError
from retrieval.llm.client import ChatModel, Message
from retrieval.models import TraceStep, Usage
from retrieval.telemetry.events import Phase, RetrievalProgress

log = logging.getLogger(__name__)


def ask_json(
    llm: ChatModel, messages: list[Message], *, schema: dict[str, Any], name: str, phase: str, usage: Usage
) -> tuple[dict[str, Any] | None, list[str]]:
    """The model's JSON object, or (None, notes) when the caller must answer extractively."""
    try:
        result = llm.complete_json(messages, schema=schema, schema_name=name, phase=phase, usage=usage)
    except LLMError as exc:
        return None, [fallback_note(phase, exc)]
    return result.parsed, list(result.notes)


def fallback_note(phase: str, exc: LLMError) -> str:
    """Log a failed model call and say, in the answer's notes, that its extractive counterpart stood in."""
    log.warning("%s call failed, using the extractive fallback: %s", phase, exc)
    return f"{phase}: {exc} Used the extractive fallback."


def ask_text(llm: ChatModel, messages: list[Message], phase: str, usage: Usage) -> tuple[str, list[str]]:
    """The model's text, or ("", notes) when the call failed after its retries."""
    try:
        return llm.complete(messages, phase=phase, usage=usage).text.strip(), []
    except LLMError as exc:
        log.warning("%s call failed, skipping it: %s", phase, exc)
        return "", [f"{phase}: {exc} Skipped."]


@contextmanager
def timed(usage: Usage, phase: str) -> Iterator[None]:
    """Wall time of a phase, once per phase even when its calls overlap in threads."""
    started = time.perf_counter()
    try:
        yield
    finally:
        usage.add_time(phase, (time.perf_counter() - started) * 1000)


def emit(
    progress: RetrievalProgress | None,
    phase: Phase,
    pct: int,
    thought: str,
    *,
    details_md: str = "",
    step: TraceStep | None = None,
) -> None:
    """Report progress when someone listens; a finished step travels whole so a UI can grow its tree."""
    if progress is not None:
        progress.emit(phase, pct, thought, details_md, step.model_dump() if step else None)


def clamp01(value: Any, default: float = 0.5) -> float:
    """A model's confidence as 0..1, whether it answered 0.7, 70 or something unusable."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    if number > 1.0:
        number /= 100.0
    return min(max(number, 0.0), 1.0)
