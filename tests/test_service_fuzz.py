"""Property-based fuzzing of the HTTP API from its own `/openapi.json` (schemathesis): whatever a client sends,
while the graph is up the service never answers 5xx. The example count is small so CI stays quick; raise
`FUZZ_EXAMPLES` locally for a longer run."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.schemas import APIOperation

from retrieval.store import GraphStore
from tests.service_server import service

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))


@pytest.fixture(scope="module")
def base_url(search_store: GraphStore) -> Iterator[str]:
    with service(search_store) as url:
        yield url


def operations(base_url: str) -> list[APIOperation]:
    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    return [result.ok() for result in schema.get_all_operations()]


def test_no_generated_request_gets_a_server_error(base_url: str) -> None:
    """Hypothesis drives each operation's strategy here (schemathesis' lazy pytest loader predates pytest 9)."""
    checked = []
    for operation in operations(base_url):

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        )
        def no_server_error(case: schemathesis.Case) -> None:
            case.call_and_validate(checks=[not_a_server_error], timeout=120)

        no_server_error()
        checked.append(f"{operation.method.upper()} {operation.path}")
    assert {"POST /v1/retrieval/search", "POST /retrieve", "POST /v1/ask", "GET /health"} <= set(checked)
