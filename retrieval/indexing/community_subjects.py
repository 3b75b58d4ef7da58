"""An encyclopaedia's communities: a passage's names with its subject at level 0, subjects of one kind together above.

Why: in an encyclopaedia every passage is its own article, its subject in its first line ("Casino (1995 film)") and
its kind in its first sentence ("Casino is a 1995 American crime film", title_kinds.py). Leiden still joins
passages of unrelated subjects at level 0 through a name several of them write more than once ("United States",
"Japan", "Mexico": no aside, community_passing.py, and no hub when some of their passages share other names), and
their community's title is a list of unrelated things ("Alta California, Alta Californians & Indigenous peoples":
eight passages of eight articles); a level-0 community is drawn three times in a draw of (level, title) pairs,
since the levels above carry it up unchanged. And the levels above, once the asides and hubs are left out of them,
joined almost nothing on MuSiQue (level 1: 22 joins of 1,334; level 2: 1), so an analyst's broader themes were
single passages, and global search's themes the largest of those mixes.
What is done, in a collection that is an encyclopaedia (ENCYCLOPAEDIA of its titled articles say their kind):
- level 0: a part Leiden makes of names whose subjects differ is split by subject (`split`): a name belongs to the
  article whose passages mention it most (its home; a name no article's passages mention but in passing keeps the
  one community_passing.py gives it), and a subject left with one name joins the group it weighs most with;
- above: the communities below whose names are mostly of one kind of subject ("films", "rivers", "politicians")
  are grouped by that kind (`group`), under the level's size cap, names they share keeping groups together
  ("Films: Las Vegas ..."); a community of no kind is carried up as it is. Its title is then led by the kind
  (titles.py, `_kind_of`).
A collection whose titled documents seldom say a kind (a repository's Markdown files, "# README") and one without
titles (transcripts, novels) are left to Leiden as before.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import igraph as ig

from retrieval.indexing.community_passing import Passing
from retrieval.indexing.title_kinds import document_kinds, plural
from retrieval.indexing.titles import document_of, titled_documents

#: A collection is an encyclopaedia when at least this share of its titles' first sentences say what kind of thing
#: their subject is (MuSiQue: 984 of 1,748; a transcript or a Markdown file says none).
ENCYCLOPAEDIA = 0.3


@dataclass(frozen=True)
class Subjects:
    """Entity -> the title of the article it belongs to (its home); title -> its kind, a head noun in the plural
    ("films" of "crime film"); document -> its title. Empty when the collection is no encyclopaedia."""

    home: Mapping[str, str] = field(default_factory=dict)
    kind: Mapping[str, str] = field(default_factory=dict)
    title_of: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        mentions: Iterable[Mapping[str, Any]],
        texts: Mapping[str, str],
        passing: Passing,
        *,
        kinds: Mapping[str, str] | None = None,
    ) -> Subjects:
        """From a graph's chunk -> entity rows (`chunk`, `entity`, `count`), its chunks' texts and the names its
        articles mention in passing (whose mentions there say nothing of where a name belongs); `kinds` the texts'
        `title_kinds.document_kinds`, when the caller has parsed them already (the titles read them too)."""
        titled = titled_documents(texts)
        if kinds is None:
            kinds = document_kinds(titled) if titled else {}
        if not kinds or len(kinds) < ENCYCLOPAEDIA * len({title for title, _rest in titled.values()}):
            return cls()
        count: dict[str, Counter[str]] = defaultdict(Counter)
        for row in mentions:
            entity, document = str(row["entity"]), document_of(str(row["chunk"]))
            if document in titled and not passing.drops(entity, document):
                count[entity][titled[document][0]] += int(row.get("count") or 1)
        home = {entity: min(found, key=lambda t: (-found[t], t)) for entity, found in count.items()}
        kind = {title: plural(found.split()[-1]) for title, found in kinds.items()}
        return cls(home, kind, {document: title for document, (title, _rest) in titled.items()})

    def kind_of(self, members: Iterable[str]) -> str:
        """The kind of more than half of `members` (by their homes); "" when there is none."""
        homes = [self.home.get(m, "") for m in members]
        found = Counter(self.kind[h] for h in homes if h in self.kind)
        kind, n = min(found.items(), key=lambda item: (-item[1], item[0]), default=("", 0))
        return kind if 2 * n > len(homes) else ""

    def regroup(
        self,
        graph: ig.Graph,
        parts: list[list[int]],
        entity_of: Callable[[int], str],
        capped: Callable[[list[int]], list[list[int]]],
    ) -> list[list[int]]:
        """Level-0 `parts` (nodes of `graph`) as their names' subjects (`regroup`)."""
        return regroup(graph, parts, [self.home.get(entity_of(node), "") for node in range(graph.vcount())], capped)

    def group(
        self, below: Sequence[Sequence[str]], links: Iterable[tuple[int, int]], sizes: Sequence[int], cap: int
    ) -> list[list[int]]:
        """The next level's groups of the communities `below` (their members) by their kind (`group`)."""
        return group([self.kind_of(members) for members in below], links, sizes, cap)

    def not_about(self, passing: Passing, documents_of: Mapping[str, Iterable[str]]) -> Mapping[str, frozenset[str]]:
        """Entity -> the documents whose passages its community's title does not read: those that mention it in
        passing, and in an encyclopaedia every one not of its home (`documents_of`: each entity's documents), as
        its community is its subject's ("United States", written twice in 42 articles, has one home, and the
        community it is in is not titled by the 42)."""
        if not self.home:
            return passing.documents
        found = dict(passing.documents)
        for entity, documents in documents_of.items():
            if entity in self.home:
                away = {d for d in documents if self.title_of.get(d) != self.home[entity]}
                found[entity] = frozenset(away | found.get(entity, frozenset()))
        return found


