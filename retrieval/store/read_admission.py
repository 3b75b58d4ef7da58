"""Which statements a read path may run, decided by the database's own plan, never by the statement's text.

Why the plan: a statement's text can be spelled in endless ways (`LOAD/**/CSV`, unicode escapes, backticks,
comments), but the database has to name every operator it will run. Each backend's adapter asks its database to
plan the statement (Neo4j `EXPLAIN`, FalkorDB `GRAPH.EXPLAIN`), turns the plan into `PlanStep`s, and this module
admits the statement only when every step is on an allowlist: scans, seeks, expansions, filters, projections,
aggregation, sorting, and the few procedures that read this graph (labels, schema, the vector and fulltext index
queries). Administration commands (`SHOW`/`TERMINATE` anything, users, databases), `LOAD CSV`, writes, procedures
not listed and operators this module does not know are refused, with a message naming what was refused. An
operator a new database version adds is therefore refused until someone has looked at it: safe by default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from retrieval.errors import ReadOnlyViolation

#: Neo4j 5 operators that only read the graph (the plan's `operatorType` without its `@database` suffix).
#: Families are matched by prefix below (every index seek or scan, every expand); the rest by name.
NEO4J_READ_OPERATORS = frozenset(
    {
        "ProduceResults", "Projection", "Filter", "Limit", "ExhaustiveLimit", "Skip", "Sort", "PartialSort", "Top",
        "PartialTop", "Top1WithTies", "Distinct", "OrderedDistinct", "EagerAggregation", "OrderedAggregation",
        "NodeCountFromCountStore", "RelationshipCountFromCountStore", "Eager", "CacheProperties", "Argument",
        "ArgumentTracker", "Apply", "SemiApply", "AntiSemiApply", "LetSemiApply", "LetAntiSemiApply",
        "SelectOrSemiApply", "SelectOrAntiSemiApply", "LetSelectOrSemiApply", "LetSelectOrAntiSemiApply",
        "ConditionalApply", "AntiConditionalApply", "RollUpApply", "Anti", "Optional", "CartesianProduct",
        "NodeHashJoin", "NodeLeftOuterHashJoin", "NodeRightOuterHashJoin", "ValueHashJoin", "Union", "OrderedUnion",
        "Unwind", "PartitionedUnwind", "ShortestPath", "ProjectEndpoints", "NullifyMetadata", "TriadicSelection",
        "TriadicBuild", "TriadicFilter", "AssertSameNode", "AssertSameRelationship", "EmptyResult",
        "AllNodesScan", "NodeByLabelScan", "NodeByIdSeek", "NodeByElementIdSeek", "ProcedureCall",
    }
)  # fmt: skip
#: Operator families (a prefix and anything after it): index seeks and scans, relationship scans, expansions.
NEO4J_READ_FAMILIES = (
    "NodeIndex", "NodeUniqueIndex", "MultiNodeIndexSeek", "AssertingMultiNodeIndexSeek",
    "AssertingMultiRelationshipIndexSeek", "IntersectionNodeByLabelsScan", "SubtractionNodeByLabelsScan",
    "UnionNodeByLabelsScan", "DirectedRelationship", "UndirectedRelationship", "DirectedAllRelationshipsScan",
    "UndirectedAllRelationshipsScan", "DirectedUnionRelationshipTypesScan", "UndirectedUnionRelationshipTypesScan",
    "Expand(", "OptionalExpand(", "VarLengthExpand(", "StatefulShortestPath(", "Repeat(",
)  # fmt: skip
#: Procedures that read this graph's own data or schema and nothing else (Neo4j names).
NEO4J_READ_PROCEDURES = frozenset(
    {
        "db.labels", "db.relationshipTypes", "db.propertyKeys", "db.schema.visualization",
        "db.schema.nodeTypeProperties", "db.schema.relTypeProperties", "db.index.vector.queryNodes",
        "db.index.vector.queryRelationships", "db.index.fulltext.queryNodes", "db.index.fulltext.queryRelationships",
    }
)  # fmt: skip

#: FalkorDB operators (GRAPH.EXPLAIN's names, before any ` | ` detail) that only read the graph.
FALKORDB_READ_OPERATORS = frozenset(
    {
        "Results", "Project", "Aggregate", "Filter", "Limit", "Skip", "Sort", "Distinct", "Unwind", "Apply",
        "Argument", "Argument List", "EmptyRow", "Optional", "Semi Apply", "Anti Semi Apply", "OR Apply Multiplexer",
        "AND Apply Multiplexer", "Cartesian Product", "Value Hash Join", "Join", "Union", "Call Subquery",
        "All Node Scan", "Node By Label Scan", "Node By Label and ID Scan", "Node By Index Scan", "Node By Id Seek",
        "Edge By Index Scan", "Conditional Traverse", "Optional Conditional Traverse",
        "Conditional Variable Length Traverse", "Expand Into", "ProcedureCall",
    }
)  # fmt: skip
#: FalkorDB's read procedures that were looked at: each reads this graph only. GRAPH.EXPLAIN does not name the
#: procedure a call runs, so the store admits calls only while every read procedure its server offers is here.
FALKORDB_READ_PROCEDURES = frozenset(
    {
        "algo.AStar", "algo.betweenness", "algo.BFS", "algo.HarmonicCentrality", "algo.labelPropagation",
        "algo.maxFlow", "algo.MSF", "algo.pageRank", "algo.SPpaths", "algo.SSpaths", "algo.WCC", "db.constraints",
        "db.idx.cch.query", "db.idx.fulltext.queryNodes", "db.idx.fulltext.queryRelationships",
        "db.idx.vector.queryNodes", "db.idx.vector.queryRelationships", "db.indexes", "db.labels", "db.meta.stats",
        "db.propertyKeys", "db.relationshipTypes", "dbms.functions", "dbms.procedures",
    }
)  # fmt: skip

#: What an operator that is refused does, for the message (by operator name prefix).
_REASONS = (
    ("LoadCSV", "LOAD CSV reads files or URLs"),
    ("Load CSV", "LOAD CSV reads files or URLs"),
    ("Show", "an administration command shows server state"),
    ("Terminate", "an administration command stops other sessions' work"),
    ("AdministrationCommand", "an administration command"),
    ("Transaction", "CALL ... IN TRANSACTIONS commits on its own"),
)
#: Operators that change the graph (by name prefix): refused with the one message every read path gives a write.
_WRITES = ("Create", "Merge", "Delete", "Detach", "Set", "Update", "Remove", "Foreach")
WRITE_REFUSED = "This query writes to the graph; only read queries are allowed here."
_PROCEDURE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\(")
_CALLED = re.compile(r"([A-Za-z_][\w.]*)\s*\(")


@dataclass(frozen=True)
class PlanStep:
    """One operator of a plan: its name, the procedure it calls (when the plan says), and its details."""

    operator: str
    procedure: str | None = None
    details: str = ""


def admit(steps: Iterable[PlanStep], *, operators: frozenset[str], families: tuple[str, ...] = ()) -> None:
    """Raise ReadOnlyViolation naming the first step that is not a plain read of this graph."""
    for step in steps:
        if step.operator in operators or step.operator.startswith(families):
            continue
        if step.operator.startswith(_WRITES):
            raise ReadOnlyViolation(f"{WRITE_REFUSED} (The plan has {step.operator}.)")
        reason = next((why for prefix, why in _REASONS if step.operator.startswith(prefix)), None)
        raise ReadOnlyViolation(
            f"Refused: the plan has {step.operator}"
            + (f" ({reason})" if reason else ", which is not on the read allowlist")
            + ". Read paths only read this graph's data."
        )


def admit_procedures(steps: Iterable[PlanStep], allowed: frozenset[str]) -> None:
    """Raise ReadOnlyViolation for a procedure call the plan names that is not on `allowed`."""
    for step in steps:
        if step.procedure is not None and step.procedure not in allowed:
            raise ReadOnlyViolation(
                f"Refused: procedure {step.procedure} is not on the read allowlist "
                f"(allowed: {', '.join(sorted(allowed))})."
            )


def admit_functions(steps: Iterable[PlanStep], user_functions: frozenset[str]) -> None:
    """Raise ReadOnlyViolation when a step's expressions call a user-defined (plugin) function.

    Built-in functions compute values; plugin functions can do anything (APOC's `apoc.load.*` fetch URLs), so
    none is admitted. The names come from the database's catalogue (`SHOW FUNCTIONS`), matched case-insensitively
    in the plan's rendering of each expression.
    """
    if not user_functions:
        return
    lowered = {name.lower() for name in user_functions}
    for step in steps:
        for name in _CALLED.findall(step.details):
            if name.lower() in lowered:
                raise ReadOnlyViolation(f"Refused: function {name} is a plugin function, not on the read allowlist.")


def neo4j_steps(plan: Mapping[str, Any] | None) -> list[PlanStep]:
    """Every operator of a Neo4j plan (`summary.plan`), depth first; a ProcedureCall names its procedure."""
    if not plan:
        return []
    operator = str(plan.get("operatorType", "")).split("@", 1)[0]
    details = str((plan.get("args") or {}).get("Details") or "")
    called = _PROCEDURE.match(details) if operator == "ProcedureCall" else None
    procedure = called.group(1) if called else ("?" if operator == "ProcedureCall" else None)
    steps = [PlanStep(operator, procedure, details)]
    for child in plan.get("children") or ():
        steps.extend(neo4j_steps(child))
    return steps


def falkordb_steps(plan: Iterable[str]) -> list[PlanStep]:
    """GRAPH.EXPLAIN's lines (`    Node By Label Scan | (n:A)`) as steps; the procedure of a call is not named."""
    steps = []
    for line in plan:
        name, _, details = str(line).strip().partition(" | ")
        if name:
            steps.append(PlanStep(name.strip(), None, details))
    return steps
