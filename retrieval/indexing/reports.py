"""Summaries stage: a title, summary, full_content (markdown report) and rank per community.

Offline the report is extractive: the title is the topics the community's passages mention more than the
rest of the graph's (retrieval/indexing/titles.py), its members are the report's entity list, and the summary
is the members' source sentences that mention the most other members (each one kept with the
chunk it came from, in `source_chunks`). With an LLM, a GraphRAG-style report is asked for as
JSON; a reply that cannot be parsed falls back to the extractive report with a note.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from retrieval.errors import LLMError
from retrieval.indexing.communities import Community
from retrieval.indexing.entities import Entity
from retrieval.llm.client import ChatModel
from retrieval.llm.json_schema import NUMBER, STRING, array, obj
from retrieval.models import Usage
from retrieval.store.records import Row

SUMMARY_SENTENCES = 4
REPORT_ENTITIES = 12
REPORT_RELATIONS = 12
TITLE_ENTITIES = 3

REPORT_SCHEMA: dict[str, Any] = obj(
    {
        "title": STRING,
        "summary": STRING,
        "findings": array(obj({"summary": STRING, "explanation": STRING})),
        "rating": NUMBER,
    }
)
_REPORT_PROMPT = (
    "You write a report about one community of a knowledge graph for an analyst. Use only the entities, "
    "relationships and evidence given. Reply with JSON: title (short, names the key entities), summary "
    "(2-4 sentences), findings (3-5 items with summary and explanation), rating (0-10 importance)."
)


@dataclass(frozen=True)
class Report:
    title: str
    summary: str
    full_content: str
    rank: float
    source_chunks: tuple[str, ...]


#: The relationships by the first end of their (source, target) key: entity -> [(other end, row)].
RelationIndex = Mapping[str, Sequence[tuple[str, Row]]]


def index_relations(relations: Mapping[tuple[str, str], Row]) -> RelationIndex:
    """Each relationship under the first end of its key, once. Why: a community's inner relationships are then
    found from its members' own; scanning every relationship for every community cost communities x edges
    (1,578 x 39,192 over MuSiQue's 1,890 passages: 4.4-4.7 CPU seconds of the summaries stage, 0.6-0.8 now)."""
    index: dict[str, list[tuple[str, Row]]] = defaultdict(list)
    for (a, b), row in relations.items():
        index[a].append((b, row))
    return index


@dataclass(frozen=True)
class CommunityView:
    """A community with its members ranked by connectedness and the relationships inside it."""

    community: Community
    ranked: list[Entity]
    relations: list[Row]

    @classmethod
    def of(cls, community: Community, entities: dict[str, Entity], relations: RelationIndex) -> CommunityView:
        inside = set(community.members)
        inner = sorted(
            (row for a in community.members for b, row in relations.get(a, ()) if b in inside),
            key=lambda r: (-r["weight"], r["source"], r["target"]),
        )
        strength: dict[str, float] = {}
        for row in inner:
            for end in (row["source"], row["target"]):
                strength[end] = strength.get(end, 0.0) + row["weight"]
        ranked = sorted(
            (entities[e] for e in community.members),
            key=lambda e: (-strength.get(e.id, 0.0), -e.mentions, e.title),
        )
        return cls(community, ranked, inner)

    def supporting_chunks(self) -> int:
        return len({chunk for entity in self.ranked for _s, chunk in entity.evidence})

    def rank(self) -> float:
        """Importance grows with the evidence behind a community, slowly (log2 of its source chunks)."""
        return round(math.log2(1 + self.supporting_chunks()), 3)

    def entity_lines(self) -> list[str]:
        return [f"- **{e.title}** ({e.type}): {e.description}" for e in self.ranked[:REPORT_ENTITIES]]

    def relation_lines(self, titles: dict[str, str]) -> list[str]:
        return [
            f"- {titles[r['source']]} — {titles[r['target']]} (weight {r['weight']:g}): {r['description']}"
            for r in self.relations[:REPORT_RELATIONS]
        ]


def extractive_report(view: CommunityView, title: str | None = None) -> Report:
    """`title`: the community's key phrases (titles.py); without one, its most connected members."""
    if title is None:
        top = [e.title for e in view.ranked[:TITLE_ENTITIES]]
        title = ", ".join(top[:-1]) + f" & {top[-1]}" if len(top) > 1 else top[0]
    lowered = [e.title.lower() for e in view.ranked]
    pool: dict[str, tuple[str, int, int]] = {}
    for order, entity in enumerate(view.ranked):
        for sentence, chunk in entity.evidence:
            if sentence not in pool:
                covered = sum(1 for t in lowered if t in sentence.lower())
                pool[sentence] = (chunk, covered, order)
    best = sorted(pool.items(), key=lambda item: (-item[1][1], item[1][2], item[0]))[:SUMMARY_SENTENCES]
    summary = " ".join(sentence for sentence, _info in best)
    names = {e.id: e.title for e in view.ranked}
    full = "\n".join(
        [
            f"# {title}",
            "",
            summary,
            "",
            "## Entities",
            *view.entity_lines(),
            "",
            "## Relationships",
            *view.relation_lines(names),
        ]
    )
    sources = tuple(dict.fromkeys(chunk for _s, (chunk, _c, _o) in best))
    return Report(title, summary, full, view.rank(), sources)


def embedding_text(report: Report, passages: Mapping[str, str] | None = None) -> str:
    """The text whose vector ranks a community in DRIFT and global search: its title and summary, or, given the
    run's chunk texts by id (`passages`; `DerivedStages.communities` gives them for an extractive report at level 0
    only), the text of the one chunk every sentence of its summary comes from.

    Why the chunk's: such a community is that passage retold (its title the passage's key phrases, its summary the
    passage's own sentences), and the run already holds the chunk's vector (`RunState.embedding` reuses it), so it
    costs no embedding. Why level 0 only: DRIFT ranks the coarsest level first (`modes/drift.py`), and the chunk's
    vector there at every level cost MuSiQue's offline DRIFT answers 0.005 of word recall; at level 0, which global
    search ranks by default, it leaves DRIFT's answers as they were and saves 31k of MuSiQue's 180k community-text
    tokens (docs/benchmarks.md, "Many small documents", branch wt242). A model's summary is its own words."""
    if passages is not None and len(report.source_chunks) == 1:
        passage = passages.get(report.source_chunks[0])
        if passage:
            return passage
    return f"{report.title}\n{report.summary}"


def llm_report(view: CommunityView, chat: ChatModel, usage: Usage | None) -> tuple[Report, list[str]]:
    """A model-written report, or the extractive one plus the model's note when its JSON was unusable."""
    fallback = extractive_report(view)
    names = {e.id: e.title for e in view.ranked}
    facts = "\n".join(["Entities:", *view.entity_lines(), "", "Relationships:", *view.relation_lines(names)])
    messages = [{"role": "system", "content": _REPORT_PROMPT}, {"role": "user", "content": facts}]
    try:
        result = chat.complete_json(
            messages, schema=REPORT_SCHEMA, schema_name="community_report", phase="index", usage=usage
        )
    except LLMError as exc:
        return fallback, [f"{exc}; used the extractive report"]
    if result.parsed is None:
        return fallback, result.notes
    parsed = result.parsed
    findings = [f"## {f['summary']}\n\n{f['explanation']}" for f in parsed.get("findings", [])]
    full = "\n\n".join([f"# {parsed['title']}", parsed["summary"], *findings])
    rating = float(parsed.get("rating", fallback.rank))
    report = Report(parsed["title"], parsed["summary"], full, round(rating, 3), fallback.source_chunks)
    return report, result.notes
