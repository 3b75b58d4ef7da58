"""What a running service shares between requests: one Engine and one gate (the HTTP routes and MCP tools)."""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.config import Settings
from retrieval.engine import Engine
from retrieval.service.limits import Gate


@dataclass
class Service:
    engine: Engine
    gate: Gate
    #: The service's settings (limits); the engine's may differ when an engine is passed in.
    settings: Settings

    @classmethod
    def open(cls, engine: Engine, settings: Settings | None = None) -> Service:
        """The gate's limits come from `settings` (the service's), else from the engine's."""
        s = settings or engine.settings
        return cls(engine, Gate(s.api_max_concurrent, s.api_queue_wait_s, s.api_request_timeout_s), s)

    def close(self, *, engine_too: bool = True) -> None:
        self.gate.close()
        if engine_too:
            self.engine.close()
