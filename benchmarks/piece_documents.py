"""What resolving a name's pieces per document would reach in a built graph, before anyone builds it (issue #25).

Why: wt172 proposed resolving a short key ("Island", "Miller") per document, to the one longer name of its
document that ends (or, for a given name, starts) with it, for the labelled errors read as "a piece merged across
the whole graph". Resolution is a pure function of the stored mentions, so what that rule would move is read
from a graph's mentions without a build. Two reports:
- each labelled-wrong title of the label files that is in the graph: its keys' documents and, per document, the
  longer names the document holds that contain it at their end or start (a title the rule removes has exactly one
  in every document);
- every (short key, document) pair the rule would send elsewhere than the graph-wide resolution does, under
  `_shortened_pairs`'s own limits (one everyday word, no person or topic, a longer name of its type whose other
  words qualify it) and for a lone first name or surname (the document's one full name of a person with it);
- the family the labelled pieces turned out to be: one-document entities of one capitalised everyday word whose
  every mention's sentence writes it after "the" ("ranked 19th highest in the Island"), with their labels.

Usage:
  python benchmarks/piece_documents.py --graph benchmarks/.cache/musique_train/graph.db --project eval \
      --labels benchmarks/data/musique_entity_labels_144.csv ...
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrieval.config import load_settings
from retrieval.indexing import resolution
from retrieval.indexing.entity_filter import everyday
from retrieval.indexing.graph import IndexGraph
from retrieval.indexing.model import CONCEPT
from retrieval.indexing.resolution_keys import Key
from retrieval.store import open_store
from retrieval.store.records import Row


def _by_document(keys: dict[str, Key]) -> dict[str, list[Key]]:
    """The keys each document mentions."""
    by_document: dict[str, list[Key]] = defaultdict(list)
    for key in keys.values():
        for document in key.documents:
            by_document[document].append(key)
    return by_document


def _holding(key: Key, others: list[Key]) -> list[Key]:
    """The longer names among `others` whose words end or start with all of `key`'s."""
    n = len(key.tokens)
    return [o for o in others if len(o.tokens) > n and key.tokens in (o.tokens[-n:], o.tokens[:n])]


def labelled_errors(
    mentions: list[Row], keys: dict[str, Key], titles: dict[str, str], labels: list[tuple[str, Row]]
) -> None:
    """Per labelled-wrong title in the graph (`labels`: each label file's name and row): each (key, document) and
    the longer names that document holds."""
    by_document = _by_document(keys)
    members: dict[str, set[str]] = defaultdict(set)
    for row in mentions:
        members[str(row["entity"])].add(str(row["key"]))
    by_title = {title: entity for entity, title in titles.items()}
    reached = total = 0
    for source, label in labels:
        entity = by_title.get(str(label["title"]))
        if label["real"] != "0" or entity is None:
            continue
        total += 1
        pairs = [(keys[k], d) for k in sorted(members[entity]) for d in sorted(keys[k].documents)]
        held = [[o.surface for o in _holding(k, by_document[d])] for k, d in pairs]
        removed = all(len(h) == 1 for h in held)
        reached += removed
        print(f"{source} | {label['title']} | {len(pairs)} (key, document) | longer names there: {held}"
              f"{' | REMOVED' if removed else ''}")  # fmt: skip
    print(f"labelled-wrong titles in the graph: {total}; every document holding one longer name: {reached}")


def reach(keys: dict[str, Key]) -> None:
    """The (key, document) pairs per-document resolution would move, and where to."""
    merged = resolution.resolve(keys)
    by_document = _by_document(keys)
    moved = 0
    for key in sorted(keys.values(), key=lambda k: k.id):
        if len(key.tokens) != 1:
            continue
        person = key.type == "PERSON"
        if not person and (key.type == CONCEPT or not everyday(key.slug)):
            continue
        for document in sorted(key.documents):
            if person:
                longer = [o for o in _holding(key, by_document[document]) if o.type == "PERSON"]
            else:
                longer = [
                    o
                    for o in by_document[document]
                    if len(o.tokens) > 1
                    and o.type == key.type
                    and o.tokens[-1] == key.slug
                    and o.tokens[-2] not in resolution._MINOR  # the head the other words qualify
                ]
            if len(longer) == 1 and merged.of(longer[0].id) != merged.of(key.id):
                moved += 1
                print(f"{key.surface} ({key.type}, {len(key.documents)} documents) in {document}: "
                      f"{merged.of(key.id)} -> {merged.of(longer[0].id)}")  # fmt: skip
    print(f"(key, document) pairs moved: {moved}")


def definite(mentions: list[Row], titles: dict[str, str], labels: list[tuple[str, Row]]) -> None:
    """One-document entities of one capitalised everyday word only ever written after "the", and their labels."""
    real = {label["title"]: label["real"] for _source, label in labels}
    rows: dict[str, list[Row]] = defaultdict(list)
    for row in mentions:
        rows[str(row["entity"])].append(row)
    found = []
    for entity, title in sorted(titles.items()):
        mine = rows.get(entity, [])
        one_document = len({str(r["chunk"]).rsplit(":", 1)[0] for r in mine}) == 1
        if " " in title or not title[:1].isupper() or not everyday(title.lower()) or not one_document:
            continue
        if all(re.search(rf"\bthe\s+{re.escape(str(r['surface']))}\b", str(r["evidence"] or "")) for r in mine):
            found.append(f"{title} (label: {real.get(title, '-')})")
    print(f"one-document everyday words only after 'the': {len(found)}: {', '.join(found)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", type=Path, required=True)
    parser.add_argument("--project", default="eval")
    parser.add_argument("--labels", type=Path, nargs="*", default=[])
    args = parser.parse_args()
    settings = load_settings(_env_file=None, graph_path=args.graph, neo4j_uri=None, project=args.project)
    with open_store(settings) as store:
        graph = IndexGraph(store, settings, args.project)
        mentions = graph.mentions()
        titles = {str(r["id"]): str(r["title"]) for r in graph.entities().values()}
    keys = resolution.keys_of(mentions)
    labels = [(path.stem, dict(row)) for path in args.labels for row in csv.DictReader(path.open())]
    labelled_errors(mentions, keys, titles, labels)
    reach(keys)
    definite(mentions, titles, labels)


if __name__ == "__main__":
    main()
