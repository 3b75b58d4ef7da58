"""The service as the tests run it: the real app under a real uvicorn on 127.0.0.1, in a thread.

Why a real server rather than an in-process transport: the MCP client, schemathesis and the concurrency tests
need a socket, and uvicorn runs the app's lifespan (the gate, the MCP session manager) as production does.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI

from retrieval.config import Settings, load_settings
from retrieval.engine import Engine
from retrieval.service.app import create_app
from retrieval.store import GraphStore


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """`app` on a free loopback port until the block ends; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def settings_of(store: GraphStore, **update: Any) -> Settings:
    """The store's settings with `update`, validated again (so a new secret is registered for redaction)."""
    return load_settings(_env_file=None, **{**store.settings.model_dump(exclude_unset=True), **update})


def engine_over(store: GraphStore, **settings_update: Any) -> Engine:
    """An Engine on an open store (the fixtures own the store: close it with `release`)."""
    return Engine(settings_of(store, **settings_update), store=store)


def release(engine: Engine) -> None:
    """Close what the engine opened itself (its progress bus), not the fixture's store."""
    engine.bus.close()


@contextmanager
def service(store: GraphStore, **settings_update: Any) -> Iterator[str]:
    """The app over `store` with `settings_update` applied to the service's settings; yields the base URL."""
    engine = engine_over(store)
    try:
        with serving(create_app(settings_of(store, **settings_update), engine=engine)) as url:
            yield url
    finally:
        release(engine)
