"""The Neo4j GenAI workshop's graph as its SimpleKGPipeline exports it (tests/fixtures/neo4j-genai-workshop-kg) and
the example settings that read it as it is (examples/neo4j-workshop-kg.env): what the bring-your-own-graph and
index-discovery tests load."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORKSHOP = REPO / "tests" / "fixtures" / "neo4j-genai-workshop-kg"
WORKSHOP_ENV = REPO / "examples" / "neo4j-workshop-kg.env"


def exports() -> list[Path]:
    """The workshop's export files, in a stable order (`neo4j_kg_native.load_native` reads them)."""
    return sorted(WORKSHOP.glob("*.json"))
