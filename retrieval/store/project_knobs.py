"""A project's own default knobs, saved on its `__Project__` node: what the Tuning page's "save as default" writes.

Why on the project node: the defaults belong to the data they were measured on, and every reader of the graph
(the app for every analyst, the CLI) starts from them. Only knobs `RetrievalKnobs` declares are kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from retrieval.config import Settings
from retrieval.errors import ConfigError
from retrieval.models import RetrievalKnobs
from retrieval.store.base import GraphStore
from retrieval.store.records import ident

PROPERTY = "tuned_knobs"


def load(store: GraphStore, settings: Settings, project: str) -> dict[str, Any]:
    rows = store.read(
        f"MATCH (p:{ident(settings.project_label)} {{id: $project}}) RETURN p.{PROPERTY} AS knobs", {"project": project}
    )
    raw = rows[0]["knobs"] if rows else None
    if not raw:
        return {}
    values = json.loads(raw)
    return {k: v for k, v in values.items() if k in RetrievalKnobs.model_fields}


def save(store: GraphStore, settings: Settings, project: str, knobs: Mapping[str, Any]) -> None:
    """Validate the knobs (RetrievalKnobs' ranges) and store them; a project without a node is refused."""
    current = load(store, settings, project)
    merged = RetrievalKnobs.model_validate({**current, **knobs}).model_dump()
    kept = {k: merged[k] for k in {*current, *knobs}}
    rows = store.query(
        f"MATCH (p:{ident(settings.project_label)} {{id: $project}}) SET p.{PROPERTY} = $knobs RETURN count(p) AS n",
        {"project": project, "knobs": json.dumps(kept)},
    )
    if not rows or not int(rows[0]["n"]):
        raise ConfigError(f"Project {project!r} has no project node in this graph: defaults cannot be saved there.")
