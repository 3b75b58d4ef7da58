"""Untrusted text rendered as Markdown can neither load a resource nor link anywhere, yet keeps its formatting.

Checked with a CommonMark parser (markdown-it, which rich already brings): after `inert`, no image, link or
HTML token is left, and every bare URL sits in a code span (GitHub-flavoured Markdown would link it).
"""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from components.untrusted import inert, plain

HOSTILE = [
    "Marley ![x](http://203.0.113.9/a.png) owed money.",
    "See [the ledger](http://203.0.113.9/ledger) or <http://203.0.113.9/auto>.",
    "[ref]: http://203.0.113.9/a.png\n\n![pixel][ref] and [link][ref]",
    '<img src="http://203.0.113.9/a.png"> and <a href="http://203.0.113.9">x</a>',
    "\\![escaped?](http://203.0.113.9/a.png) \\[x\\](http://203.0.113.9/b)",
    "a lone ` backtick, then ![x](http://203.0.113.9/a.png) and www.example.com/page.",
    "```\n![in code](http://203.0.113.9/a.png)\n```\nthen ![out](http://203.0.113.9/b.png)",
]
_PARSER = MarkdownIt("commonmark")


def _tokens(markdown: str) -> list[Token]:
    flat: list[Token] = []
    for token in _PARSER.parse(markdown):
        flat += [token, *(token.children or [])]
    return flat


@pytest.mark.parametrize("text", HOSTILE)
def test_inert_text_has_no_image_link_or_html(text: str) -> None:
    tokens = _tokens(inert(text))
    kinds = {t.type for t in tokens}
    assert not kinds & {"image", "link_open", "html_inline", "html_block"}, kinds
    prose = "".join(t.content for t in tokens if t.type == "text")
    assert "http://" not in prose and "www." not in prose  # every bare URL is in a code span
    rendered = _PARSER.render(inert(text))
    assert "<img" not in rendered and "<a " not in rendered


def test_inert_keeps_formatting_and_code() -> None:
    rendered = _PARSER.render(inert("**Scrooge** said *humbug*.\n\n- one\n- two\n\n`a[b](c)` [1]"))
    assert "<strong>Scrooge</strong>" in rendered and "<em>humbug</em>" in rendered
    assert "<li>one</li>" in rendered and "<code>a[b](c)</code>" in rendered and "[1]" in rendered
    assert "203.0.113.9/a.png" in _PARSER.render(inert("![x](http://203.0.113.9/a.png)"))  # shown, as text


def test_plain_renders_exactly_what_was_typed() -> None:
    typed = "Is *this* ![x](http://203.0.113.9/a.png) <b>bold</b> # or `code`?"
    tokens = _tokens(plain(typed))
    assert {t.type for t in tokens} == {"paragraph_open", "inline", "text", "code_inline", "paragraph_close"}
    assert "".join(t.content for t in tokens if t.type in ("text", "code_inline")) == typed
