"""How `pytest -n 2 --dist loadscope` (pytest-xdist) shares the suite between two workers.

Scopes, each run whole by one worker:
- the whole Neo4j half (every test whose `backend` is neo4j): the `backend` fixture and the session graphs built
  on it (the demo graph, the Christmas Carol graph) are torn down whenever a worker's next test runs on the other
  backend, and Neo4j Community has one database, so the half belongs on one worker with one server;
- the browser tests' embedded half (`tests/e2e`): its app and Chromium are package-scoped, started once;
- every other module: its module-scoped graphs are built once.

Why a scheduler of our own: xdist's `loadgroup` (the `xdist_group` mark) marks a group by rewriting the test's
node id, which pytest 9.2's structured node ids ignore, so its groups silently fall apart (pytest-xdist issue
1386). A scope read from the node id needs no rewriting. xdist runs the largest scope first: the Neo4j half.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

from tests.backends import NEO4J

E2E = "tests/e2e/"


def runs_on_neo4j(nodeid: str) -> bool:
    """Whether a test's id says it runs on Neo4j: the backend's parameter id is one of the bracket's parts."""
    if not nodeid.endswith("]") or "[" not in nodeid:
        return False
    return NEO4J in nodeid[nodeid.index("[") + 1 : -1].split("-")


def scope_of(nodeid: str) -> str:
    if runs_on_neo4j(nodeid):
        return NEO4J
    if nodeid.startswith(E2E):
        return E2E
    return nodeid.split("::", maxsplit=1)[0]


class BackendScopes(LoadScopeScheduling):
    """xdist's scope scheduling with the scopes above."""

    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid)
