"""What an indexing run did, as a whole (`IndexReport`) and per document as it goes (`DocumentEvent`).

Why a module of its own: the pipeline fills these in, and the app, the CLI and the documents listing read them;
none of them needs the pipeline's machinery to do so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from retrieval.indexing.entries import LoadIssue
from retrieval.models import Usage

#: What the last run did to a document. `queued`: the run will write it; `removed`: the run deleted it.
Status = Literal["queued", "indexed", "updated", "unchanged", "failed", "skipped", "removed"]


@dataclass(frozen=True)
class DocumentEvent:
    """One document's status during a run: `reason` says why it failed or was skipped."""

    path: str
    status: Status
    reason: str = ""


DocumentCallback = Callable[[DocumentEvent], None]


def issue_status(issue: LoadIssue) -> Status:
    """A refusal by policy or a file with nothing to index is `skipped`; anything that went wrong is `failed`."""
    return "skipped" if "skipped" in issue.message or not issue.keeps_stored else "failed"


@dataclass
class IndexReport:
    """What a run did; `to_dict()` is the `--json` output of `python -m retrieval index`."""

    project: str
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    issues: list[LoadIssue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    written: dict[str, int] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.deleted)

    def statuses(self) -> dict[str, DocumentEvent]:
        """Each document this run saw, by path, with what the run did to it (failures win over a write)."""
        out: dict[str, DocumentEvent] = {}
        for status, paths in (("indexed", self.added), ("updated", self.updated), ("unchanged", self.unchanged)):
            out.update({p: DocumentEvent(p, status) for p in paths})  # type: ignore[arg-type]
        out.update({p: DocumentEvent(p, "removed") for p in self.deleted})
        out.update({i.path: DocumentEvent(i.path, issue_status(i), i.message) for i in self.issues})
        return out

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["usage"] = self.usage.model_dump()
        out["issues"] = [asdict(issue) for issue in self.issues]
        out["counts"] = {k: len(getattr(self, k)) for k in ("added", "updated", "unchanged", "deleted")}
        return out