def regroup(
    graph: ig.Graph, parts: list[list[int]], homes: Sequence[str], capped: Callable[[list[int]], list[list[int]]]
) -> list[list[int]]:
    """`parts` (level 0, nodes of `graph`; `homes[node]` the home of its name, "" for none) as the names of each
    subject together, wherever Leiden put them, a subject of more names than a part may hold split by `capped`;
    names of no home stay in their parts. A subject of one name joins the group it weighs most with (stays alone
    when it weighs with none)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, part in enumerate(parts):
        for node in part:
            groups[homes[node] or f"\0{i}"].append(node)
    out = [split for _key, nodes in sorted(groups.items()) for split in capped(sorted(nodes))]
    owner = {node: i for i, nodes in enumerate(out) for node in nodes if len(nodes) > 1}
    for nodes in out:
        if len(nodes) == 1:
            weights: dict[int, float] = defaultdict(float)
            for edge in graph.es[graph.incident(nodes[0])]:
                other = edge.target if edge.source == nodes[0] else edge.source
                if other in owner:
                    weights[owner[other]] += float(edge["weight"])
            if weights:
                out[max(sorted(weights), key=lambda k: weights[k])].append(nodes.pop())
    return [sorted(nodes) for nodes in out if nodes]


def group(kinds: Sequence[str], links: Iterable[tuple[int, int]], sizes: Sequence[int], cap: int) -> list[list[int]]:
    """The communities of a level below (by index; `kinds[i]` the kind of the i-th, "" for none) as the next
    level's groups: those of one kind together, in runs of at most `cap` entities (`sizes`), communities that
    `links` (pairs that share a relationship) connect next to each other so that a run keeps them together; a
    community of no kind alone."""
    same = [(a, b) for a, b in links if kinds[a] and kinds[a] == kinds[b]]
    components = ig.Graph(n=len(kinds), edges=same).connected_components()
    by_kind: dict[str, list[list[int]]] = defaultdict(list)
    out: list[list[int]] = []
    for members in components:
        if kinds[members[0]]:
            by_kind[kinds[members[0]]].append(members)
        else:
            out.extend([i] for i in members)
    for kind in sorted(by_kind):
        runs: list[list[int]] = [[]]
        weight = 0
        for members in sorted(by_kind[kind], key=lambda m: (-sum(sizes[i] for i in m), m[0])):
            w = sum(sizes[i] for i in members)
            if runs[-1] and weight + w > cap:
                runs.append([])
                weight = 0
            runs[-1].extend(members)
            weight += w
        out.extend(sorted(run) for run in runs)
    return sorted(out)
