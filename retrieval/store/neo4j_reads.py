"""A read sent to Neo4j as one auto-commit statement: one round trip where a managed transaction takes two.

Why: the driver's `execute_query` runs a managed transaction, BEGIN + RUN + PULL pipelined, then a COMMIT that a
read has nothing to send for; under load each round trip also waits for both processes to be scheduled. An
auto-commit statement is RUN + PULL. It keeps what the managed read gave: a READ session (the server refuses a
write), the driver's `execute_query` bookmark manager (a read still follows this process's writes on a cluster)
and the statement's server-side timeout (`neo4j.Query`). What `execute_query` adds is its retries of errors a
retry may cure (a lost connection, a transient error, for `max_transaction_retry_time`); a read that meets one is
sent again through it, which is safe since a read changes nothing. Measured on the default search's folded
statement (issue #26, docs/benchmarks.md, branch wt261; earlier wt120 and wt232).
"""

from __future__ import annotations

from typing import Any

import neo4j
from neo4j import RoutingControl
from neo4j.exceptions import DriverError, Neo4jError


def auto_commit(driver: neo4j.Driver, database: str, query: neo4j.Query, params: dict[str, Any]) -> neo4j.EagerResult:
    """`query` as an auto-commit statement in a READ session; through `execute_query` (retried) when it met an
    error a retry may cure."""
    try:
        with driver.session(
            database=database,
            default_access_mode=neo4j.READ_ACCESS,
            bookmark_manager=driver.execute_query_bookmark_manager,
        ) as session:
            return session.run(query, params).to_eager_result()
    except (Neo4jError, DriverError) as exc:
        if not exc.is_retryable():
            raise
    return driver.execute_query(query, params, routing_=RoutingControl.READ, database_=database)
