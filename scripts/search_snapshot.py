"""Top ids of `/v1/retrieval/search` for a fixed question list, as JSON: diff two runs to see a ranking change.

Usage: python scripts/search_snapshot.py [--graph .driftlens/graph.db] > before.json
       (change the search code) python scripts/search_snapshot.py > after.json; diff before.json after.json
Why a script and not a test: it reads the graph you point it at (the demo graph, a real corpus), where the
tests' small fixtures cannot show a reordering. The search runs in process with the
endpoint's default parameters.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.api import PROJECT
from benchmarks.questions import NAMED, SERVICE, TOPICS
from retrieval.config import load_settings
from retrieval.engine import Engine
from retrieval.service import schemas

#: Beyond the benchmarks' questions: a multi-hop one, a bare topic, stop words only.
EXTRA = ("Which guest grew up on a farm and later worked on robots?", "quantum computing", "the the of")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", type=Path, default=None)
    args = parser.parse_args()
    settings = load_settings(**({"graph_path": args.graph} if args.graph else {}))
    engine = Engine(settings)
    out = {}
    try:
        for question in (*SERVICE, *NAMED, *TOPICS, *EXTRA):
            request = schemas.SearchRequest.model_validate({"query": question, "projectId": PROJECT})
            found = engine.search(request.query, engine.params(top_k=request.local.k))
            out[question] = {
                "chunks": [h.id for h in found.chunks][:10],
                "seeds": [h.id for h in found.seeds][:10],
                "neighbours": [h.id for h in found.neighbours][:10],
            }
    finally:
        engine.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
