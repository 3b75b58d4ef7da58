"""Prometheus metrics of the service, served at `/metrics` (prometheus-client, the reference client).

Route labels are the route's template (`/v1/retrieval/search`), never the raw path, and unknown paths share one
label, so a scanner cannot grow the label set. Graph latency is taken from the search layer's own phase timings
(each phase is graph reads), so no timing hook is needed in the store.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from retrieval.models import Answer

REQUESTS = Counter(
    "driftlens_http_requests_total", "HTTP requests by route, method and status", ["route", "method", "status"]
)
LATENCY = Histogram(
    "driftlens_http_request_seconds",
    "HTTP request latency by route",
    ["route", "method"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
SHED = Counter("driftlens_shed_total", "Requests answered 503 because every answer slot was busy", ["route"])
TIMEOUTS = Counter("driftlens_timeouts_total", "Answers that exceeded the per-request timeout", ["route"])
ANSWERS = Counter("driftlens_answers_total", "Answers by mode and by who wrote them", ["mode", "answered_by"])
LLM_CALLS = Counter("driftlens_llm_calls_total", "Chat model calls made for answers", ["mode"])
LLM_TOKENS = Counter("driftlens_llm_tokens_total", "Chat model tokens used for answers", ["mode", "kind"])
LLM_COST = Counter("driftlens_llm_cost_usd_total", "Estimated chat model cost of answers (USD)", ["mode"])
GRAPH_SECONDS = Histogram(
    "driftlens_graph_query_seconds",
    "Graph read latency per search phase (chunks, entities, bridge, expand)",
    ["phase"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
#: Phases of `Retrieval.timings_ms` that are graph reads (embedding is not).
GRAPH_PHASES = ("chunks", "entities", "bridge", "expand")


def observe_answer(answer: Answer) -> None:
    usage = answer.usage
    ANSWERS.labels(answer.mode, answer.answered_by).inc()
    if usage.llm_calls:
        LLM_CALLS.labels(answer.mode).inc(usage.llm_calls)
        LLM_TOKENS.labels(answer.mode, "prompt").inc(usage.prompt_tokens)
        LLM_TOKENS.labels(answer.mode, "completion").inc(usage.completion_tokens)
        LLM_COST.labels(answer.mode).inc(usage.cost_usd)


def observe_search(timings_ms: dict[str, float]) -> None:
    for phase in GRAPH_PHASES:
        if phase in timings_ms:
            GRAPH_SECONDS.labels(phase).observe(timings_ms[phase] / 1000)
