"""Where one embedded graph keeps its files, and moving a graph off the shared log older versions wrote.

Why apart from the server's lifecycle (embedded_server.py): the layout is pure path arithmetic and the migration
runs once per old folder; the lifecycle module then reads as starting, attaching to and stopping a server.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psutil

from retrieval.errors import StoreUnavailable

#: Unix socket paths longer than this do not fit `sockaddr_un`; such graphs get a socket in the temp folder.
MAX_SOCKET_PATH = 100


@dataclass(frozen=True)
class Layout:
    """Where one graph's files live, all derived from its path."""

    graph: Path
    data_dir: Path
    socket: Path

    @classmethod
    def of(cls, graph: Path) -> Layout:
        graph = graph.resolve()
        data_dir = graph.with_name(graph.name + ".data")
        socket = data_dir / "redis.sock"
        if len(str(socket)) > MAX_SOCKET_PATH:
            digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:20]
            socket = Path(tempfile.gettempdir()) / f"driftlens-{os.getuid()}-{digest}.sock"
        return cls(graph, data_dir, socket)

    @property
    def lock(self) -> Path:
        return self.data_dir / "server.lock"

    @property
    def config(self) -> Path:
        return self.data_dir / "redis.conf"

    @property
    def pidfile(self) -> Path:
        return self.data_dir / "redis.pid"

    @property
    def logfile(self) -> Path:
        return self.data_dir / "redis.log"

    @property
    def aof_dir(self) -> Path:
        return self.data_dir / "appendonlydir"


def migrate_shared_log(layout: Layout) -> None:
    """Older versions kept every graph of a folder on one log, `<folder>/appendonlydir`.

    A graph with no trace of the old layout starts empty (the shared log is not its data). When the graph being
    opened is the only one in the folder with such traces, the log is its own: it moves into the graph's data
    directory. When several graphs shared the log, its content is a mix of all of them and no split can be right:
    we refuse with the commands that give it to the graph it belongs to.
    """
    folder = layout.graph.parent
    shared = folder / "appendonlydir"
    if layout.aof_dir.exists() or not shared.is_dir():
        return
    legacy = _legacy_graphs(folder)
    if layout.graph not in legacy:
        return
    snapshot = layout.graph if layout.graph.is_file() else None
    registry = layout.graph.with_name(layout.graph.name + ".settings")
    others = sorted(p.name for p in legacy - {layout.graph})
    if others:
        names = ", ".join([layout.graph.name, *others])
        target = layout.data_dir
        moves = f"mv {shared} {target}/" + (f" && mv {snapshot} {target}/dump.rdb" if snapshot else "")
        raise StoreUnavailable(
            str(layout.graph),
            f"The graphs {names} in {folder} were written by an older DriftLens into one shared log ({shared}), "
            f"so it holds the data of all of them. Give it to the graph it belongs to, e.g. for this one: `{moves}`, "
            "and re-index the others.",
        )
    if _legacy_server_alive(registry):
        raise StoreUnavailable(
            str(layout.graph), "An older DriftLens still runs this graph's server; close it, then open the graph again."
        )
    shutil.move(str(shared), str(layout.aof_dir))
    if snapshot:
        shutil.move(str(snapshot), str(layout.data_dir / "dump.rdb"))
    registry.unlink(missing_ok=True)


def _legacy_graphs(folder: Path) -> set[Path]:
    """Graphs of the old layout in `folder`: a Redis snapshot at the graph's own path, or its server registry."""
    found = {p.with_name(p.name.removesuffix(".settings")) for p in folder.glob("*.settings")}
    for path in folder.iterdir():
        try:
            if path.is_file():
                with open(path, "rb") as handle:
                    if handle.read(5) == b"REDIS":
                        found.add(path)
        except OSError:
            continue
    return found


def _legacy_server_alive(registry: Path) -> bool:
    try:
        info = json.loads(registry.read_text())
        return psutil.pid_exists(int(Path(info["pidfile"]).read_text().strip()))
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
        return False
