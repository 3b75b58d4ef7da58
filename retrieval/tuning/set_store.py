"""Question sets in the graph: an analyst's labelled questions, scoped by project and user.

Why in the graph: the labels belong with the data they judge (a copy of the graph carries them) and every
reader of the graph — the app, the CLI, the service — sees the same sets. Each question keeps its labels as
one JSON string of passages (title, text, relevant): both backends store strings, and a set is read whole.
Every call names the project and the user; nothing here reads or changes another user's or project's sets.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from retrieval.errors import ConfigError
from retrieval.store.base import GraphStore
from retrieval.tuning.question_sets import Passage, Question, QuestionSet, Unit

SET_LABEL = "`__QuestionSet__`"
QUESTION_LABEL = "`__LabelledQuestion__`"


@dataclass(frozen=True)
class SetSummary:
    name: str
    questions: int
    labelled: int
    unit: str
    updated_at: str


@dataclass(frozen=True)
class Owner:
    project: str
    user: str

    def __post_init__(self) -> None:
        if not self.project or not self.user:
            raise ConfigError("Question sets need a project and a user (DRIFTLENS_USER).")

    def set_id(self, name: str) -> str:
        return hashlib.sha1(f"{self.project}\n{self.user}\n{name}".encode()).hexdigest()[:24]


def _question_id(text: str) -> str:
    return hashlib.sha1(text.strip().encode()).hexdigest()[:16]


class QuestionSetStore:
    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def names(self, owner: Owner) -> list[SetSummary]:
        rows = self.store.read(
            f"MATCH (s:{SET_LABEL}) WHERE s.projectId = $project AND s.user_id = $user "
            f"OPTIONAL MATCH (q:{QUESTION_LABEL}) WHERE q.set_id = s.id "
            "RETURN s.name AS name, s.unit AS unit, s.updated_at AS updated, count(q) AS n, "
            "sum(CASE WHEN q.relevant > 0 THEN 1 ELSE 0 END) AS labelled ORDER BY name",
            {"project": owner.project, "user": owner.user},
        )
        return [SetSummary(r["name"], int(r["n"]), int(r["labelled"] or 0), r["unit"], r["updated"]) for r in rows]

    def load(self, owner: Owner, name: str) -> QuestionSet:
        set_id = owner.set_id(name)
        head = self.store.read(
            f"MATCH (s:{SET_LABEL} {{id: $id}}) WHERE s.projectId = $project AND s.user_id = $user "
            "RETURN s.unit AS unit",
            {"id": set_id, "project": owner.project, "user": owner.user},
        )
        if not head:
            raise ConfigError(f"No question set {name!r} in project {owner.project!r} for user {owner.user!r}.")
        rows = self.store.read(
            f"MATCH (q:{QUESTION_LABEL}) WHERE q.set_id = $id AND q.projectId = $project AND q.user_id = $user "
            "RETURN q.question_id AS id, q.text AS text, q.labels AS labels ORDER BY q.added_at, q.question_id",
            {"id": set_id, "project": owner.project, "user": owner.user},
        )
        passages: dict[str, Passage] = {}
        questions = []
        for row in rows:
            gold: set[str] = set()
            negative: set[str] = set()
            for item in json.loads(row["labels"] or "[]"):
                passage = Passage(item["title"], item["text"])
                passages.setdefault(passage.key, passage)
                (gold if item["relevant"] else negative).add(passage.key)
            questions.append(Question(row["id"], row["text"], frozenset(gold), frozenset(negative)))
        unit: Unit = "chunk" if head[0]["unit"] == "chunk" else "passage"
        return QuestionSet(name, questions, passages, unit=unit)

    def save(self, owner: Owner, question_set: QuestionSet) -> int:
        """Create or replace the set (named as in `question_set`); returns the questions written."""
        self.delete(owner, question_set.name)
        set_id = self._ensure_set(owner, question_set.name, question_set.unit)
        started = datetime.now(UTC)
        rows = []
        for i, question in enumerate(question_set.questions):
            items = [_item(question_set.passages[k], True) for k in sorted(question.gold)]
            items += [_item(question_set.passages[k], False) for k in sorted(question.negative)]
            rows.append(
                _row(owner, set_id, question.id, question.text, items, added=started + timedelta(microseconds=i))
            )
        self.store.write_batch(f"UNWIND $rows AS row CREATE (q:{QUESTION_LABEL}) SET q = row", rows)
        return len(rows)

    def label(self, owner: Owner, name: str, question: str, labels: Sequence[tuple[Passage, bool]]) -> None:
        """Add one question's labels to set `name`, creating the set when new.

        A passage labelled again takes its latest label: a thumb changed from up to down is a correction."""
        set_id = self._ensure_set(owner, name, "chunk")
        qid = _question_id(question)
        params = {"set": set_id, "qid": qid, "project": owner.project, "user": owner.user}
        current = self.store.read(
            f"MATCH (q:{QUESTION_LABEL}) WHERE q.set_id = $set AND q.question_id = $qid AND q.projectId = $project "
            "AND q.user_id = $user RETURN q.labels AS labels, q.added_at AS added",
            params,
        )
        merged: dict[str, dict[str, object]] = {}
        for item in json.loads(current[0]["labels"] or "[]") if current else []:
            merged[Passage(str(item["title"]), str(item["text"])).key] = item
        for passage, relevant in labels:
            merged[passage.key] = _item(passage, relevant)
        added = datetime.fromisoformat(current[0]["added"]) if current else datetime.now(UTC)
        row = _row(owner, set_id, qid, question, list(merged.values()), added=added)
        self.store.query(
            f"MERGE (q:{QUESTION_LABEL} {{set_id: $set, question_id: $qid, projectId: $project, user_id: $user}}) "
            "SET q = $row",
            {**params, "row": row},
        )

    def delete(self, owner: Owner, name: str) -> int:
        params = {"id": owner.set_id(name), "project": owner.project, "user": owner.user}
        rows = self.store.query(
            f"MATCH (q:{QUESTION_LABEL}) WHERE q.set_id = $id AND q.projectId = $project AND q.user_id = $user "
            "DELETE q RETURN count(q) AS n",
            params,
        )
        self.store.query(
            f"MATCH (s:{SET_LABEL} {{id: $id}}) WHERE s.projectId = $project AND s.user_id = $user DELETE s", params
        )
        return int(rows[0]["n"]) if rows else 0

    def _ensure_set(self, owner: Owner, name: str, unit: str) -> str:
        if not name.strip():
            raise ConfigError("A question set needs a name.")
        set_id = owner.set_id(name)
        self.store.query(
            f"MERGE (s:{SET_LABEL} {{id: $id}}) ON CREATE SET s.name = $name, s.projectId = $project, "
            "s.user_id = $user, s.unit = $unit SET s.updated_at = $now",
            {"id": set_id, "name": name, "project": owner.project, "user": owner.user, "unit": unit, "now": _now()},
        )
        return set_id


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _item(passage: Passage, relevant: bool) -> dict[str, object]:
    return {"title": passage.title, "text": passage.text, "relevant": bool(relevant)}


def _row(
    owner: Owner, set_id: str, question_id: str, text: str, items: list[dict[str, object]], *, added: datetime
) -> dict[str, object]:
    """One question node's properties; `added_at` keeps the set's order (microsecond steps within a batch)."""
    return {
        "set_id": set_id,
        "question_id": question_id,
        "projectId": owner.project,
        "user_id": owner.user,
        "text": text,
        "labels": json.dumps(items, ensure_ascii=False),
        "relevant": sum(1 for item in items if item["relevant"]),
        "added_at": added.isoformat(timespec="microseconds"),
    }
