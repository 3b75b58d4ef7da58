"""A TCP forwarder in front of the session's Neo4j: a server that comes up at an address, or goes down under open
connections, without starting or stopping a JVM (each start costs ~30 s)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress


@contextmanager
def forwarding(port: int, target: tuple[str, int]) -> Iterator[None]:
    """Bytes between 127.0.0.1:`port` and `target`, both ways, while the block runs.

    Leaving the block closes the listener and every connection it carried, as a server that stops does: a client
    holding a pooled connection sees it drop, and a new one is refused until the port is forwarded again."""
    listener = socket.create_server(("127.0.0.1", port))
    listener.settimeout(0.2)
    done = threading.Event()
    carried: list[socket.socket] = []
    lock = threading.Lock()

    def pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                _cut(end)

    def accept() -> None:
        while not done.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(target)
            with lock:
                carried.extend((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=pump, args=(a, b), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=5)
        listener.close()
        with lock:
            for end in carried:
                _cut(end)


def _cut(end: socket.socket) -> None:
    """Shut a socket down both ways (waking the thread blocked reading it) and close it."""
    with suppress(OSError):
        end.shutdown(socket.SHUT_RDWR)
    end.close()
