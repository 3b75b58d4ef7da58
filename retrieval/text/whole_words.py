"""Where a word or name occurs whole in a text, found without compiling a pattern for it.

Why not `re.finditer(rf"(?<!\\w){re.escape(word)}(?!\\w)", text)`: each distinct word is a pattern of its own, and
the entity filters ask it of every name of every document. Python's pattern cache holds 512, so over MuSiQue's
1,890 short passages nearly every question compiled a pattern (`re._compile`: ~10% of the extraction process's
samples), where the same words in 15 long documents share their documents' memo. `spans` gives the very matches
of that pattern: the same literal, the same boundaries, left to right without overlaps.
"""

from __future__ import annotations

import re


def _bounds(c: str, also: str) -> bool:
    """Whether `c` stops a match beside it: a word character (as `\\w` reads one: alphanumeric or "_") or one of
    `also`."""
    return c.isalnum() or c == "_" or c in also


def spans(word: str, text: str, *, before: str = "", after: str = "") -> list[tuple[int, int]]:
    """(start, end) of each occurrence of `word` in `text` with no word character, nor one of `before`, just
    before it, and none, nor one of `after`, just after it: the matches, left to right, of
    `re.finditer(rf"(?<![\\w{before}]){re.escape(word)}(?![\\w{after}])", text)`."""
    if not word:  # empty matches between characters: rare enough for the pattern itself
        pattern = rf"(?<![\w{re.escape(before)}])(?![\w{re.escape(after)}])"
        return [(m.start(), m.end()) for m in re.finditer(pattern, text)]
    found: list[tuple[int, int]] = []
    size, at = len(word), text.find(word)
    while at >= 0:
        end = at + size
        if (at == 0 or not _bounds(text[at - 1], before)) and (end == len(text) or not _bounds(text[end], after)):
            found.append((at, end))
            at = text.find(word, end)
        else:
            at = text.find(word, at + 1)
    return found


def occurs(word: str, text: str) -> bool:
    """Whether `word` occurs in `text` with no word character on either side: `re.search(rf"(?<!\\w){word}(?!\\w)")`."""
    return bool(spans(word, text))
