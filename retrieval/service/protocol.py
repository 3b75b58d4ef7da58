"""The HTTP protocol `serve` runs: uvicorn's httptools protocol with a deadline for each request's headers.

Why: uvicorn bounds an idle kept-alive connection (`timeout_keep_alive`) and nothing else. A client that opens a
connection and sends nothing, or sends its headers a byte at a time (slowloris), holds a connection, a file
descriptor and a parser for as long as it likes: 300 such connections were held 40 s and more. Here a request's
headers must be complete within `header_timeout_s` of the connection opening, or of the first byte of a later
request on a kept-alive connection (the idle time before that byte is the keep-alive timeout's); otherwise the
connection is closed. A body is the app's to read and bound (the size cap, the request timeout).
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HeaderDeadline(HttpToolsProtocol):
    def __init__(self, *args: Any, header_timeout_s: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout_s = header_timeout_s
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_timer is None:  # a later request on a kept-alive connection
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def header_deadline(header_timeout_s: float) -> type[asyncio.Protocol]:
    """uvicorn's `http` option for HeaderDeadline. A partial, not a class made here: `serve --workers` pickles the
    option into each worker process, and a partial of a module-level class pickles."""
    return cast("type[asyncio.Protocol]", partial(HeaderDeadline, header_timeout_s=header_timeout_s))
