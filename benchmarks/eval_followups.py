"""Follow-up resolution on the labelled conversations (benchmarks/data/followups.jsonl), on the demo graph.

Usage: python benchmarks/eval_followups.py [--split dev|test|all] [--dump FILE]

Each conversation goes through the product's `Conversation` as a reader's thread would: its earlier questions are
asked in local mode (the offline resolver reads the entities their searches found), then the last question is
begun, which resolves it (`Conversation.begin` -> `resolve`) without answering it. What was searched
(`turn.meta.searched_as`) is scored:
- resolved: a follow-up whose search names its expected entity (the entity or one of its aliases, as a whole
  phrase, any case) and none of the earlier entities it must not carry (`wrong_entities`);
- rewritten: a stand-alone question whose search differs from the question as asked (target: none).
Memory is off, so the demo graph gets no conversation nodes; no language model, so the offline resolver is what
is measured (the rewrite a model would make is not).
Targets (issue "answers an analyst can trust"): >= 90% resolved, 0 stand-alone questions rewritten.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from benchmarks.demo_graph import open_demo_graph
from retrieval.conversation.thread import Conversation
from retrieval.embed import make_embedder
from retrieval.engine import Engine

CONVERSATIONS = Path(__file__).resolve().parent / "data" / "followups.jsonl"


@dataclass(frozen=True)
class Outcome:
    row: dict[str, Any]
    searched_as: str

    @property
    def rewritten(self) -> bool:
        return " ".join(self.searched_as.split()) != " ".join(self.row["question"].split())

    @property
    def names_expected(self) -> bool:
        names = [self.row["expected_entity"], *self.row["expected_aliases"]]
        return any(mentions(self.searched_as, n) for n in names if n)

    @property
    def carries_wrong(self) -> bool:
        return any(mentions(self.searched_as, n) for n in self.row["wrong_entities"])

    @property
    def resolved(self) -> bool:
        return self.names_expected and not self.carries_wrong


def mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


def resolve_all(engine: Engine, rows: list[dict[str, Any]]) -> list[Outcome]:
    outcomes = []
    for n, row in enumerate(rows, 1):
        conversation = Conversation(engine)
        for earlier in row["turns"]:
            conversation.ask(earlier, ["local"])
        turn = conversation.begin(row["question"], ["local"])
        outcomes.append(Outcome(row, turn.meta.searched_as))
        print(f"  {n}/{len(rows)} {row['id']}: {turn.meta.searched_as!r}", file=sys.stderr, flush=True)
    return outcomes


def report(outcomes: list[Outcome], splits: list[str]) -> None:
    rows = []
    for split in splits:
        part = [o for o in outcomes if o.row["split"] == split]
        follow = [o for o in part if not o.row["standalone"]]
        alone = [o for o in part if o.row["standalone"]]
        rows.append(
            [
                split,
                len(follow),
                f"{sum(o.resolved for o in follow) / max(len(follow), 1):.0%}",
                f"{sum(o.names_expected for o in follow) / max(len(follow), 1):.0%}",
                f"{sum(o.carries_wrong for o in follow) / max(len(follow), 1):.0%}",
                f"{sum(not o.rewritten for o in follow)}",
                len(alone),
                f"{sum(o.rewritten for o in alone)}",
            ]
        )
    print_table(
        f"follow-ups ({CONVERSATIONS.name}), offline resolver on the demo graph",
        [
            "split",
            "follow-ups",
            "resolved",
            "names expected",
            "carries a wrong entity",
            "left unchanged",
            "stand-alone",
            "stand-alone rewritten",
        ],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="all")
    parser.add_argument("--dump", type=Path, default=None, help="write each conversation's search (JSONL)")
    args = parser.parse_args()
    splits = ["dev", "test"] if args.split == "all" else [args.split]
    rows = [json.loads(line) for line in CONVERSATIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r["split"] in splits]
    store, settings = open_demo_graph()
    settings = settings.model_copy(update={"memory_enabled": False})
    engine = Engine(settings, store=store, embedder=make_embedder(settings), llm=None)
    try:
        outcomes = resolve_all(engine, rows)
    finally:
        engine.close()
    report(outcomes, splits)
    if args.dump:
        keep = ("searched_as", "resolved", "rewritten")
        lines = [json.dumps({"id": o.row["id"], **{k: getattr(o, k) for k in keep}}) for o in outcomes]
        args.dump.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
