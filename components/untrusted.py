"""Text from documents, models and users, made safe to hand to Streamlit's Markdown renderer.

Why: Markdown images load as the page renders, so `![x](http://host/a.png)` in a document, or in an
answer a model wrote, would make every analyst's browser call that host (tracking, or exfiltration
through a URL the model built). Links are not followed either: a URL from a document or a model is
something to read, so it is shown as text.

Why escape every character rather than recognise code: an earlier `inert` left what it took for code
untouched, and a tilde run that is not a fence (`x ~~~ ![t](url) ~~~`) let an image through. Nothing
here guesses how the text will parse. Every ASCII punctuation character that can open a construct
(image, link, reference, autolink, raw HTML, code, math, Streamlit's `:directives:`, entities) is
backslash-escaped wherever it stands; the few left active only format: emphasis, headings, lists,
quotes and tables. Bare URLs and e-mail addresses, which GitHub-flavoured Markdown links even with
their punctuation escaped, are set as code spans. Code in untrusted text therefore reads as plain text; inside an
indented block (already literal) the escapes show, which is harmless.
`plain` escapes every punctuation character, for text that must read exactly as typed (a question); `as_typed` only
those that open something, for Markdown files read as text.
"""

from __future__ import annotations

import re

#: Bare URLs and e-mail addresses GitHub-flavoured Markdown would link (even with `@` escaped); trailing
#: punctuation stays outside, as GFM does.
_URL = re.compile(
    r"((?:https?|ftp)://[^\s<>`]*[^\s<>`.,;:!?'\")\]]|www\.[^\s<>`]*[^\s<>`.,;:!?'\")\]]"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
    re.I,
)
#: Every ASCII punctuation character (CommonMark escapes exactly these).
_ANY_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
#: The same, less the characters that only format (`*` `_` emphasis, `#` headings, `-` `+` `.` `)` lists,
#: `>` quotes, `|` tables): none of them starts anything that loads or links once `<`, `[`, `!` are escaped.
_ANY_BUT_FORMATTING = re.compile(r"(?![*_#+.)>|-])([!-/:-@\[-`{-~])")
#: What can open a construct (image, link, autolink, raw HTML, entity, code, math) or change how words read
#: (emphasis, strike-through, a table cell): the rest of punctuation (`'`, `?`, `,`, `(`...) stays as typed.
_CONSTRUCT_OPENERS = re.compile(r"([\\`*_{}\[\]<>!&$~|])")


def inert(text: str) -> str:
    """Markdown that keeps emphasis, headings, lists, quotes and tables but can neither load nor link anything."""
    return _urls_as_code(text, _ANY_BUT_FORMATTING)


def plain(text: str) -> str:
    """Markdown that renders `text` as typed: every punctuation character escaped, URLs and addresses as code."""
    return _urls_as_code(text, _ANY_PUNCTUATION)


def as_typed(text: str) -> str:
    """Like `plain`, for Markdown files a person reads as text (exports): only what opens a construct or changes
    emphasis is escaped, so a question reads `Moore's Law?`, not `Moore\\'s Law\\?`."""
    return _urls_as_code(text, _CONSTRUCT_OPENERS)


def _urls_as_code(text: str, escaped: re.Pattern[str]) -> str:
    """Bare URLs and addresses as code spans (GFM links them even when escaped), the rest with `escaped` escaped."""
    pieces = _URL.split(text)
    return "".join(f"`{piece}`" if i % 2 else escaped.sub(r"\\\1", piece) for i, piece in enumerate(pieces))
