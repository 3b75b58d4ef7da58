"""Text from documents, models and users, made safe to hand to Streamlit's Markdown renderer.

Why: Markdown images load as the page renders, so `![x](http://host/a.png)` in a document, or in an
answer a model wrote, would make every analyst's browser call that host (tracking, or exfiltration
through a URL the model built). Links are not followed either: a URL from a document or a model is
something to read, so it is shown as text. Rather than parse Markdown, `inert` escapes the characters
that open an image, a link, a reference definition, an autolink or raw HTML, and sets bare URLs (which
GitHub-flavoured Markdown would turn into links) as inline code; emphasis, lists and code still render.
`plain` escapes every Markdown character, for text that must read as typed (a user's question).
"""

from __future__ import annotations

import re

#: Fenced blocks and inline code spans: their content is literal already, so it is left untouched.
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]+`)", re.DOTALL)
#: Bare URLs GitHub-flavoured Markdown would link; trailing punctuation stays outside, as GFM does.
_URL = re.compile(r"((?:https?|ftp)://[^\s<>`]*[^\s<>`.,;:!?'\")\]]|www\.[^\s<>`]*[^\s<>`.,;:!?'\")\]])", re.I)
#: What can start an image, a link, a reference, an autolink, raw HTML or a code span, plus the escape itself.
_LINK_SYNTAX = re.compile(r"([\\\[\]!<>`])")
_ANY_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def inert(text: str) -> str:
    """Markdown that renders the same formatting but can neither load a resource nor link anywhere."""
    pieces = _CODE.split(text)
    return "".join(piece if i % 2 else _urls_as_code(piece, _LINK_SYNTAX) for i, piece in enumerate(pieces))


def plain(text: str) -> str:
    """Markdown that renders `text` as typed: every punctuation character escaped, URLs as code."""
    return _urls_as_code(text, _ANY_PUNCTUATION)


def _urls_as_code(text: str, escaped: re.Pattern[str]) -> str:
    """Bare URLs as code spans (GFM links them even when their punctuation is escaped), `escaped` escaped."""
    pieces = _URL.split(text)
    return "".join(f"`{piece}`" if i % 2 else escaped.sub(r"\\\1", piece) for i, piece in enumerate(pieces))
