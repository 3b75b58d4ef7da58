"""`serve --workers N`: several service processes on one port, each with its own Engine on the same graph."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.conftest import DemoGraph
from tests.e2e.conftest import free_port

ROOT = Path(__file__).resolve().parents[1]


def test_two_workers_start_and_answer_searches_on_the_same_graph(demo: DemoGraph, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, **demo.env, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "retrieval", "serve", "--port", str(port), "--workers", "2"]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=sink)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_healthy(base, process, log)
        with httpx.Client(base_url=base, timeout=120) as http:
            for _ in range(4):
                found = http.post("/v1/retrieval/search", json={"query": "What does Scrooge think of Christmas?"})
                assert found.status_code == 200, found.text
                # No projectId: every project is read (issue #28), so meta names none; it named the configured one.
                assert found.json()["documents"] and found.json()["meta"]["projectId"] is None
        text = _wait_for_workers(log, 2)
        assert '"logger": "uvicorn.access"' not in text  # our JSON access lines only, as with one process
        assert '"logger": "driftlens.access"' in text
    finally:
        process.terminate()
        process.wait(timeout=60)


def _wait_healthy(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 240  # each worker loads the embedder and opens the graph
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text(encoding="utf-8")[-2000:]
        try:
            if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError("the service did not answer /health: " + log.read_text(encoding="utf-8")[-2000:])


def _wait_for_workers(log: Path, n: int) -> str:
    """The log once `n` worker processes have said they started: /health answers as soon as the first is up, and
    under load the second can still be loading its embedder then."""
    deadline = time.monotonic() + 240
    while True:
        text = log.read_text(encoding="utf-8")
        started = set(re.findall(r"Started server process \[(\d+)\]", text))
        if len(started) >= n or time.monotonic() > deadline:
            assert len(started) == n, text[-2000:]
            return text
        time.sleep(0.5)
