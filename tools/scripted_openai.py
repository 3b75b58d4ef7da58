"""A local OpenAI-compatible HTTP server whose replies are scripted: the stand-in for paid model APIs.

Why a real HTTP server: the only stand-in DriftLens allows is for the paid LLM API, and it must be
driven through the real `openai` client, so request building, Azure URL rewriting, timeouts, status
errors and Retry-After handling are exercised exactly as in production. Every request is recorded
(authorisation values redacted) so tests can assert what the client actually sent. Why under tools/ and
not in the package: it is a test tool, not product; and not under tests/ because the examples' `--scripted`
mode and the benchmarks run it from a checkout without pytest (tests/scripted_openai.py adds only the pytest
fixture). It binds to 127.0.0.1 and nothing starts it unless asked.

Chat replies come from a queue of steps, then from an optional router `(request_json) -> step`;
with neither, the server answers 500 so a test that forgot to script fails loudly. A step is a
`Step`, or a `str` (message content, sent verbatim: malformed JSON included) or a `dict` (sent as
JSON content). `raw(...)` sends a body verbatim (HTML, truncated or misshapen JSON) to test how
the client copes with a broken server. Embeddings are deterministic vectors from a hash of each input; their queue holds
only failures or delays (`error(...)`, `Step(delay=...)`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

_SECRET_HEADERS = frozenset({"authorization", "api-key"})


@dataclass(frozen=True)
class Step:
    """One scripted reply: message content and/or tool calls, or an HTTP error, after an optional delay."""

    content: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = ""
    delay: float = 0.0
    #: Sent verbatim instead of a well-formed completion, with `content_type`.
    raw_body: str | None = None
    content_type: str = "application/json"


StepLike = Step | str | dict[str, Any]


def reply(content: str, *, delay: float = 0.0) -> Step:
    """Message content sent verbatim: plain text or deliberately malformed JSON."""
    return Step(content=content, delay=delay)


def json_reply(obj: dict[str, Any], *, delay: float = 0.0) -> Step:
    return Step(content=json.dumps(obj), delay=delay)


def tool_calls(*calls: tuple[str, dict[str, Any]], delay: float = 0.0) -> Step:
    """Tool calls in OpenAI's wire format, from (function name, arguments) pairs."""
    wire = tuple(
        {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for n, (name, args) in enumerate(calls)
    )
    return Step(tool_calls=wire, delay=delay)


def raw(body: str | dict[str, Any], *, content_type: str = "application/json", status: int = 200) -> Step:
    """A response body sent as-is (a dict is JSON-encoded): a proxy's HTML page, cut-off JSON, a wrong shape."""
    text = body if isinstance(body, str) else json.dumps(body)
    return Step(raw_body=text, content_type=content_type, status=status)


def error(status: int, *, retry_after: float | None = None, message: str = "", delay: float = 0.0) -> Step:
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    return Step(status=status, headers=headers, error_message=message or f"scripted error {status}", delay=delay)


def _as_step(item: StepLike) -> Step:
    if isinstance(item, Step):
        return item
    if isinstance(item, str):
        return reply(item)
    return json_reply(item)


def _words(text: str) -> int:
    return len(text.split())


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


@dataclass(frozen=True)
class RecordedRequest:
    kind: str  # "chat" or "embeddings"
    path: str
    query: dict[str, str]
    json: dict[str, Any]
    headers: dict[str, str]


class ScriptedOpenAI:
    """The server; `base_url` ends in /v1 for OpenAI clients, `endpoint` is the root for Azure clients."""

    def __init__(self, embedding_dim: int = 8) -> None:
        self.embedding_dim = embedding_dim
        self.response_model: str | None = None  # echo the request's model unless set
        self.requests: list[RecordedRequest] = []
        self._steps: deque[Step] = deque()
        self._embedding_steps: deque[Step] = deque()
        self._router: Callable[[dict[str, Any]], StepLike] | None = None
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="scripted-openai", daemon=True
        )

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.endpoint}/v1"

    @property
    def pending(self) -> int:
        """Chat steps not yet consumed: lets a test prove every scripted reply was asked for."""
        with self._lock:
            return len(self._steps)

    def script(
        self,
        *steps: StepLike,
        router: Callable[[dict[str, Any]], StepLike] | None = None,
    ) -> None:
        """Queue chat replies (consumed in order); `router` answers once the queue is empty."""
        with self._lock:
            self._steps.extend(_as_step(s) for s in steps)
            if router is not None:
                self._router = router

    def script_embeddings(self, *steps: Step) -> None:
        """Queue embedding failures or delays; a 200 step answers with the normal vectors."""
        with self._lock:
            self._embedding_steps.extend(steps)

    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.kind == "chat"]

    def embedding_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.kind == "embeddings"]

    def embedding_for(self, text: str, dim: int | None = None) -> list[float]:
        """The (unnormalised) vector the server returns for `text`: lets tests check order and normalisation."""
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        vector = np.random.default_rng(seed).normal(size=dim or self.embedding_dim) * 3.0
        return [float(v) for v in vector.astype(np.float32)]

    def start(self) -> ScriptedOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    # --- request handling (called from handler threads) -----------------------------------
    def _record(self, kind: str, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        url = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        safe = {k.lower(): ("<redacted>" if k.lower() in _SECRET_HEADERS else v) for k, v in headers.items()}
        with self._lock:
            self.requests.append(RecordedRequest(kind, url.path, query, body, safe))

    def _next_chat_step(self, body: dict[str, Any]) -> Step:
        with self._lock:
            if self._steps:
                return self._steps.popleft()
            router = self._router
        if router is None:
            return error(500, message="scripted_openai: no chat step scripted for this request")
        return _as_step(router(body))

    def _next_embedding_step(self) -> Step:
        with self._lock:
            return self._embedding_steps.popleft() if self._embedding_steps else Step()

    def _chat_response(self, body: dict[str, Any], step: Step) -> dict[str, Any]:
        prompt_tokens = sum(_words(_message_text(m)) for m in body.get("messages", []))
        completion_text = (step.content or "") + " ".join(c["function"]["arguments"] for c in step.tool_calls)
        message: dict[str, Any] = {"role": "assistant", "content": step.content}
        if step.tool_calls:
            message["tool_calls"] = list(step.tool_calls)
        completion_tokens = _words(completion_text)
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.response_model or body.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if step.tool_calls else "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _embeddings_response(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = self.embedding_for(text, body.get("dimensions"))
            encoded: Any = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode() if as_base64 else vector
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(_words(t) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": self.response_model or body.get("model", "scripted"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _route_kind(path: str) -> str | None:
    """chat/embeddings for the OpenAI paths, Azure's /openai/deployments/{dep}/... paths and Azure AI model
    inference's /models/embeddings."""
    parts = urlsplit(path).path.rstrip("/").split("/")
    if parts[-2:] == ["chat", "completions"] and (parts[1:2] == ["v1"] or parts[1:3] == ["openai", "deployments"]):
        return "chat"
    if parts[-1:] == ["embeddings"] and (parts[1:2] in (["v1"], ["models"]) or parts[1:3] == ["openai", "deployments"]):
        return "embeddings"
    return None


def _handler_for(server: ScriptedOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            kind = _route_kind(self.path)
            if kind is None:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            server._record(kind, self.path, body, dict(self.headers.items()))
            step = server._next_chat_step(body) if kind == "chat" else server._next_embedding_step()
            time.sleep(step.delay)
            if step.raw_body is not None:
                self._send_bytes(step.status, step.raw_body.encode(), step.content_type)
            elif step.status != 200:
                payload = {"error": {"message": step.error_message, "type": "scripted", "code": str(step.status)}}
                self._send(step.status, payload, step.headers)
            elif kind == "chat":
                self._send(200, server._chat_response(body, step))
            else:
                self._send(200, server._embeddings_response(body))

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

        def _send_bytes(
            self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
        ) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test): nothing to deliver

        def log_message(self, format: str, *args: Any) -> None:
            """Silence per-request logging; tests read `server.requests` instead."""

    return Handler
