"""How `pytest -n 2 --dist loadscope` (pytest-xdist) shares the suite between two workers.

Each worker is its own process with its own Neo4j server (started when it first meets a Neo4j test), so a module
runs whole on one worker, both its halves, as in one process. Scopes, each run whole by one worker:
- the browser tests' Neo4j half and their embedded half (`tests/e2e`), one scope each: each has an app process
  (and the Neo4j one the demo graph in that worker's Neo4j), started once; they go first, one to each worker,
  being the longest;
- every other module: its module-scoped graphs are built once.
With TEST_NEO4J_URI set, both workers would share that one database (Neo4j Community has one), so then the whole
Neo4j half is one scope, on one worker.

Why a scheduler of our own: xdist's `loadgroup` (the `xdist_group` mark) marks a group by rewriting the test's
node id, which pytest 9.2's structured node ids ignore, so its groups silently fall apart (pytest-xdist issue
1386). A scope read from the node id needs no rewriting.
"""

from __future__ import annotations

import os

from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController

from tests.backends import NEO4J

E2E = "tests/e2e/"
E2E_NEO4J = "tests/e2e/[neo4j]"


def runs_on_neo4j(nodeid: str) -> bool:
    """Whether a test's id says it runs on Neo4j: the backend's parameter id is one of the bracket's parts."""
    if not nodeid.endswith("]") or "[" not in nodeid:
        return False
    return NEO4J in nodeid[nodeid.index("[") + 1 : -1].split("-")


def scope_of(nodeid: str, *, shared_neo4j: bool = False) -> str:
    """The scope of a test; `shared_neo4j`: the workers would share one Neo4j database (TEST_NEO4J_URI is set)."""
    on_neo4j = runs_on_neo4j(nodeid)
    if on_neo4j and shared_neo4j:
        return NEO4J
    if nodeid.startswith(E2E):
        return E2E_NEO4J if on_neo4j else E2E
    return nodeid.split("::", maxsplit=1)[0]


class BackendScopes(LoadScopeScheduling):
    """xdist's scope scheduling with the scopes above; the browser scopes first (xdist orders the rest by size)."""

    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid, shared_neo4j=bool(os.environ.get("TEST_NEO4J_URI")))

    def _assign_work_unit(self, node: WorkerController) -> None:
        """Before the first unit goes out: the browser scopes (or the shared Neo4j half) to the front of the queue,
        so that each worker starts on one of them rather than one worker getting both."""
        if not any(self.assigned_work.values()):
            for scope in (E2E, E2E_NEO4J, NEO4J):
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
        super()._assign_work_unit(node)
