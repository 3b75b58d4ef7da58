"""The package's boundaries hold at import time: the core (engine, store, search, modes, indexing) loads no web
framework, no MCP and no Streamlit; only `retrieval.service` brings in FastAPI and MCP."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORE = ["retrieval.engine", "retrieval.store", "retrieval.search.graph_search", "retrieval.modes.drift",
        "retrieval.modes.agent", "retrieval.indexing", "retrieval.cli.serve", "retrieval.telemetry.logs"]  # fmt: skip
FOREIGN = ("fastapi", "starlette", "uvicorn", "mcp", "streamlit", "prometheus_client")


def loaded_after_importing(modules: list[str]) -> set[str]:
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return set(json.loads(out))


def test_core_imports_no_web_framework_mcp_or_streamlit() -> None:
    assert not loaded_after_importing(CORE) & set(FOREIGN)


def test_the_service_is_where_fastapi_and_mcp_come_in() -> None:
    assert {"fastapi", "mcp", "prometheus_client"} <= loaded_after_importing(["retrieval.service.app"])
