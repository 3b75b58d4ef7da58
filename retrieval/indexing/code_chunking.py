"""Chunks of repository files with their line ranges: code along its definitions, Markdown and configs by passage.

Why along definitions: a question about code is answered by a function or a class, and a citation is only
useful when it points at one (`retrieval/store/text_query.py:34-36`). Each top-level definition is a chunk
(with the comments just above it); the code between definitions is another; a class too long for one chunk
is cut into its methods, and anything still too long falls back to the token-aware splitter. Chunks are whole
lines of the normalised text, so their character spans and line ranges agree.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import tree_sitter as ts

from retrieval.indexing import code_outline, languages
from retrieval.indexing.chunking import Chunk, chunk_text, token_counter
from retrieval.indexing.code_outline import Outline, Segment


@dataclass(frozen=True)
class _Piece:
    text: str
    start: int
    end: int
    symbol: str | None


class _Lines:
    """Character offsets of line starts, for line <-> offset conversions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines `first`..`last` (0-based, inclusive), without the final newline."""
        end = self.starts[last + 1] - 1 if last + 1 < len(self.starts) else len(self.text)
        return self.starts[first], end

    def numbers(self, start: int, end: int) -> tuple[int, int]:
        """1-based first and last line of the character span [start, end)."""
        first = bisect.bisect_right(self.starts, start)
        return first, max(first, bisect.bisect_right(self.starts, max(start, end - 1)))


def chunk_source(path: str, text: str, outline: Outline | None, chunk_tokens: int, overlap: float) -> list[Chunk]:
    """Chunks of any document; repository files (code, Markdown, configuration) carry their line ranges."""
    if outline is None and not languages.has_lines(path):
        return chunk_text(text, chunk_tokens, overlap)
    lines = _Lines(text)
    if outline is None:
        pieces = [_Piece(c.text, c.start, c.end, None) for c in chunk_text(text, chunk_tokens, overlap)]
    else:
        pieces = [p for s in outline.segments for p in _split(s, lines, chunk_tokens, overlap)]
    return [Chunk(n, p.text, p.start, p.end, lines.numbers(p.start, p.end), p.symbol) for n, p in enumerate(pieces)]


def _split(segment: Segment, lines: _Lines, budget: int, overlap: float) -> list[_Piece]:
    """One piece when the segment fits; else a class's header and members; else token-sized passages."""
    start, end = lines.span(segment.first, segment.last)
    text = lines.text[start:end]
    if not text.strip():
        return []
    if token_counter()(text) <= budget:
        return [_Piece(text, start, end, segment.symbol)]
    body = _class_body(segment)
    members = code_outline.segments(body, f"{segment.symbol}.") if body is not None else []
    if any(m.node is not None for m in members):
        while members[0].node is None:  # the docstring and attributes stay with the class line
            members.pop(0)
        head = (
            Segment(segment.first, members[0].first - 1, segment.symbol) if members[0].first > segment.first else None
        )
        tail = Segment(members[-1].last + 1, segment.last, segment.symbol) if members[-1].last < segment.last else None
        parts = [s for s in (head, *members, tail) if s is not None and s.first <= s.last]
        return [p for s in parts for p in _split(s, lines, budget, overlap)]
    return [_Piece(c.text, start + c.start, start + c.end, segment.symbol) for c in chunk_text(text, budget, overlap)]


def _class_body(segment: Segment) -> ts.Node | None:
    node = segment.node
    if node is None or code_outline.DEFINITION_KINDS.get(node.type) != "class":
        return None
    return code_outline.class_body(node)
