"""Answer modes. Each module exposes `answer(ctx, question, params, progress) -> Answer`."""

from __future__ import annotations

import importlib
from typing import Protocol

from retrieval.context import Context
from retrieval.models import Answer, Mode, QueryParams
from retrieval.telemetry.events import RetrievalProgress

MODES: tuple[Mode, ...] = ("local", "global", "drift", "agent")
#: `global` is a Python keyword, so that mode's module has another name.
_MODULES: dict[Mode, str] = {"local": "local", "global": "global_mode", "drift": "drift", "agent": "agent"}


class ModeFn(Protocol):
    def __call__(
        self, ctx: Context, question: str, params: QueryParams, progress: RetrievalProgress | None
    ) -> Answer: ...


def mode_function(mode: Mode) -> ModeFn:
    """Import a mode lazily: the agent mode's tool loop should not load for a local question."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    return importlib.import_module(f"retrieval.modes.{_MODULES[mode]}").answer  # type: ignore[no-any-return]
