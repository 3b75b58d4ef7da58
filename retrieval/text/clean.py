"""Clean user text at the boundary, before it reaches the embedder, the graph or a model.

Why: a question can carry code points no encoder accepts. Python turns invalid UTF-8 in argv into
lone surrogates (`\\udcff`), and JSON from a browser or an HTTP client can hold a lone `\\ud800`;
the tokenizer, the database driver and the model client all refuse to encode those, so one bad
character used to crash search and ask. Control characters (NUL, terminal escapes) mean nothing in a
question and would be echoed back into terminals and pages. Every face (CLI, app, HTTP API) calls
this one function through the Engine or its argv parsing, so they all accept the same text.
"""

from __future__ import annotations

import unicodedata

REPLACEMENT = "\ufffd"
#: Kept as they are: line structure in a pasted question is harmless.
_KEPT_CONTROLS = frozenset("\n\t")


def clean_text(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD, control characters by spaces, in Unicode NFC.

    A valid surrogate pair (how JavaScript spells an emoji) is joined into its character, not replaced.
    """
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    text = "".join(" " if _is_control(ch) else ch for ch in text)
    return unicodedata.normalize("NFC", text)


def _is_control(ch: str) -> bool:
    return unicodedata.category(ch) == "Cc" and ch not in _KEPT_CONTROLS
