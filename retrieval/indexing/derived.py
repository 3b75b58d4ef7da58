"""The derived graph of an indexing run: entities, RELATED and communities reconciled with what the chunks say.

Everything here is recomputed from the stored mentions and written as a difference (pipeline.py's module
docstring says why), so a killed run, an edit or a removal converges on the same graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrieval.indexing import (
    communities,
    community_hubs,
    community_passing,
    community_subjects,
    entities,
    references,
    relations,
    reports,
    resolution,
    title_kinds,
    titles,
)
from retrieval.indexing.communities import Community
from retrieval.indexing.run_state import RunState


@dataclass(frozen=True)
class _Communities:
    """The communities a run computed, before any is written: the tree, what was stored, the new ones' reports."""

    tree: list[Community]
    existing: set[str]  # the stored community ids
    links: set[tuple[str, str]]  # the stored IN_COMMUNITY links (member, community)
    made: list[tuple[Community, reports.Report]]
    embedded: list[str]  # the text each made community's vector is of (`reports.embedding_text`)


class DerivedStages(RunState):
    """The stages after the documents are written: resolve, describe, relate, communities, vector indexes."""

    def reconcile(self, resumed: bool) -> None:
        """Bring entities, RELATED and communities in line with the chunks; write only differences.

        `resumed`: the last run stopped before its communities were done, so the stored communities may not
        be those of the stored RELATED edges, and are recomputed from scratch instead of kept where unchanged.

        Order: the graph is written as ever (entities, then RELATED, then communities, then the entities' and
        communities' vectors), but the communities are computed before the first of those writes, so that the
        entity vectors are embedded on a worker (started as soon as `resolve` knows the entities, beside the rest
        of it) while the communities, their titles and summaries are computed,
        and both kinds of vectors while the entities, RELATED and the communities are written (`embedding`):
        those writes are the graph server's, which after the vectors ran with a core idle (docs/benchmarks.md, "Many
        small documents"). What the communities are computed from is read before the writes, and is what it
        would be after them: the writes before the communities' touch no chunk, community or link of a wanted
        entity, and the one read they change, RELATED, loses exactly the edges of the entities deleted (DETACH
        DELETE), which are left out of it here."""
        g = self.graph
        with self.stage("references"):
            written, dropped = g.sync_refers(references.resolve(g.referrers(), g.definitions()))
            self.count("references", written)
            self.count("references_deleted", dropped)
            self.count("links_deleted", g.delete_unlinked_urls())
        with ExitStack() as worker:
            with self.stage("resolve"):
                found = g.mentions()
                merged = resolution.resolve(resolution.keys_of(found))
                wanted = entities.resolve(found, merged)
                stored = g.entities()
                stale = sorted(set(stored) - set(wanted))
                todo = entities.changed(wanted, stored)
                # The entity texts are final here: their worker starts beside the rest of resolve (the chunks'
                # claims read and weighed into edges, the stored RELATED read and diffed), not after it.
                entity_vectors = worker.enter_context(
                    self.embedding([e.embedding_text() for e in todo], "entity embeddings")
                )
                mentions = [{**row, "entity": merged.of(row["key"])} for row in found]
                claims = g.chunk_relations()
                edges = relations.aggregate(claims, wanted, merged.canonical)
                derived = relations.entity_fields(edges, mentions, g.chunk_dates())
                moved = [
                    {"chunk": row["chunk"], "key": row["key"], "old": row["entity"], "new": merged.of(row["key"])}
                    for row in found
                    if merged.of(row["key"]) != row["entity"]
                ]
                gone = set(stale)
                stored_edges = {pair: row for pair, row in g.related().items() if gone.isdisjoint(pair)}
                write, drop = relations.diff(edges, stored_edges)
            # Only what Leiden sees moves a community: an edge added, dropped or reweighted (an edited document
            # re-dates every edge it supports, which leaves the partition alone).
            touched = [
                pair for pair, row in edges.items() if stored_edges.get(pair, {}).get("weight") != row["weight"]
            ] + drop
            changed = None if resumed else frozenset(e for pair in touched for e in pair)
            plan = self.communities(wanted, edges, mentions, changed, claims=claims, canonical=merged.canonical)
            with self.embedding(plan.embedded, "community embeddings") as community_vectors:
                self.describe(todo, derived, moved, stale)
                with self.stage("relate"):
                    g.write_related(write)
                    g.delete_related(drop)
                    degrees = g.sync_degrees()
                    dated = g.sync_timestamps()
                self.count("relationships", len(write))
                self.count("relationships_deleted", len(drop))
                self.count("degrees", degrees)
                self.count("timestamps", dated)
                self.write_communities(plan, mentions)
                self.write_vectors(todo, entity_vectors(), plan, community_vectors())

    def describe(
        self,
        todo: list[entities.Entity],
        derived: dict[str, dict[str, Any]],
        moved: list[dict[str, Any]],
        stale: list[str],
    ) -> None:
        """Write the changed entities without their vectors (`write_vectors` adds them; a rewritten entity's old
        one is dropped, so a killed run re-embeds it), move merged keys' mentions (`moved`: {chunk, key, old,
        new}), delete the stale entities."""
        g = self.graph
        with self.stage("describe", len(todo)):
            unrelated = {"degree": 0, "updated_at": None, "ingested_at": None}
            g.write_entities([{**e.row(), **derived.get(e.id, unrelated)} for e in todo], derived=True, vectors=False)
            # Merged keys' mentions move to their entity before the entities nobody resolves to are deleted.
            g.repoint_mentions(moved)
            g.delete_nodes(g.settings.entity_label, stale)
        self.count("mentions_moved", len(moved))
        self.count("entities", len(todo))
        self.count("entities_deleted", len(stale))

    def write_vectors(
        self, todo: list[entities.Entity], entity_vectors: np.ndarray, plan: _Communities, community_vectors: np.ndarray
    ) -> None:
        """The vectors of the entities `describe` wrote and of the communities `write_communities` wrote, as the
        embedder's float32 rows: the graph stores float32 values either way, and a row written as it is encodes in
        half the time of the same values as a Python float list (store/falkordb_params.py)."""
        g = self.graph
        with self.stage("vectors", len(todo) + len(plan.made)):
            g.write_vectors(
                g.settings.entity_label,
                [{"id": e.id, "type": e.type, "embedding": v} for e, v in zip(todo, entity_vectors, strict=True)],
            )
            g.write_vectors(
                g.settings.community_label,
                [
                    {"id": c.id, "level": c.level, "embedding": v}
                    for (c, _r), v in zip(plan.made, community_vectors, strict=True)
                ],
            )

    def rebuild_vector_indexes(self) -> None:
        """After a bulk write, the vector indexes it filled are rebuilt in one pass (`GraphStore.
        rebuild_vector_indexes`: on Neo4j, a search of the index as written cost ten times one of the rebuilt)."""
        if not self.store.vectors.in_graph:
            return  # the vectors live in Qdrant, and the graph's vector indexes hold none
        s, written = self.settings, self.report.written
        wrote = {s.chunk_label: "chunks", s.entity_label: "entities", s.community_label: "communities"}
        with self.stage("vector indexes"):
            rebuilt = self.store.rebuild_vector_indexes({label: written.get(key, 0) for label, key in wrote.items()})
        self.count("vector_indexes_rebuilt", len(rebuilt))

    def communities(
        self,
        wanted: dict[str, entities.Entity],
        edges: dict[tuple[str, str], dict[str, Any]],
        mentions: list[dict[str, Any]],
        changed: frozenset[str] | None,
        *,
        claims: list[dict[str, Any]],
        canonical: Mapping[str, str],
    ) -> _Communities:
        """Communities, keeping the stored ones none of whose entities' relationships `changed` (None: all
        recomputed); only new communities are summarised (and later embedded). Reads the graph, writes nothing.

        `claims`, `canonical`: the chunks' claims and each key's entity, from which the edges Leiden sees are
        weighed without a document's claims about a name it mentions in passing (community_passing.py). Why
        `changed` still comes from the stored edges: which documents mention a name in passing changes only when
        one of them is added, edited or removed, and that changes the name's own relationships too."""
        g, s = self.graph, self.settings
        with self.stage("communities"):
            texts = g.chunk_texts()
            asides = community_passing.Passing.of(mentions, texts)
            weighed = community_passing.partition_edges(edges, claims, wanted, canonical, asides)
            existing = g.community_ids()
            links = g.community_links()
            previous = communities.Previous(
                community_of={m: k for m, k in links if m in wanted},
                parent_of={m: k for m, k in links if m in existing},
                changed=changed or frozenset(),
            )
            hubs = community_hubs.find(mentions)
            # Each titled document's kind, parsed once (spaCy) for the grouping and the titles both.
            kinds = title_kinds.document_kinds(titles.titled_documents(texts))
            subjects = community_subjects.Subjects.of(mentions, texts, asides, kinds=kinds)
            tree = communities.hierarchy(
                self.report.project,
                sorted(wanted),
                communities.damped(
                    weighed,
                    hubs.documents,
                    {key for key, entity in wanted.items() if entity.type == "PERSON"},
                ),
                max_size=s.max_community_size,
                max_levels=s.community_levels,
                previous=None if changed is None else previous,
                hubs=hubs,
                subjects=subjects,
            )
            # A community written by a run killed before its vector was stored is written again.
            done = existing & g.vectors.ids(s.community_label, self.report.project)
            new = [c for c in tree if c.id not in done]
        made: list[tuple[communities.Community, reports.Report]] = []
        embedded: list[str] = []
        with self.stage("summaries", len(new)):
            named = (
                titles.community_titles(
                    tree,
                    wanted,
                    mentions,
                    texts,
                    self.embed_passages,
                    asides=subjects.not_about(asides, hubs.documents),
                    kinds=kinds,
                )
                if new and self.chat is None
                else {}
            )
            relations = reports.index_relations(edges)
            for i, community in enumerate(new):
                view = reports.CommunityView.of(community, wanted, relations)
                if self.chat is None:
                    report = reports.extractive_report(view, named.get(community.id))
                    embedded.append(reports.embedding_text(report, texts if community.level == 0 else None))
                else:
                    report, notes = reports.llm_report(view, self.chat, self.report.usage)
                    embedded.append(reports.embedding_text(report))
                    self.report.notes.extend(f"community {community.id}: {note}" for note in notes)
                made.append((community, report))
                self.tick("summaries", i + 1, len(new))
        return _Communities(tree, existing, links, made, embedded)

    def write_communities(self, plan: _Communities, mentions: list[dict[str, Any]]) -> None:
        """Delete the stored communities the plan does not keep, write its new ones without their vectors (a
        community without one is written again by the next run: `communities`), link."""
        g = self.graph
        stale = sorted(plan.existing - {c.id for c in plan.tree})
        with self.stage("community links"):
            g.delete_nodes(g.settings.community_label, stale)
            g.write_communities(
                [
                    {
                        "id": c.id,
                        "level": c.level,
                        "title": r.title,
                        "summary": r.summary,
                        "full_content": r.full_content,
                        "rank": r.rank,
                        "size": len(c.members),
                        "source_chunks": list(r.source_chunks),
                    }
                    for c, r in plan.made
                ],
                vectors=False,
            )
            self._link(plan.tree, mentions, plan.links)
        self.count("communities", len(plan.made))
        self.count("communities_deleted", len(stale))

    def _link(self, tree: list[Community], mentions: list[dict[str, Any]], have: set[tuple[str, str]]) -> None:
        """Entities and chunks -> level-0 communities, child -> parent; only links not already there.

        `mentions` are the ones the entities were resolved from (read once: the project's largest read), `have`
        the links read before stale communities were deleted (a deleted community is linked to by nothing new)."""
        g = self.graph
        level0 = {e: c.id for c in tree if c.level == 0 for e in c.members}
        entity_links = sorted((e, k) for e, k in level0.items())
        chunk_links = sorted({(row["chunk"], level0[row["entity"]]) for row in mentions if row["entity"] in level0})
        parent_links = sorted((c.id, c.parent) for c in tree if c.parent)
        for label, links in (
            (g.lab.entity, entity_links),
            (g.lab.chunk, chunk_links),
            (g.lab.community, parent_links),
        ):
            g.link_communities(label, [{"member": m, "community": k} for m, k in links if (m, k) not in have])
