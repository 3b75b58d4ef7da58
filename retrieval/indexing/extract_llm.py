"""Extract stage with an LLM: GraphRAG-style entities and relationships per chunk, as structured JSON.

Why keep the offline result beside it: a chunk whose reply cannot be parsed (after the model's
own repair and one re-ask) keeps its spaCy extraction, so the graph is never missing a passage;
the run reports a note for each such chunk.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from retrieval.errors import LLMError
from retrieval.indexing.chunking import Chunk
from retrieval.indexing.model import ChunkExtraction, Mention, Relation, slug
from retrieval.llm.client import ChatModel
from retrieval.llm.json_schema import NUMBER, STRING, array, obj
from retrieval.models import Usage

EXTRACTION_SCHEMA: dict[str, Any] = obj(
    {
        "entities": array(obj({"name": STRING, "type": STRING, "description": STRING})),
        "relationships": array(obj({"source": STRING, "target": STRING, "description": STRING, "strength": NUMBER})),
    }
)
_PROMPT = (
    "Extract the entities (people, organisations, places, products, events, concepts) in the text and the "
    "relationships between them. For each entity: name, type (upper case), description (one sentence, from "
    "the text). For each relationship: source and target entity names, description, strength 1-10. "
    "Reply with JSON only."
)


def _parse(reply: dict[str, Any]) -> ChunkExtraction:
    mentions: dict[str, Mention] = {}
    for item in reply.get("entities", []):
        key = slug(str(item.get("name", "")))
        if key and key not in mentions:
            name, kind = " ".join(str(item["name"]).split()), str(item.get("type") or "CONCEPT").upper()
            mentions[key] = Mention(key, name, kind, 1, " ".join(str(item.get("description", "")).split()))
    relations = []
    for item in reply.get("relationships", []):
        source, target = slug(str(item.get("source", ""))), slug(str(item.get("target", "")))
        for key, name in ((source, item.get("source")), (target, item.get("target"))):
            if key and key not in mentions:
                mentions[key] = Mention(key, " ".join(str(name).split()), "CONCEPT", 1, "")
        if source and target and source != target:
            strength = float(item.get("strength") or 1.0)
            description = " ".join(str(item.get("description", "")).split())
            relations.append(Relation(source, target, strength, description, directed=True))
    return ChunkExtraction(mentions=sorted(mentions.values(), key=lambda m: m.key), relations=relations)


def extract_with_llm(
    chunks: list[Chunk], offline: list[ChunkExtraction], chat: ChatModel, usage: Usage | None, workers: int
) -> tuple[list[ChunkExtraction], list[str]]:
    """Per chunk the model's extraction, or the offline one with a note when the reply was unusable."""

    def one(chunk: Chunk) -> tuple[ChunkExtraction | None, list[str]]:
        messages = [{"role": "system", "content": _PROMPT}, {"role": "user", "content": chunk.text}]
        try:
            result = chat.complete_json(
                messages, schema=EXTRACTION_SCHEMA, schema_name="graph_extraction", phase="index", usage=usage
            )
        except LLMError as exc:
            return None, [f"{exc}; used the offline extraction"]
        return (_parse(result.parsed) if result.parsed is not None else None), result.notes

    with ThreadPoolExecutor(max_workers=workers) as pool:
        replies = list(pool.map(one, chunks))
    out: list[ChunkExtraction] = []
    notes: list[str] = []
    for chunk, fallback, (parsed, chunk_notes) in zip(chunks, offline, replies, strict=True):
        out.append(parsed if parsed is not None else fallback)
        notes.extend(f"chunk {chunk.n}: {note}" for note in chunk_notes)
    return out, notes
