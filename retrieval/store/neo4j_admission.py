"""Neo4j's read admission: EXPLAIN's plan checked by `read_admission`, remembered per statement text.

Why remembered: the store's own searches repeat a few dozen statement texts with new parameters, and a plan's
operators do not depend on the parameters' values, so each text is planned once. Why the plugin list: a function
the server offers beyond Cypher's own (APOC and other plugins) may reach past this database, so a plan calling one
is refused; the list is read from the server once per store. The FalkorDB counterpart is `falkordb_plans`.
"""

from __future__ import annotations

from collections.abc import Callable

import neo4j

from retrieval.errors import ReadOnlyViolation
from retrieval.store import read_admission
from retrieval.store.neo4j_results import READ_ONLY
from retrieval.store.records import Row

#: Query texts remembered as read-only; searches repeat a few dozen texts with new parameters.
CACHE = 1024
#: Query types EXPLAIN gives a statement that changes data ("rw", "w"); "s" is schema or system.
_WRITES = ("rw", "w")
_PLUGINS = "SHOW FUNCTIONS YIELD name, isBuiltIn WHERE NOT isBuiltIn RETURN name"


class ReadGate:
    """Admits a statement by its plan. `show(cypher)` runs a SHOW command (which cannot be EXPLAINed) and returns
    its rows; it is the store's, because the store owns the connection and its errors."""

    def __init__(self, show: Callable[[str], list[Row]]) -> None:
        self._show = show
        self._admitted: set[str] = set()
        self._plugin_functions: frozenset[str] | None = None

    def admit(self, cypher: str, database: str, explain: Callable[[], neo4j.ResultSummary]) -> None:
        """Raise ReadOnlyViolation unless `cypher` plans as a pure read of `database`; `explain()` plans it (only
        for a text not admitted before)."""
        if cypher in self._admitted:
            return
        self._check(explain(), database)
        if len(self._admitted) >= CACHE:
            self._admitted.clear()
        self._admitted.add(cypher)

    def _check(self, summary: neo4j.ResultSummary, database: str) -> None:
        if summary.query_type in _WRITES:
            raise ReadOnlyViolation(read_admission.WRITE_REFUSED)
        steps = read_admission.neo4j_steps(summary.plan)
        read_admission.admit(
            steps, operators=read_admission.NEO4J_READ_OPERATORS, families=read_admission.NEO4J_READ_FAMILIES
        )
        read_admission.admit_procedures(steps, read_admission.NEO4J_READ_PROCEDURES)
        read_admission.admit_functions(steps, self._plugins())
        if summary.query_type != READ_ONLY:
            raise ReadOnlyViolation(f"Refused: a statement of type '{summary.query_type}' is not a read.")
        if summary.database and summary.database != database:
            raise ReadOnlyViolation(f"Refused: it reads database '{summary.database}', not '{database}'.")

    def _plugins(self) -> frozenset[str]:
        """Functions the server offers beyond Cypher's own (APOC and other plugins), read once per store."""
        if self._plugin_functions is None:
            self._plugin_functions = frozenset(str(row["name"]) for row in self._show(_PLUGINS))
        return self._plugin_functions
