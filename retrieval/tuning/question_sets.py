"""Question sets: questions with labelled passages, read from and written to the evaluation harness's JSONL.

A labelled passage is text, not a node id: chunk ids change when a document is re-indexed, text does not, so a
set survives re-indexing and moves between graphs. Two input shapes are read, the ones the dev sets use:
HotpotQA (`context` [[title, [sentences]]] + `supporting_facts` [[title, n]]) and MuSiQue (`paragraphs` [{title,
paragraph_text, is_supporting}]). Sets are written in the MuSiQue shape, which carries negative labels too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

#: How a ranking is counted. "passage": chunks of one document count once, at the best one (the harness's rule
#: for pooled dev sets, where a document is a passage); "chunk": every chunk counts (labels from the Ask page).
Unit = Literal["passage", "chunk"]


def passage_key(title: str, text: str) -> str:
    return hashlib.sha1(f"{title}\n{text.strip()}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Passage:
    title: str
    text: str

    @property
    def key(self) -> str:
        return passage_key(self.title, self.text)


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    gold: frozenset[str]  # passage keys labelled relevant
    negative: frozenset[str] = frozenset()  # passage keys labelled not relevant


@dataclass(frozen=True)
class QuestionSet:
    name: str
    questions: list[Question]
    passages: dict[str, Passage]  # key -> passage
    #: Items left out because they carry no passages at all (no `context`/`paragraphs`, or an empty one).
    skipped_no_passages: int = 0
    unit: Unit = "passage"
    meta: dict[str, Any] = field(default_factory=dict)

    def header(self, evaluated: int) -> str:
        """A results table's title: what was measured and what was left out, so a score is never read alone."""
        without_gold = sum(1 for q in self.questions if not q.gold)
        return (
            f"{self.name}: {evaluated} questions, {len(self.passages)} pooled passages; skipped "
            f"{self.skipped_no_passages} without passages, {without_gold} without a supporting passage"
        )

    @property
    def labelled(self) -> list[Question]:
        """The questions a metric can be computed for (at least one relevant passage)."""
        return [q for q in self.questions if q.gold]


def _pairs(row: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    """(title, text, relevant) per passage of one item; relevant None = unlabelled context (HotpotQA distractor)."""
    if "paragraphs" in row:
        return [(p["title"], p["paragraph_text"], bool(p.get("is_supporting"))) for p in row["paragraphs"] or []]
    gold_titles = {title for title, _n in row.get("supporting_facts") or []}
    return [(t, "".join(sentences), True if t in gold_titles else None) for t, sentences in row.get("context") or []]


def read_set(path: Path) -> QuestionSet:
    """Read a JSONL (one item a line) or JSON (a list) file in either dev-set shape.

    Items with no passages (some exports drop `context` for unanswerable or test items) are counted and skipped:
    they cannot be retrieved against, and one of them used to end the harness's run with a KeyError."""
    raw = path.read_text(encoding="utf-8")
    rows = (
        [json.loads(line) for line in raw.splitlines() if line.strip()] if path.suffix == ".jsonl" else json.loads(raw)
    )
    return from_rows(path.stem, rows)


def from_rows(name: str, rows: Iterable[dict[str, Any]]) -> QuestionSet:
    passages: dict[str, Passage] = {}
    questions = []
    skipped = 0
    units: set[str] = set()
    for row in rows:
        pairs = _pairs(row)
        if not pairs:
            skipped += 1
            continue
        gold: set[str] = set()
        negative: set[str] = set()
        for title, text, relevant in pairs:
            passage = Passage(title, text.strip())
            passages.setdefault(passage.key, passage)
            if relevant:
                gold.add(passage.key)
            elif relevant is False:
                negative.add(passage.key)
        units.add(str(row.get("driftlens_unit") or "passage"))
        questions.append(
            Question(str(row.get("_id") or row.get("id")), row["question"], frozenset(gold), frozenset(negative))
        )
    unit: Unit = "chunk" if units == {"chunk"} else "passage"
    return QuestionSet(name, questions, passages, skipped, unit)


def to_rows(question_set: QuestionSet) -> list[dict[str, Any]]:
    """MuSiQue-shaped rows (what `read_set` and the harness read back), with the set's counting unit."""
    rows = []
    for q in question_set.questions:
        labelled = [(key, True) for key in sorted(q.gold)] + [(key, False) for key in sorted(q.negative)]
        rows.append(
            {
                "id": q.id,
                "question": q.text,
                "driftlens_unit": question_set.unit,
                "paragraphs": [
                    {
                        "title": question_set.passages[key].title,
                        "paragraph_text": question_set.passages[key].text,
                        "is_supporting": relevant,
                    }
                    for key, relevant in labelled
                ],
            }
        )
    return rows


def write_set(question_set: QuestionSet, path: Path) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in to_rows(question_set)), "utf-8")
