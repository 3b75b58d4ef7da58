"""Which indexes of a Neo4j graph DriftLens searches, found by the names the tools that built the graph give them.

Why: neo4j-graphrag and the GenAI workshop (`chunkEmbeddings`, `search_chunks`), LLM Graph Builder (`vector`,
`keyword`, `entity_vector`, `entities`), other GraphRAG pipelines (`entity_embedding_index`, `ft_entities`,
`graphrag_*`) each name their indexes their own way, and asking a person for five settings they would have to look
up in the database first is the wrong way round. Pointed at such a graph with only NEO4J_URI, DriftLens takes the
index of each role and the label and properties it covers (chunk label, vector and text properties, entity label
and name) from the database, and says which it chose (`Discovery.describe`, on Home and in `/health`).

Rules, in order: a setting given explicitly (environment, .env, argument) always wins, for an index name as for a
label or property; an index carrying the name the settings give (DriftLens's own names by default) is DriftLens's
own graph and is read as before; otherwise the first well-known name (`WELL_KNOWN`, then `graphrag_*`) whose index
has the role's kind and sits on one of the role's labels. Nothing found changes nothing, so an empty database is
indexed under DriftLens's own names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from retrieval.config import Settings
from retrieval.store.base import IndexState

Role = Literal["chunk_vector", "chunk_fulltext", "entity_vector", "entity_fulltext"]
ROLES: tuple[Role, ...] = ("chunk_vector", "chunk_fulltext", "entity_vector", "entity_fulltext")
#: The Settings field naming each role's index.
INDEX_SETTING: dict[Role, str] = {
    "chunk_vector": "chunk_vector_index",
    "chunk_fulltext": "chunk_fulltext_index",
    "entity_vector": "entity_vector_index",
    "entity_fulltext": "entity_fulltext_index",
}
#: The Settings field naming the property a role's index covers, when the index decides it.
PROPERTY_SETTING: dict[Role, str] = {
    "chunk_vector": "embedding_property",
    "chunk_fulltext": "text_property",
    "entity_fulltext": "entity_name_property",
}
#: Index names other tools write, per role, the most specific first.
WELL_KNOWN: dict[Role, tuple[str, ...]] = {
    "chunk_vector": ("chunkEmbeddings", "vector"),
    "chunk_fulltext": ("search_chunks", "keyword"),
    "entity_vector": ("entity_embedding_index", "entity_vector"),
    "entity_fulltext": ("ft_entities", "entities"),
}
#: Prefix of index names some GraphRAG pipelines use for every role; the index's label and kind decide the role.
FAMILY_PREFIX = "graphrag_"
#: Labels those tools give chunks and entities (besides the labels the settings name).
CHUNK_LABELS = ("Chunk", "__Chunk__")
ENTITY_LABELS = ("__Entity__", "Entity")
LABEL_SETTINGS = ("chunk_label", "entity_label")
_WORDS: dict[Role, str] = {
    "chunk_vector": "chunk vectors",
    "chunk_fulltext": "chunk keywords",
    "entity_vector": "entity vectors",
    "entity_fulltext": "entity keywords",
}


@dataclass(frozen=True)
class Discovery:
    """The indexes found by name (`found`) and the settings they imply (`changes`: fields set to other values)."""

    found: dict[Role, IndexState] = field(default_factory=dict)
    changes: dict[str, Any] = field(default_factory=dict)

    def adopt(self, settings: Settings) -> Settings:
        return settings.model_copy(update=self.changes) if self.changes else settings

    def describe(self) -> str:
        """One line for Home and `/health`; empty when the settings' own indexes were used."""
        if not self.found:
            return ""
        chosen = "; ".join(f"{_WORDS[role]} {_index_text(state)}" for role, state in self.found.items())
        missing = [_WORDS[role] for role in ROLES if role not in self.found]
        gaps = f"; none for {', '.join(missing)}" if missing else ""
        return f"Indexes found by their names (set an index setting to choose another): {chosen}{gaps}."


def discover(settings: Settings, indexes: Sequence[IndexState]) -> Discovery:
    """The indexes of `indexes` (SHOW INDEXES) DriftLens should search under `settings`, and what that changes."""
    explicit = settings.model_fields_set
    values = settings.model_dump(include={*INDEX_SETTING.values(), *PROPERTY_SETTING.values(), *LABEL_SETTINGS})
    found: dict[Role, IndexState] = {}
    for role in ROLES:
        state = _choose(role, values, explicit, indexes)
        if state is None:
            continue
        found[role] = state
        values |= _implied(role, state, values, explicit)
    if not found:
        return Discovery()
    for role in ROLES:  # another tool's graph: hybrid search leaves out a keyword index it lacks, not fails on it
        if role not in found and role.endswith("fulltext") and INDEX_SETTING[role] not in explicit:
            values[INDEX_SETTING[role]] = None
    changes = {name: value for name, value in values.items() if getattr(settings, name) != value}
    return Discovery(found, changes)


def _choose(role: Role, values: dict[str, Any], explicit: set[str], indexes: Sequence[IndexState]) -> IndexState | None:
    """The role's index under another tool's name, or None (explicit setting, DriftLens's own name, or nothing)."""
    setting = INDEX_SETTING[role]
    named = {state.name: state for state in indexes}
    if setting in explicit or values[setting] in named:
        return None
    kind = "vector" if role.endswith("vector") else "fulltext"
    entity = role.startswith("entity")
    label_setting = "entity_label" if entity else "chunk_label"
    known = ENTITY_LABELS if entity else CHUNK_LABELS
    labels = (values[label_setting],) if label_setting in explicit else (values[label_setting], *known)
    family = sorted(name for name in named if name.startswith(FAMILY_PREFIX))
    for name in (*WELL_KNOWN[role], *family):
        state = named.get(name)
        if state is None or state.kind != kind or state.label not in labels:
            continue
        # Entities share the chunks' vector property: only a chunk index may choose it.
        fixed_property = entity or "embedding_property" in explicit
        if kind == "vector" and fixed_property and values["embedding_property"] not in state.properties:
            continue
        return state
    return None


def _implied(role: Role, state: IndexState, values: dict[str, Any], explicit: set[str]) -> dict[str, Any]:
    """The settings an index found for `role` implies: its name, label and (when not given) properties."""
    entity = role.startswith("entity")
    implied: dict[str, Any] = {INDEX_SETTING[role]: state.name}
    label_setting = "entity_label" if entity else "chunk_label"
    if label_setting not in explicit:
        implied[label_setting] = state.label
    prop = PROPERTY_SETTING.get(role)  # entity vectors: the chunks' property, checked in _choose
    if prop and prop not in explicit and values[prop] not in state.properties and state.properties:
        implied[prop] = "name" if entity and "name" in state.properties else state.properties[0]
    return implied


def _index_text(state: IndexState) -> str:
    where = f"{state.label}.{'/'.join(state.properties)}"
    return f"{state.name} ({where}, {state.dimension}-d)" if state.dimension else f"{state.name} ({where})"
