"""Limits of the service: bounded concurrent answers with a per-request timeout, and a request size cap.

Why a gate of its own rather than uvicorn's `--limit-concurrency`: that limit counts every connection
(health checks and metrics scrapes included) and answers a bare 503. Here only answers take a slot; a request
waits `api_queue_wait_s` for one and then gets 503 with `Retry-After`, and `/health` stays answerable while
the machine is saturated. Answers run in the gate's own threads (graph reads and model calls block), so the
event loop keeps serving. A timed-out answer's thread cannot be interrupted: it keeps its slot until it
finishes, so the number of answers computing at once never exceeds the setting.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class Busy(Exception):
    """Every answer slot stayed taken for the whole queue wait."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"All answer slots are busy; retry in {retry_after_s} s.")
        self.retry_after_s = retry_after_s


class TimedOut(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"The answer took longer than {seconds:g} s (DRIFTLENS_API_REQUEST_TIMEOUT_S).")


class Gate:
    """At most `slots` answers at once, each in a worker thread, each awaited for at most `timeout_s`."""

    def __init__(self, slots: int, queue_wait_s: float, timeout_s: float) -> None:
        self.slots = slots
        self.queue_wait_s = queue_wait_s
        self.timeout_s = timeout_s
        self.retry_after_s = max(1, math.ceil(queue_wait_s))
        self._free = asyncio.Semaphore(slots)
        self._threads = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="driftlens-answer")

    async def run[T](self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` in a worker thread with the caller's context (its request id); Busy or TimedOut."""
        await self._acquire()
        future = asyncio.get_running_loop().run_in_executor(self._threads, contextvars.copy_context().run, work, *args)
        future.add_done_callback(lambda _: self._free.release())
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.timeout_s)
        except TimeoutError:
            raise TimedOut(self.timeout_s) from None

    async def _acquire(self) -> None:
        if not self._free.locked():
            await self._free.acquire()
            return
        if self.queue_wait_s <= 0:
            raise Busy(self.retry_after_s)
        try:
            await asyncio.wait_for(self._free.acquire(), self.queue_wait_s)
        except TimeoutError:
            raise Busy(self.retry_after_s) from None

    def close(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)


class BodyLimit:
    """413 for a body over `max_bytes`: at once from Content-Length, or while a chunked body is read."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.max_bytes:
                await too_large(send, self.max_bytes)
                return
            await self.app(scope, receive, send)
            return
        body, more = bytearray(), True
        while more:  # no length given (chunked): read it here, within the cap, then hand it on whole
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([message]), send)
                return
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
            if len(body) > self.max_bytes:
                await too_large(send, self.max_bytes)
                return
        await self.app(scope, _replay([{"type": "http.request", "body": bytes(body), "more_body": False}]), send)


def _replay(messages: list[Message]) -> Receive:
    async def receive() -> Message:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    return receive


async def too_large(send: Send, max_bytes: int) -> None:
    await send_json(
        send,
        413,
        {"error": "request too large", "detail": f"The body may have at most {max_bytes} bytes."},
    )


async def send_json(send: Send, status: int, body: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
