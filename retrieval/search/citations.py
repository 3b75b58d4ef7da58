"""Citation checks, shared by every mode: a model's citation is kept only where the retrieved text bears it out.

Why: a model can cite a chunk it never saw or "quote" words the chunk does not contain. A citation is kept only
when its id was retrieved. Its span must occur in that text (whitespace and case differences are repaired to the
verbatim span); a span that does not is cleared rather than trusted, and the citation falls back to its bare chunk
id (the retrieval service design's plain-id citation), since the chunk is real and was read. An id never retrieved
is dropped: the model never saw it. Each check logs the design's named events (`citation_matched`,
`citation_fallback`, `citation_dropped`) and the caller one `citation_summary` per answer.
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass
from typing import Literal

from retrieval.models import Citation, Hit, KeyFact

log = logging.getLogger(__name__)

CitationKind = Literal["chunk", "community", "node"]

_CITATION_KINDS: dict[str, CitationKind] = {"chunk": "chunk", "community": "community"}


def citation_kind(hit: Hit) -> CitationKind:
    """What a citation of `hit` points at: a chunk, a community report, or another node."""
    return _CITATION_KINDS.get(hit.kind, "node")


@dataclass
class CitationCheck:
    """What the citation checks of one answer did: every citation checked is matched, a fallback or dropped."""

    checked: int = 0
    #: Span found in the cited chunk: the citation keeps its verbatim span and the chunk's document.
    matched: int = 0
    #: Chunk retrieved but no span found in it (none given, or misquoted): kept as the bare chunk id.
    fallback: int = 0
    #: Chunk never retrieved: the citation is gone.
    dropped: int = 0

    def add(self, other: CitationCheck) -> None:
        """Count `other` in too (DRIFT checks each follow-up's answer and the aggregation, one answer in all)."""
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def log_summary(self, mode: str) -> None:
        """The `citation_summary` event, once per answer whose citations were checked."""
        log.info("citation_summary", extra={"event": "citation_summary", "mode": mode, **asdict(self)})


def validate_citations(key_facts: list[KeyFact], retrieved: dict[str, Hit]) -> tuple[list[KeyFact], CitationCheck]:
    """Facts with only citations that hold, and the count of what the check did (see `CitationCheck`).

    A fact whose every citation was dropped is dropped too: it claims support it does not have. A fact left
    with fallbacks stays: it names real chunks, and a reader can open them. A fact that cited nothing in the
    first place is kept (the caller decides what uncited text means).
    """
    kept: list[KeyFact] = []
    check = CitationCheck()
    for fact in key_facts:
        valid = []
        for citation in fact.citations:
            check.checked += 1
            hit = retrieved.get(citation.chunk_id)
            if hit is None:
                check.dropped += 1
                _event("citation_dropped", citation, "the chunk was never retrieved")
                continue
            span = locate(citation.span, hit.text) or ""
            if span:
                check.matched += 1
                _event("citation_matched", citation)
            else:
                check.fallback += 1
                _event("citation_fallback", citation, "no span found in the chunk: cited by its id alone")
            valid.append(
                citation.model_copy(
                    update={
                        "span": span,
                        "document_name": citation.document_name or hit.document_name or "",
                        "kind": citation_kind(hit),
                        "lines": citation.lines or hit.lines,
                    }
                )
            )
        if valid or not fact.citations:
            kept.append(fact.model_copy(update={"citations": valid}))
    return kept, check


#: Matches are routine; a fallback loses only the span; a drop loses the citation.
_EVENT_LEVELS = {
    "citation_matched": logging.DEBUG,
    "citation_fallback": logging.INFO,
    "citation_dropped": logging.WARNING,
}


def _event(name: str, citation: Citation, reason: str = "") -> None:
    """One named citation event, its name as the message and in `event` (a field of the JSON log line)."""
    log.log(_EVENT_LEVELS[name], name, extra={"event": name, "chunk_id": citation.chunk_id, "reason": reason})


def locate(span: str, text: str) -> str | None:
    """The verbatim occurrence of `span` in `text`, tolerating whitespace and case; "" for no span; None if absent."""
    span = span.strip()
    if not span:
        return ""
    if span in text:
        return span
    words = span.split()
    pattern = r"\s+".join(re.escape(w) for w in words)
    match = re.search(pattern, text, flags=re.IGNORECASE)
    return match.group(0) if match else None
