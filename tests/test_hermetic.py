"""The suite's own guards (tests/hermetic.py) fail when they should: each case runs a small test session of its own
(pytester, in a subprocess) with the guard plugin, a real embedded graph and real processes."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable

import psutil
import pytest

from retrieval.config import DEFAULT_DATA_DIR, load_settings
from tests.backends import external_target
from tests.hermetic import REPO, personal_variables

REACHES_THE_DEFAULT = """
from retrieval.config import load_settings
from retrieval.store import open_store
from tests.hermetic import skip_missing_tool
import pytest


def test_opens_the_default_graph(monkeypatch):
    monkeypatch.delenv("DRIFTLENS_DATA_DIR")  # as if the suite had not pointed it elsewhere
    with open_store(load_settings(_env_file=None, neo4j_uri=None)) as store:
        store.query("CREATE (:Probe)")


def test_opens_a_graph_of_its_own(tmp_path):
    with open_store(load_settings(_env_file=None, neo4j_uri=None, data_dir=tmp_path)) as store:
        store.query("CREATE (:Probe)")


def test_without_settings_gets_a_temporary_folder():
    with open_store(load_settings(_env_file=None, neo4j_uri=None)) as store:
        store.query("CREATE (:Probe)")


def test_leaves_another_main():
    import sys, types

    sys.modules["__main__"] = types.ModuleType("app_script")


def test_lacks_a_tool():
    skip_missing_tool("frobnicate (the frobnication tests)")


def test_skips_for_no_good_reason():
    pytest.skip("not today")
"""

LEAVES_PROCESSES = """
import json, subprocess, sys
from pathlib import Path

from retrieval.config import load_settings
from retrieval.store import open_store


def test_leaves_a_child_and_a_graph_server_running(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    settings = load_settings(_env_file=None, neo4j_uri=None, data_dir=tmp_path, graph_keep_server=True)
    with open_store(settings):
        pass
    lock = json.loads((tmp_path / "graph.db.data" / "server.lock").read_text())
    (Path.cwd() / "pids.json").write_text(json.dumps([child.pid, lock["server_pid"]]))
"""


Session = Callable[..., pytest.RunResult]
#: The suite runs on two xdist workers (pyproject.toml): the guards must hold there as in one process.
IN_WORKERS = ("-n", "2")


@pytest.fixture
def session_of(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Session:
    """Run `source` as a test session of its own (in pytester's folder) with the guard plugin."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("HERMETIC_EXIT_GRACE_S", "1")  # the processes these sessions leave stay: no need to wait 5 s

    def run(source: str, *args: str) -> pytest.RunResult:
        pytester.makepyfile(test_inner=source)
        return pytester.runpytest_subprocess(
            "-p", "tests.hermetic", "-p", "no:randomly", "-p", "no:cacheprovider", *args, timeout=300
        )  # fmt: skip

    return run


def test_a_test_that_opens_the_default_data_folder_fails(session_of: Session, pytester: pytest.Pytester) -> None:
    result = session_of(REACHES_THE_DEFAULT)  # one process: in workers, either worker's next test sees it
    result.assert_outcomes(passed=4, skipped=2, errors=2)
    default = pytester.path / DEFAULT_DATA_DIR
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_opens_the_default_graph*",
            f"*the test reached the default data folder*{default} was created*",
        ]
    )
    assert (default / "graph.db.data" / "redis.log").exists()  # a real server ran there
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_leaves_another_main*", "*app_script* as __main__*"])
    assert "ERROR at teardown of test_opens_a_graph_of_its_own" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*1 TESTS SKIPPED, MISSING SYSTEM TOOL: frobnicate (the frobnication tests)*",
            "*1 TESTS SKIPPED, NOT FOR A MISSING TOOL: not today*",
        ]
    )
    assert "LEFT RUNNING" not in result.stdout.str()


@pytest.mark.parametrize("args", [(), IN_WORKERS], ids=["one-process", "workers"])
def test_a_session_that_leaves_processes_running_fails_and_stops_them(
    session_of: Session, pytester: pytest.Pytester, args: tuple[str, ...]
) -> None:
    result = session_of(LEAVES_PROCESSES, *args)
    result.assert_outcomes(passed=1)  # the test itself passed: the session's end is what fails
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    child, server = json.loads((pytester.path / "pids.json").read_text())
    result.stdout.fnmatch_lines(
        [
            f"*LEFT RUNNING (stopped now): pid {child} *time.sleep(120)*after test_inner.py::test_leaves_a_child*",
            f"*LEFT RUNNING (stopped now): pid {server} *redis-server*",
        ]
    )
    for pid in (child, server):
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_settings_without_a_data_dir_get_a_temporary_folder_of_this_test() -> None:
    settings = load_settings(_env_file=None)
    assert settings.data_dir.is_relative_to(tempfile.gettempdir())
    assert not settings.embedded_graph_path.is_relative_to(REPO)
    assert not any(settings.data_dir.iterdir())  # a fresh one: nothing a previous test left


def test_the_fixtures_are_in_the_repository_with_their_licences() -> None:
    for name in ("graphrag-operation-dulce", "neo4j-genai-workshop-kg"):
        folder = REPO / "tests" / "fixtures" / name
        assert (folder / "LICENSE").is_file() and "Licence:" in (folder / "README.md").read_text(), folder


def test_the_persons_settings_variables_are_set_aside_and_only_test_neo4j_uri_names_a_scratch_server() -> None:
    """A shell holding `export NEO4J_URI=...` (as `make neo4j` prints it) for the person's real graph, or a Qdrant
    or model endpoint, must not reach the suite: the Neo4j half wipes the database it is given. Every variable a
    setting reads is dropped; only TEST_NEO4J_URI points the tests at a server."""
    environ = {
        "NEO4J_URI": "bolt://production:7687",
        "NEO4J_PASSWORD": "secret",
        "NEO4J_INDEX_NAME": "vector",
        "QDRANT_URL": "http://qdrant:6333",
        "OPENAI_API_KEY": "sk-real",
        "DRIFTLENS_PROJECT": "theirs",
        "PATH": "/usr/bin",
        "TEST_NEO4J_URI": "bolt://scratch:7687",
    }
    dropped = set(personal_variables(environ))
    assert dropped == {
        "NEO4J_URI",
        "NEO4J_PASSWORD",
        "NEO4J_INDEX_NAME",
        "QDRANT_URL",
        "OPENAI_API_KEY",
        "DRIFTLENS_PROJECT",
    }
    assert external_target({"NEO4J_URI": "bolt://production:7687", "NEO4J_PASSWORD": "secret"}) is None
    scratch = external_target({"TEST_NEO4J_URI": "bolt://scratch:7687", "TEST_NEO4J_PASSWORD": "pw"})
    assert scratch is not None and scratch.external
    assert (scratch.uri, scratch.user, scratch.password) == ("bolt://scratch:7687", "neo4j", "pw")
