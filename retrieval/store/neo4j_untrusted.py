"""Neo4j statements from people and models (the explorer, the agent, MCP): streamed, cut at their row limit, and
ended by DriftLens past their deadline.

Why a tag: a statement whose deadline passed runs on in the server until its transaction is terminated, and the
caller that gave up holds no handle on it; the transaction's metadata carries a tag that finds it in SHOW
TRANSACTIONS. Why stream and roll back: Neo4j refuses `CALL { ... RETURN n.name }` (unaliased items), so wrapping a
person's statement in a limiting subquery would turn valid Cypher into a syntax error; reading the first rows and
rolling back stops the server producing the rest.
"""

from __future__ import annotations

import contextlib

import neo4j
from neo4j.exceptions import DriverError, Neo4jError

#: Transaction metadata key naming a statement from a person or a model, so its deadline can find and end it.
TAG = "driftlens_untrusted"


def first_rows(
    driver: neo4j.Driver, database: str, cypher: str, limit: int, *, timeout_ms: int, tag: str
) -> list[neo4j.Record]:
    """The first `limit` records of `cypher` in a tagged READ transaction, which then ends (nothing to commit)."""
    with (
        driver.session(database=database, default_access_mode=neo4j.READ_ACCESS, fetch_size=max(1, int(limit))) as s,
        s.begin_transaction(timeout=timeout_ms / 1000, metadata={TAG: tag}) as tx,
    ):
        result = tx.run(cypher)  # type: ignore[arg-type]
        records = [record for _, record in zip(range(int(limit)), result, strict=False)]
        tx.rollback()  # stops the query and discards what it did not send
    return records


def terminate(driver: neo4j.Driver, database: str, tag: str) -> None:
    """End the transactions of one tagged statement (a session may always end its own user's transactions); a
    server that cannot be reached or refuses leaves nothing more to do."""
    with contextlib.suppress(Neo4jError, DriverError, OSError):
        found = driver.execute_query(
            f"SHOW TRANSACTIONS YIELD transactionId, metaData WHERE metaData.{TAG} = $tag RETURN transactionId",
            {"tag": tag},
            database_=database,
        )
        ids = [str(record["transactionId"]) for record in found.records]
        if ids:
            driver.execute_query("TERMINATE TRANSACTIONS $ids", {"ids": ids}, database_=database)
