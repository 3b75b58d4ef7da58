"""Every DriftLens search's whole output for a dev set, as JSON: to show a change left every ranking as it was.

Usage (a server holding the set's index, as benchmarks/peers.py builds it):
    NEO4J_URI=bolt://... NEO4J_PASSWORD=... .venv/bin/python benchmarks/search_outputs.py DATASET OUT.json \
        [--checkout DIR] [--folder DIR]
then `cmp` two files: this checkout's and another's (`--checkout /work/main`: that checkout's `retrieval` is
imported, never this one's) on the same server. Written per question: `retrieve()`'s whole output (chunks with
scores, sources and lines, seeds, hit entities, the walk) as the default (hybrid + graph) search runs it, and
`search_chunks`' hybrid and vector-only hits. `--folder` is the indexed set's data folder (what the indexer
remembers; by default this checkout's benchmarks/.cache/<set>-neo4j). Why whole outputs and not R@k: a change
meant to cost less must not move a score in the tenth decimal either, and equal recall hides moved ranks.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--checkout", type=Path, default=HERE, help="the checkout whose code searches")
    parser.add_argument("--folder", type=Path, default=None, help="the indexed set's data folder")
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout.resolve()))
    from benchmarks import backends
    from benchmarks.eval_data import eval_settings, read_set
    from benchmarks.eval_retrieval import FETCH
    from retrieval.context import Context
    from retrieval.embed import make_embedder
    from retrieval.models import QueryParams
    from retrieval.search.hybrid import search_chunks
    from retrieval.search.ranking import retrieve
    from retrieval.store import open_store

    data = read_set(args.dataset)
    folder = args.folder or HERE / "benchmarks" / ".cache" / f"{data.name}-neo4j"
    settings = eval_settings(folder, **backends.required_neo4j())
    store = open_store(settings)
    embedder = make_embedder(settings)
    ctx = Context(settings, store, embedder, None, settings.project)
    questions = [q for q in data.questions if q.gold]
    vectors = [v.tolist() for v in embedder.embed([q.text for q in questions])]
    base = QueryParams.from_settings(settings, top_k=FETCH, filters={})
    default = base.model_copy(update={"max_hops": max(1, base.max_hops)})
    vector_only = base.model_copy(update={"search_type": "vector"})

    def hits(found: list[Any]) -> list[dict[str, Any]]:
        return [h.model_dump() for h in found]

    out = []
    for question, vector in zip(questions, vectors, strict=True):
        got = retrieve(ctx, question.text, default, query_vector=vector, walk=True)
        walk = got.expansion
        out.append(
            {
                "question": question.text,
                "retrieve": {
                    "chunks": hits(got.chunks),
                    "seeds": hits(got.seeds),
                    "hit_entities": got.hit_entities,
                    "walk": {
                        "entities": hits(walk.entities),
                        "relations": walk.relations,
                        "chunks": hits(walk.chunks),
                        "truncated": walk.truncated,
                        "budget_exhausted": walk.budget_exhausted,
                    },
                },
                "hybrid": hits(search_chunks(ctx, question.text, base, query_vector=vector)),
                "vector": hits(search_chunks(ctx, question.text, vector_only, query_vector=vector)),
            }
        )
    store.close()
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True, default=str), encoding="utf-8")
    print(f"{data.name}: {len(out)} questions written to {args.out}")


if __name__ == "__main__":
    main()
