"""The embedded store's read admission: GRAPH.EXPLAIN's plan checked by `read_admission`, remembered per text.

Why remembered: the store's own searches repeat a few dozen statement texts with new parameters, and a plan's
operators do not depend on the parameters' values, so each text is planned once. Why the procedure catalogue:
FalkorDB's plan says `ProcedureCall` without naming the procedure, so calls are admitted only while every read
procedure the server offers is one `read_admission` lists (a server that adds one refuses every call until it
has been looked at). Writing procedures are refused by the server's read-only command itself.
"""

from __future__ import annotations

from collections.abc import Callable

from retrieval.errors import QueryAborted, QueryError, ReadOnlyViolation
from retrieval.store import read_admission

#: Statement texts remembered as admitted (and as compiling inside the row-limit wrapper).
CACHE = 1024
_CATALOGUE = "CALL dbms.procedures() YIELD name, mode RETURN name, mode"


Explain = Callable[[str], list[str]]


class PlanGate:
    """Admits a statement by its plan. An `explain(text)` returns GRAPH.EXPLAIN's lines (raising QueryError on a
    syntax error); it is the caller's, because planning can cost as much as running (FalkorDB folds constant
    expressions while it plans), so a statement from a person is planned under the same deadline as it runs.
    `procedures(cypher)` runs the procedure catalogue query and returns (name, mode) pairs."""

    def __init__(self, procedures: Callable[[str], list[tuple[str, str]]]) -> None:
        self._procedures = procedures
        self._admitted: set[str] = set()
        self._wraps: dict[str, bool] = {}
        self._unvetted: frozenset[str] | None = None

    def admit(self, cypher: str, text: str, explain: Explain) -> None:
        """Raise ReadOnlyViolation unless `text` (`cypher` with its parameters and bounded ranges) plans as a read
        of this graph."""
        if cypher in self._admitted:
            return
        steps = read_admission.falkordb_steps(explain(text))
        read_admission.admit(steps, operators=read_admission.FALKORDB_READ_OPERATORS)
        if any(step.operator == "ProcedureCall" for step in steps) and self.unvetted():
            raise ReadOnlyViolation(
                "Refused: this graph server offers procedures DriftLens has not vetted "
                f"({', '.join(sorted(self.unvetted()))}), and its plans do not say which one a call runs."
            )
        _remember(self._admitted, cypher)

    def compiles(self, text: str, explain: Explain) -> bool:
        """Whether `text` plans at all (the row-limit wrapper does not fit every statement, e.g. a leading WITH)."""
        if text not in self._wraps:
            try:
                explain(text)
                ok = True
            except QueryAborted:
                raise
            except QueryError:  # the database's syntax error: the caller runs the statement unwrapped
                ok = False
            if len(self._wraps) >= CACHE:
                self._wraps.clear()
            self._wraps[text] = ok
        return self._wraps[text]

    def unvetted(self) -> frozenset[str]:
        """Read procedures the server offers that `read_admission` does not list."""
        if self._unvetted is None:
            reads = {name for name, mode in self._procedures(_CATALOGUE) if mode.upper() == "READ"}
            self._unvetted = frozenset(reads - read_admission.FALKORDB_READ_PROCEDURES)
        return self._unvetted


def _remember(texts: set[str], text: str) -> None:
    if len(texts) >= CACHE:
        texts.clear()
    texts.add(text)
