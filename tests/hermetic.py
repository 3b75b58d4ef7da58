"""The suite touches nothing of the person running it and leaves nothing running (a pytest plugin, see conftest.py).

- Data folder: before any settings load, `DRIFTLENS_DATA_DIR` points at a session temp folder, and each test gets
  a folder of its own; the person's own settings variables are dropped: every `DRIFTLENS_*` and every other name
  a setting reads (`NEO4J_URI`, `QDRANT_URL`, `OPENAI_API_KEY`, ...: `personal_variables`), since any of them may
  name their graph, vector store or model endpoint. A shell that ran `make neo4j`'s `export NEO4J_URI=...` line
  then `make test` pointed the suite at that database, which the Neo4j half wipes; a scratch server for the tests
  is named by `TEST_NEO4J_URI` instead (tests/backends.py).
- Default folder guard: the default data folder (`.driftlens` in the clone and in the folder pytest was started
  from) must not appear or change. It is checked after every test, on the filesystem, so that an open by the
  test process itself or by any process it started fails the test that did it, naming what changed (in a
  parallel run, the next test to end on either worker: the folder is one for all).
- `__main__` guard: a test that leaves another module as `__main__` (AppTest leaves app.py there) fails: every
  process spawned later (the indexer's extraction processes) would run that module on start.
- Process guard: after every test, the processes descended from pytest are noted with that test's id. At the
  very end (after the session's Neo4j is stopped) any of them still alive, and any embedded graph server
  (redis-server, which daemonises away from its parent) serving a folder under this session's temp folders, fail
  the run, each named by pid and command line, and are stopped.
- Skips: a test may only skip for a missing system tool (`skip_missing_tool`); the summary names each loudly,
  and any other skip too.
- Parallel runs (pytest-xdist): each worker guards its own tests and processes and hands what it found at its end
  to the controller (`workeroutput`), which fails the run and prints it, since xdist ignores a worker's exit status.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import psutil
import pytest
from pydantic import AliasChoices

from retrieval.config import DEFAULT_DATA_DIR, Settings

REPO = Path(__file__).resolve().parents[1]
#: Skip reasons that mean "this machine lacks a tool": the only skips the suite expects.
MISSING_TOOL = "missing system tool:"
#: Helpers that multiprocessing starts once per interpreter and that exit with it: not left behind by a test.
ENDS_WITH_PYTEST = ("from multiprocessing.resource_tracker import main", "from multiprocessing.forkserver import main")
#: How long processes stopped at the very end (an app told to stop, a closing browser) may take to go. The guard's
#: own tests shorten it for the sessions they run: a process left on purpose is waited for that long.
EXIT_GRACE_S = float(os.environ.get("HERMETIC_EXIT_GRACE_S", "5"))
#: Folder states are (relative path, size, mtime) of every entry; None when the folder does not exist.
FolderState = tuple[tuple[str, int, int], ...] | None


def skip_missing_tool(what: str) -> None:
    """Skip because this machine lacks a system tool (say which and what for); the summary lists it loudly."""
    pytest.skip(f"{MISSING_TOOL} {what}")


def folder_state(folder: Path) -> FolderState:
    if not folder.exists():
        return None
    entries = []
    for path in sorted(folder.rglob("*")):
        try:
            stat = path.lstat()
        except FileNotFoundError:  # removed while we looked: the next check sees its absence
            continue
        entries.append((str(path.relative_to(folder)), stat.st_size, stat.st_mtime_ns))
    return tuple(entries)


def describe_change(folder: Path, before: FolderState, after: FolderState) -> str:
    if before is None:
        return f"{folder} was created ({len(after or ())} entries)"
    if after is None:
        return f"{folder} was deleted"
    changed = sorted({entry[0] for entry in set(before) ^ set(after)})
    return f"{folder} changed: {', '.join(changed[:8])}{' ...' if len(changed) > 8 else ''}"


def personal_variables(environ: Mapping[str, str]) -> list[str]:
    """The variables of `environ` a DriftLens setting reads: `DRIFTLENS_*` (the settings' prefix) and every alias
    a field names (`NEO4J_URI`, `QDRANT_URL`, `OPENAI_API_KEY`, ...), read from the settings model itself so that
    a setting added later is covered too."""
    aliases: set[str] = set()
    for info in Settings.model_fields.values():
        alias = info.validation_alias
        choices = alias.choices if isinstance(alias, AliasChoices) else [alias]
        aliases |= {c for c in choices if isinstance(c, str) and c.isupper()}
    return [name for name in environ if name.startswith("DRIFTLENS_") or name in aliases]


@dataclass(frozen=True)
class Seen:
    """A process the suite started, and what is known of where it came from."""

    pid: int
    created: float
    command: str
    origin: str

    def alive(self) -> bool:
        try:
            process = psutil.Process(self.pid)
            return process.create_time() == self.created and process.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False


def _command(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline()) or process.name()
    except psutil.Error:
        return "?"


def _graph_servers() -> Iterator[tuple[tuple[int, float], psutil.Process]]:
    """Every redis-server on the machine (a graph's runs in its data folder), with its (pid, start time)."""
    for process in psutil.process_iter(["name", "create_time"]):
        if process.info["name"] == "redis-server":
            yield (process.pid, process.info["create_time"]), process


def _cwd(process: psutil.Process) -> str:
    try:
        return process.cwd()
    except psutil.Error:
        return ""


def _under(path: str, roots: list[Path]) -> bool:
    return any(Path(path).is_relative_to(root) for root in roots)


@dataclass
class Guard:
    """One session's state: its temp roots, the default folders' last known state, what it saw and found."""

    data_root: Path
    defaults: dict[Path, FolderState]
    #: Graph servers (pid, start time) that ran before the session: the person's own, maybe on a default folder.
    earlier_servers: set[tuple[int, float]] = field(default_factory=lambda: {key for key, _ in _graph_servers()})
    temp_roots: list[Path] = field(default_factory=list)
    seen: dict[tuple[int, float], Seen] = field(default_factory=dict)
    skips: Counter[str] = field(default_factory=Counter)
    left_running: list[Seen] = field(default_factory=list)
    default_touched: list[str] = field(default_factory=list)
    #: Each test's own data folder, to name the test when a graph server is left running in it.
    owners: dict[Path, str] = field(default_factory=dict)
    #: pytest's `__main__`: a spawned process (multiprocessing) runs whatever module stands there on start.
    main: ModuleType = field(default_factory=lambda: sys.modules["__main__"])

    @classmethod
    def start(cls) -> Guard:
        """Point the default data folder of every settings load at a temp folder, and note the real defaults."""
        data_root = Path(tempfile.mkdtemp(prefix="driftlens-tests-data-"))
        for name in personal_variables(os.environ):
            del os.environ[name]
        os.environ["DRIFTLENS_DATA_DIR"] = str(data_root / "session")
        # Model calls that fail are retried after milliseconds, not the designs' 2 s growing to 60 s: the failure
        # paths are what is tested, not the wait (test_config checks the defaults with these unset).
        os.environ.update(RETRY_BACKOFF_BASE_SEC="0.01", RETRY_BACKOFF_MAX_SEC="0.05")
        folders = {(REPO / DEFAULT_DATA_DIR).resolve(), (Path.cwd() / DEFAULT_DATA_DIR).resolve()}
        return cls(data_root, {folder: folder_state(folder) for folder in folders}, temp_roots=[data_root])

    # --- after each test ------------------------------------------------------------------------
    def defaults_changed(self) -> list[str]:
        """What happened to the default folders since the last check (which then takes the new state)."""
        changes = []
        for folder, before in self.defaults.items():
            after = folder_state(folder)
            if after != before:
                changes.append(describe_change(folder, before, after))
                self.defaults[folder] = after
        return changes

    def note_processes(self, test: str) -> None:
        for process in psutil.Process().children(recursive=True):
            try:
                key = (process.pid, process.create_time())
            except psutil.Error:
                continue
            if key in self.seen or any(helper in (command := _command(process)) for helper in ENDS_WITH_PYTEST):
                continue
            self.seen[key] = Seen(process.pid, key[1], command, f"first seen after {test}")

    # --- at the end -----------------------------------------------------------------------------
    def graph_servers(self) -> list[Seen]:
        """Embedded graph servers started during the session that serve a folder of its temp folders or the
        default folders (they daemonise: no longer our descendants)."""
        roots = [*self.temp_roots, *self.defaults]
        return [
            Seen(key[0], key[1], _command(process), self._owner(Path(where)))
            for key, process in _graph_servers()
            if key not in self.earlier_servers and (where := _cwd(process)) and _under(where, roots)
        ]

    def _owner(self, where: Path) -> str:
        test = next((test for folder, test in self.owners.items() if where.is_relative_to(folder)), None)
        return f"in the data folder of {test}" if test else f"serving {where}"

    def still_running(self) -> list[Seen]:
        """The session's processes alive now, after a grace period for those on their way out."""
        self.note_processes("the session's end")
        deadline = time.monotonic() + EXIT_GRACE_S
        while True:
            alive = {(s.pid, s.created): s for s in [*self.seen.values(), *self.graph_servers()] if s.alive()}
            if not alive or time.monotonic() > deadline:
                return sorted(alive.values(), key=lambda s: s.pid)
            time.sleep(0.2)

    def finish(self) -> bool:
        """Whether the session left nothing behind; stops what it finds so that nothing keeps running."""
        self.default_touched += self.defaults_changed()
        found = self.still_running()
        for process in found:
            _stop(process)
        self.left_running += found
        return not self.left_running and not self.default_touched

    # --- across xdist workers -----------------------------------------------------------------------
    def hand_over(self, workeroutput: dict[str, object]) -> None:
        """A worker's findings, in a form execnet can send (plain lists and strings)."""
        workeroutput[HAND_OVER] = {
            "left_running": [[s.pid, s.created, s.command, s.origin] for s in self.left_running],
            "default_touched": list(self.default_touched),
            "skips": dict(self.skips),
        }

    def take_over(self, workeroutput: dict[str, object]) -> None:
        found = workeroutput.get(HAND_OVER)
        if not isinstance(found, dict):
            return
        self.left_running += [Seen(int(p), float(c), str(cmd), str(o)) for p, c, cmd, o in found["left_running"]]
        self.default_touched += found["default_touched"]
        self.skips.update(found["skips"])

    def close(self) -> None:
        shutil.rmtree(self.data_root, ignore_errors=True)


def _stop(seen: Seen) -> None:
    try:
        process = psutil.Process(seen.pid)
        if process.create_time() != seen.created:
            return
        process.terminate()
        process.wait(EXIT_GRACE_S)
    except psutil.TimeoutExpired:
        process.kill()
    except psutil.Error:
        pass


# --- the plugin's hooks ---------------------------------------------------------------------------
GUARD = pytest.StashKey[Guard]()
#: The key of a worker's findings in xdist's `workeroutput`.
HAND_OVER = "driftlens_hermetic"


def pytest_configure(config: pytest.Config) -> None:
    config.stash[GUARD] = Guard.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    if GUARD in config.stash:
        config.stash[GUARD].close()


@pytest.fixture(scope="session", autouse=True)
def _session_temp(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Graph servers under pytest's temp folder are the session's too."""
    pytestconfig.stash[GUARD].temp_roots.append(tmp_path_factory.getbasetemp())


@pytest.fixture(autouse=True)
def _own_data_dir(pytestconfig: pytest.Config, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's default data folder is its own (the session's is for fixtures that outlive a test)."""
    guard = pytestconfig.stash[GUARD]
    folder = tempfile.mkdtemp(prefix="test-", dir=guard.data_root)
    guard.owners[Path(folder)] = request.node.nodeid
    monkeypatch.setenv("DRIFTLENS_DATA_DIR", folder)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """After the test and the fixtures it ends: note its processes; fail it if the default folder moved or if
    it left another module as `__main__` (put back first)."""
    yield
    guard = item.config.stash[GUARD]
    guard.note_processes(item.nodeid)
    problems = []
    if changes := guard.defaults_changed():
        problems.append(f"the test reached the default data folder, which belongs to the person running the tests: "
                        f"{'; '.join(changes)}. Give it a temporary data_dir/graph_path.")  # fmt: skip
    if sys.modules["__main__"] is not guard.main:
        problems.append(f"the test left {sys.modules['__main__']} as __main__ (AppTest does; end such a test with "
                        "tests.conftest.close_app()): every process spawned later would run it on start.")  # fmt: skip
        sys.modules["__main__"] = guard.main
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Count skips by reason, for the summary."""
    report = yield
    if report.skipped and isinstance(report.longrepr, tuple):
        item.config.stash[GUARD].skips[str(report.longrepr[2]).removeprefix("Skipped: ")] += 1
    return report


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """After every other session end (conftest.py stops the session's Neo4j there): fail a run that leaves
    processes behind or touched the default folder (a worker's findings go to the controller, which fails)."""
    guard = session.config.stash[GUARD]
    clean = guard.finish()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        guard.hand_over(workeroutput)
    elif not clean and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """xdist's controller: a worker ended; take what its guard found."""
    config: pytest.Config = node.config  # type: ignore[attr-defined]
    config.stash[GUARD].take_over(getattr(node, "workeroutput", {}))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    guard = terminalreporter.config.stash[GUARD]
    write = terminalreporter.write_sep
    for reason, count in sorted(guard.skips.items()):
        if reason.startswith(MISSING_TOOL):
            tool = reason.removeprefix(MISSING_TOOL).strip()
            write("!", f"{count} TESTS SKIPPED, MISSING SYSTEM TOOL: {tool}", red=True, bold=True)
        else:
            write("!", f"{count} TESTS SKIPPED, NOT FOR A MISSING TOOL: {reason}", red=True, bold=True)
    for change in guard.default_touched:
        write("!", f"DEFAULT DATA FOLDER TOUCHED: {change}", red=True, bold=True)
    for process in guard.left_running:
        write("!", f"LEFT RUNNING (stopped now): pid {process.pid} {process.command[:300]} "
                   f"({process.origin})", red=True, bold=True)  # fmt: skip
