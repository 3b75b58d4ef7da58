"""The settings `tools/neo4j` starts Neo4j with, read back from the session's server (issue #26).

A 100k-chunk graph on Neo4j was slow for two of the harness's settings, not the database's: an 8 MiB page cache, and
vector indexes filled in many Lucene segments that every query searches in turn (docs/benchmarks.md, "100k chunks
on Neo4j"). Asked through the driver and the server's folder: the store's read paths refuse SHOW.
"""

from __future__ import annotations

from collections.abc import Iterator

import neo4j
import numpy as np
import pytest

from tests.backends import SESSION
from tools.neo4j.server import PAGECACHE, Neo4jServer

pytestmark = [pytest.mark.neo4j_only, pytest.mark.usefixtures("backend")]

LABEL = "SegmentProbe"
INDEX = "segment_probe"
#: Vectors enough for several segments with Neo4j's own 1 MB population buffer (~3,300 of 384 dimensions each).
VECTORS = 8000
DIM = 384


@pytest.fixture
def driver() -> Iterator[neo4j.Driver]:
    server = SESSION.server
    if server is None:
        pytest.skip("an external Neo4j (NEO4J_URI) is not started by the tests")
    with neo4j.GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as opened:
        yield opened


def test_the_page_cache_is_the_production_servers(driver: neo4j.Driver) -> None:
    """As docker-compose.yml gives it, not the harness's 8 MiB."""
    found = driver.execute_query(
        "SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' RETURN value"
    )
    assert [r["value"] for r in found.records] == ["1.00GiB"], f"tools.neo4j.server.PAGECACHE is {PAGECACHE}"


def _segments(server: Neo4jServer, index_id: int) -> int:
    folders = list(server.workdir.glob(f"db/*/data/databases/*/schema/index/vector-2.0/{index_id}"))
    assert len(folders) == 1, folders
    return len(list(folders[0].rglob("*.si")))


def test_a_vector_index_filled_from_the_store_is_one_segment(driver: neo4j.Driver) -> None:
    """8,000 vectors written, then the index created over them (as the pipeline's rebuild does): one segment, where
    Neo4j's own buffer leaves one per ~3,300 vectors."""
    assert SESSION.server is not None
    vectors = np.random.default_rng(5).normal(size=(VECTORS, DIM)).astype(np.float32)
    try:
        driver.execute_query(
            f"UNWIND $rows AS row CREATE (n:{LABEL} {{id: row.id, v: row.v}})",
            {"rows": [{"id": i, "v": v.tolist()} for i, v in enumerate(vectors)]},
        )
        driver.execute_query(
            f"CREATE VECTOR INDEX {INDEX} FOR (n:{LABEL}) ON n.v OPTIONS {{indexConfig: "
            f"{{`vector.dimensions`: {DIM}, `vector.similarity_function`: 'cosine'}}}}"
        )
        driver.execute_query("CALL db.awaitIndexes(300)")
        index_id = driver.execute_query("SHOW INDEXES YIELD id, name WHERE name = $n RETURN id", {"n": INDEX})
        assert _segments(SESSION.server, int(index_id.records[0]["id"])) == 1
    finally:
        driver.execute_query(f"DROP INDEX {INDEX} IF EXISTS")
        driver.execute_query(f"MATCH (n:{LABEL}) DETACH DELETE n")
