"""Untrusted text rendered as Markdown can neither load a resource nor link anywhere, yet keeps its formatting.

Checked with a CommonMark parser (markdown-it, which rich already brings) with GFM's strikethrough and tables, as
Streamlit renders: after `inert`, no image, link or HTML token is left, and every bare URL sits in a code span
(GitHub-flavoured Markdown would link it). tests/e2e/test_untrusted_e2e.py renders the same variants in Chromium.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from components.untrusted import as_typed, inert, plain
from tests.hostile_markdown import VARIANTS

HOSTILE = [
    *(pytest.param(text, id=name) for name, text in VARIANTS.items()),
    "See [the ledger](http://203.0.113.9/ledger) or <http://203.0.113.9/auto>.",
    "\\![escaped?](http://203.0.113.9/a.png) \\[x\\](http://203.0.113.9/b)",
    "a lone ` backtick, then ![x](http://203.0.113.9/a.png) and www.example.com/page.",
    "~~![struck](http://203.0.113.9/s.png)~~ and ~![one](http://203.0.113.9/o.png)~",
    ":red[![x](http://203.0.113.9/d.png)] $\\href{http://203.0.113.9}{x}$",
]
_PARSER = MarkdownIt("commonmark").enable(["strikethrough", "table"])


def _tokens(markdown: str) -> list[Token]:
    flat: list[Token] = []
    for token in _PARSER.parse(markdown):
        flat += [token, *(token.children or [])]
    return flat


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("escape", [inert, plain, as_typed])
def test_untrusted_text_has_no_image_link_or_html(text: str, escape: Callable[[str], str]) -> None:
    tokens = _tokens(escape(text))
    kinds = {t.type for t in tokens}
    assert not kinds & {"image", "link_open", "html_inline", "html_block", "fence"}, kinds  # indented code is literal
    prose = "".join(t.content for t in tokens if t.type == "text")
    assert not re.search(r"://|www\.|@", prose), prose  # every bare URL and e-mail address is in a code span
    rendered = _PARSER.render(escape(text))
    assert "<img" not in rendered and "<a " not in rendered and "<iframe" not in rendered


def test_inert_keeps_formatting_and_shows_code_and_links_as_text() -> None:
    markdown = "**Scrooge** said *humbug*.\n\n- one\n- two\n\n1. first\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    rendered = _PARSER.render(inert(f"# Ledger\n\n{markdown}\n\n`a[b](c)` [1] ~~no~~ 5 < 6 & $x$ :red[y]"))
    for kept in ("<h1>Ledger</h1>", "<strong>Scrooge</strong>", "<em>humbug</em>", "<li>one</li>", "<li>first</li>"):
        assert kept in rendered
    assert "<blockquote>" in rendered and "<td>2</td>" in rendered
    assert "<p>`a[b](c)` [1] ~~no~~ 5 &lt; 6 &amp; $x$ :red[y]</p>" in rendered  # as written, nothing active
    assert "(<code>http://203.0.113.9/a.png</code>)" in _PARSER.render(inert("![x](http://203.0.113.9/a.png)"))


def test_plain_renders_exactly_what_was_typed() -> None:
    typed = "Is *this* ![x](http://203.0.113.9/a.png) <b>bold</b> # or `code`?"
    tokens = _tokens(plain(typed))
    assert {t.type for t in tokens} == {"paragraph_open", "inline", "text", "code_inline", "paragraph_close"}
    assert "".join(t.content for t in tokens if t.type in ("text", "code_inline")) == typed
