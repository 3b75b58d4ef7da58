"""Access and limits of the service on the real app: API key, request size, per-request timeout, concurrency
shedding with Retry-After, CORS, metrics, and JSON logs with request ids and no secrets."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from retrieval.service.app import create_app
from retrieval.service.limits import Gate
from retrieval.store import GraphStore
from retrieval.telemetry.logs import json_handler, request_id
from tests.scripted_openai import ScriptedOpenAI, reply
from tests.service_server import engine_over, release, service, serving, settings_of

KEY = "k3y-Th4t-Must-N3ver-Leak"
QUESTION = {"query": "Who discovered polonium?", "project_id": "science"}


def test_api_key_guards_every_route_but_health(search_store: GraphStore) -> None:
    with service(search_store, api_key=KEY) as url, httpx.Client(base_url=url, timeout=60) as client:
        for probe in ("/health", "/health/neo4j"):  # open without a key; 200 or, when the graph's probe is slow, 503
            answer = client.get(probe)
            assert answer.status_code in (200, 503) and "www-authenticate" not in answer.headers, probe
            assert "error" not in answer.json(), probe
        for method, path in (("POST", "/retrieve"), ("GET", "/metrics"), ("GET", "/openapi.json"), ("POST", "/mcp")):
            refused = client.request(method, path, json=QUESTION)
            assert refused.status_code == 401, path
            assert refused.headers["www-authenticate"] == "Bearer"
            assert refused.json()["error"] == "unauthorized"
        for wrong in ("Bearer nope", f"Bearer {KEY}x", f"Basic {KEY}", KEY, f"Bearer {KEY[:-1]}"):
            assert client.post("/retrieve", json=QUESTION, headers={"Authorization": wrong}).status_code == 401
        allowed = client.post("/retrieve", json=QUESTION, headers={"Authorization": f"Bearer {KEY}"})
        assert allowed.status_code == 200, allowed.text


def test_body_over_the_limit_is_413_with_or_without_a_length(search_store: GraphStore) -> None:
    with service(search_store, api_max_body_bytes=2048) as url, httpx.Client(base_url=url, timeout=60) as client:
        big = json.dumps({"query": "x" * 3000}).encode()
        sized = client.post("/retrieve", content=big, headers={"content-type": "application/json"})
        assert sized.status_code == 413 and "2048 bytes" in sized.json()["detail"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: httpx sends it chunked
            yield big[:1000]
            yield big[1000:]

        streamed = client.post("/retrieve", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413
        small = client.post(
            "/retrieve", content=iter([json.dumps(QUESTION).encode()]), headers={"content-type": "application/json"}
        )
        assert small.status_code == 200, "a chunked body within the limit is read whole and answered"


@pytest.fixture
def slow_model(scripted_openai: ScriptedOpenAI) -> ScriptedOpenAI:
    """Every chat reply takes 2.5 s: answers that hold their slot for a known time."""
    scripted_openai.script(router=lambda _request: reply("Marie Curie discovered polonium [c1].", delay=2.5))
    return scripted_openai


@contextmanager
def slow_service(store: GraphStore, model: ScriptedOpenAI, **limits: Any) -> Iterator[httpx.Client]:
    """The service with the slow model and the given gate limits; yields a client for it."""
    engine = engine_over(store, openai_base_url=model.base_url, retry_max_attempts=1)
    try:
        with (
            serving(create_app(settings_of(store, **limits), engine=engine)) as url,
            httpx.Client(base_url=url, timeout=60) as client,
        ):
            yield client
    finally:
        release(engine)


ASK = {"query": "Who discovered polonium?", "mode": "local", "projectId": "science"}


def _sample(exposition: str, name: str, **labels: str) -> float:
    """The value of sample `name` with `labels` in a /metrics text, 0 when it has not been counted yet."""
    for family in text_string_to_metric_families(exposition):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return 0.0


def test_timeout_is_504_and_a_full_gate_sheds_with_retry_after(
    search_store: GraphStore, slow_model: ScriptedOpenAI
) -> None:
    limits = {"api_max_concurrent": 1, "api_queue_wait_s": 0.3, "api_request_timeout_s": 1.0}
    with slow_service(search_store, slow_model, **limits) as client:
        before = client.get("/metrics").text
        slow = client.post("/v1/ask", json=ASK)
        assert slow.status_code == 504, slow.text
        assert "1 s" in slow.json()["detail"]
        # The timed-out answer still runs (a thread cannot be stopped) and keeps the only slot.
        shed = client.post("/v1/ask", json=ASK)
        assert shed.status_code == 503, shed.text
        assert shed.headers["retry-after"] == "1" and shed.json()["error"] == "busy"
        assert client.get("/health").status_code == 200, "health is never queued behind answers"
        after = client.get("/metrics").text
    # The counters are the process's (prometheus-client's default registry): earlier tests, such as this one on
    # the other backend, have counted before, so the test checks what this run added.
    for name in ("driftlens_shed_total", "driftlens_timeouts_total"):
        assert _sample(after, name, route="/v1/ask") - _sample(before, name, route="/v1/ask") == 1.0, name


def test_requests_over_the_slots_wait_for_one_within_the_queue_wait(
    search_store: GraphStore, slow_model: ScriptedOpenAI
) -> None:
    limits = {"api_max_concurrent": 2, "api_queue_wait_s": 60, "api_request_timeout_s": 120}
    with slow_service(search_store, slow_model, **limits) as client, ThreadPoolExecutor(3) as pool:
        statuses = [r.status_code for r in pool.map(lambda _: client.post("/v1/ask", json=ASK), range(3))]
    assert statuses == [200] * 3, "the third waits for one of two slots, within the queue wait"


def test_cors_is_off_unless_origins_are_configured(search_store: GraphStore) -> None:
    preflight = {"Origin": "https://ui.example", "Access-Control-Request-Method": "POST"}
    with service(search_store) as url:
        assert "access-control-allow-origin" not in httpx.options(f"{url}/retrieve", headers=preflight).headers
    with service(search_store, api_cors_origins=("https://ui.example",)) as url:
        allowed = httpx.options(f"{url}/retrieve", headers=preflight)
        assert allowed.headers["access-control-allow-origin"] == "https://ui.example"


def test_metrics_count_requests_by_route_template_and_status(search_store: GraphStore) -> None:
    with service(search_store) as url, httpx.Client(base_url=url, timeout=60) as client:
        client.post("/v1/retrieval/search", json={"query": "polonium", "projectId": "science"})
        client.get("/no/such/path/123")
        text = client.get("/metrics").text
    assert 'driftlens_http_requests_total{method="POST",route="/v1/retrieval/search",status="200"}' in text
    assert 'route="unmatched",status="404"' in text and "/no/such/path" not in text
    assert 'driftlens_graph_query_seconds_count{phase="expand"}' in text


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """What the service's JSON handler writes, captured at INFO."""
    stream = io.StringIO()
    handler = json_handler(stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_logs_are_json_with_request_ids_and_never_carry_the_key(
    search_store: GraphStore, log_lines: io.StringIO
) -> None:
    with service(search_store, api_key=KEY) as url, httpx.Client(base_url=url, timeout=60) as client:
        answered = client.post(
            "/retrieve", json=QUESTION, headers={"Authorization": f"Bearer {KEY}", "X-Request-ID": "req-42"}
        )
        client.post("/retrieve", json=QUESTION, headers={"Authorization": f"Bearer {KEY}-wrong"})
    assert answered.headers["x-request-id"] == "req-42"
    log = logging.getLogger("driftlens.test")
    log.warning("configured key %s", KEY, extra={"header": f"Authorization: Bearer {KEY}"})
    try:
        raise RuntimeError(f"failed with api_key={KEY}")
    except RuntimeError:
        log.exception("with a traceback")
    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    assert KEY not in log_lines.getvalue()
    access = [line for line in lines if line["logger"] == "driftlens.access"]
    assert any(line["request_id"] == "req-42" and line["status"] == 200 for line in access), access
    assert {"time", "level", "logger", "message", "request_id"} <= set(access[0])
    assert any(line["status"] == 401 for line in access)
    assert any("***" in line.get("header", "") for line in lines)


def test_the_gate_runs_work_with_the_callers_request_id() -> None:
    async def main() -> list[str]:
        gate = Gate(slots=2, queue_wait_s=1, timeout_s=5)
        request_id.set("from-the-request")
        try:
            return [await gate.run(request_id.get), await gate.run(lambda: threading.current_thread().name)]
        finally:
            gate.close()

    seen_id, thread = asyncio.run(main())
    assert seen_id == "from-the-request" and thread.startswith("driftlens-answer")
