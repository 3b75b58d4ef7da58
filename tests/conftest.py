"""Shared fixtures: real embedded FalkorDB graphs in temp folders, settings that touch no .env."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from retrieval.config import Settings, load_settings
from retrieval.store import GraphStore, open_store


def make_settings(tmp: Path, **overrides: object) -> Settings:
    """Settings for an isolated embedded graph: no .env, and LLM/Neo4j unset unless a test sets them."""
    base: dict[str, object] = {
        "graph_path": tmp / "graph.db",
        "data_dir": tmp,
        "neo4j_uri": None,
        "openai_api_key": None,
        "openai_base_url": None,
        "azure_openai_endpoint": None,
        "redis_url": None,
    }
    base.update(overrides)
    return load_settings(_env_file=None, **base)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path)


@pytest.fixture
def store(settings: Settings) -> Iterator[GraphStore]:
    with open_store(settings) as graph:
        yield graph


# Re-exported so every test module can use the scripted OpenAI-compatible server fixture.
from tests.scripted_openai import scripted_openai  # noqa: E402, F401
