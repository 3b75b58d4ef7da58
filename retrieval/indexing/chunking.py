"""Chunk stage: token-aware, overlapping passages with their character span in the document.

Why semchunk: it splits at the most meaningful boundary available (blank lines, then sentences,
then clauses, then words) while honouring a token budget, and returns offsets, so every chunk
(and every citation taken from it) points back to an exact span of its source.
Tokens are counted with the embedder's own tokenizer, so a chunk never exceeds what it embeds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import semchunk

TOKENIZER_PATH = Path(__file__).resolve().parent.parent / "assets" / "minilm" / "tokenizer.json"


@dataclass(frozen=True)
class Chunk:
    n: int
    text: str
    start: int
    end: int
    #: First and last line (1-based) for repository files, cited as `path:first-last`.
    lines: tuple[int, int] | None = None
    #: The definition a code chunk holds (`Class.method`), None for the code between definitions and for prose.
    symbol: str | None = None


def _word_count(text: str) -> int:
    return len(text.split())


@functools.cache
def token_counter() -> Callable[[str], int]:
    """The MiniLM tokenizer's count (special tokens excluded); a word count when the file is absent."""
    if not TOKENIZER_PATH.exists():
        return _word_count
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


@functools.cache
def _chunker(chunk_tokens: int) -> semchunk.Chunker:
    return semchunk.chunkerify(token_counter(), chunk_tokens)


def chunk_text(text: str, chunk_tokens: int, overlap: float) -> list[Chunk]:
    """Passages of at most `chunk_tokens` tokens sharing about `overlap` of their tokens with the previous one."""
    if not text.strip():
        return []
    result = _chunker(chunk_tokens)(text, offsets=True, overlap=overlap or None)
    pieces, offsets = cast(tuple[list[str], list[tuple[int, int]]], result)  # semchunk's return type is a union
    return [Chunk(n, piece, a, b) for n, (piece, (a, b)) in enumerate(zip(pieces, offsets, strict=True))]
