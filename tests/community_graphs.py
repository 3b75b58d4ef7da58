"""What the community-rule tests share (test_community_passing.py, test_community_subjects.py): a graph per test with
the default community size, so that each short article's names fit one community, and each community's members
seen from every level."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.store import GraphStore, open_store
from tests.backends import Occupant
from tests.conftest import make_settings


@pytest.fixture
def graph(tmp_path: Path, backend: str) -> Iterator[tuple[Settings, GraphStore]]:
    """tests/indexing_runs.py's graph with the default community size: each article's names fit one community."""
    settings = make_settings(tmp_path / "db", backend, chunk_tokens=48)
    (tmp_path / "db").mkdir()
    with open_store(settings) as store:
        Occupant.own(store)
        yield settings, store
        Occupant.release(store)


def members(store: GraphStore) -> list[tuple[int, set[str]]]:
    """(level, the entity titles beneath) of every community."""
    rows = store.query(
        "MATCH (e:__Entity__ {projectId: 'p'})-[:IN_COMMUNITY]->(k:__Community__) RETURN k.id AS k, e.title AS e"
    )
    level0: dict[str, set[str]] = {}
    for row in rows:
        level0.setdefault(str(row["k"]), set()).add(str(row["e"]))
    parent_of = {
        str(r["k"]): str(r["parent"] or "")
        for r in store.query(
            "MATCH (k:__Community__ {projectId: 'p'}) OPTIONAL MATCH (k)-[:IN_COMMUNITY]->(p:__Community__) "
            "RETURN k.id AS k, p.id AS parent"
        )
    }
    found: dict[tuple[int, str], set[str]] = {}
    for community, members in level0.items():
        level = 0
        while community:
            found.setdefault((level, community), set()).update(members)
            level, community = level + 1, parent_of[community]
    return [(level, members) for (level, _k), members in found.items()]
