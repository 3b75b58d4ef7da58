"""The scopes `pytest -n 2 --dist loadscope` shares the suite by (tests/scheduling.py)."""

from __future__ import annotations

from tests.scheduling import E2E, E2E_NEO4J, NEO4J, runs_on_neo4j, scope_of


def test_the_backend_is_read_from_the_brackets_parts_not_from_any_text() -> None:
    assert runs_on_neo4j("tests/test_x.py::test_a[neo4j]")
    assert runs_on_neo4j("tests/test_x.py::test_a[graph-neo4j-2]")
    assert not runs_on_neo4j("tests/test_x.py::test_a[falkordb]")
    assert not runs_on_neo4j("tests/test_neo4j_x.py::test_neo4j_mode")
    assert not runs_on_neo4j("tests/test_x.py::test_a[neo4jish]")


def test_each_worker_has_its_own_neo4j_so_a_module_stays_whole() -> None:
    assert scope_of("tests/test_x.py::test_a[neo4j]") == "tests/test_x.py"
    assert scope_of("tests/test_x.py::test_a[falkordb]") == "tests/test_x.py"
    assert scope_of("tests/e2e/test_y.py::test_b[neo4j]") == E2E_NEO4J
    assert scope_of("tests/e2e/test_y.py::test_b[falkordb]") == E2E
    assert scope_of("tests/e2e/test_y.py::test_c") == E2E


def test_a_shared_neo4j_database_puts_the_whole_neo4j_half_on_one_worker() -> None:
    assert scope_of("tests/test_x.py::test_a[neo4j]", shared_neo4j=True) == NEO4J
    assert scope_of("tests/e2e/test_y.py::test_b[neo4j]", shared_neo4j=True) == NEO4J
    assert scope_of("tests/test_x.py::test_a[falkordb]", shared_neo4j=True) == "tests/test_x.py"
