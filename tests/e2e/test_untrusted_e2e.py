"""Images and links inside documents, model answers and typed questions stay text in a real browser.

A document chunk and a scripted model answer both carry `![x](http://203.0.113.9/a.png)` (a TEST-NET address
nobody answers on) and a link; the app runs with its model pointed at the scripted server on 127.0.0.1.
Chromium must make no request off this machine, draw no <img> with that source and no link to that host.
A second answer holds every variant of tests/hostile_markdown.py (tilde runs, references, raw HTML, code,
nesting, entities), rendered by Streamlit itself, with the same checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from retrieval.config import load_settings
from retrieval.embed import make_embedder
from retrieval.indexing import run_index
from retrieval.store import open_store
from tests.e2e.conftest import ask, browse, free_port, start_app, stop_app
from tests.e2e.graph import app_env
from tests.hostile_markdown import HOST as VARIANT_HOST
from tests.hostile_markdown import VARIANTS
from tests.scripted_openai import ScriptedOpenAI, Step, json_reply, reply

pytestmark = pytest.mark.e2e
HOST = "203.0.113.9"
IMAGE = f"![x](http://{HOST}/a.png)"
DOCUMENT = (
    f"Jacob Marley kept the ledger {IMAGE} in the counting-house.\n\n"
    f"Scrooge read the ledger at [the office](http://{HOST}/office) every night.\n\n"
    f"The heavy ledger ![y](http://{HOST}/c.png) held every debt of the firm."
)
MODEL_ANSWER = f"Marley kept it {IMAGE}; see [the ledger](http://{HOST}/ledger) and <http://{HOST}/auto>."
WAIT_MS = 60_000


def _route(request: dict[str, Any]) -> Step:
    """The 'debt' question gets unusable replies (so the chunk's own sentences are shown); others an answer."""
    asked = request["messages"][1]["content"]  # context and question; a re-ask appends messages after it
    if "Question: Which debt" in asked:
        return reply("no json here")
    if "Question: Which tricks" in asked:
        variants = "\n\n".join(VARIANTS.values())
        return json_reply({"answer": variants, "key_facts": [{"fact": VARIANTS["tilde-run"], "chunk_ids": [1]}]})
    fact = {"fact": f"The ledger {IMAGE} was Marley's.", "chunk_ids": [1], "spans": ["Jacob Marley kept the ledger"]}
    return json_reply({"answer": MODEL_ANSWER, "key_facts": [fact]})


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory: pytest.TempPathFactory, browser: Browser) -> Iterator[str]:
    root = tmp_path_factory.mktemp("hostile")
    (root / "docs").mkdir()
    (root / "docs" / f"ledger ![d](http:__{HOST}_d.png).md").write_text(DOCUMENT, encoding="utf-8")
    graph = root / "graph.db"
    env = app_env(graph)
    settings = load_settings(_env_file=None, graph_path=graph, data_dir=root, neo4j_uri=None, openai_base_url=None)
    with open_store(settings) as store:
        run_index(settings, store, make_embedder(settings), [root / "docs"], project=settings.project)
    server = ScriptedOpenAI().start()
    server.script(router=_route)
    llm = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-e2e-not-a-real-key", "RETRY_MAX_ATTEMPTS": "1"}
    port = free_port()
    process = start_app(graph, port, root / "app.log", {**env, **llm})
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_app(process)
        server.stop()


def test_images_and_links_in_chunks_answers_and_questions_stay_text(browser: Browser, hostile_app: str) -> None:
    with browse(browser, hostile_app) as session:
        session.open("Ask")
        page = session.page
        ask(page, f"Who kept the ledger {IMAGE}?")
        expect(page.get_by_text("answered by: LLM").first).to_be_visible(timeout=WAIT_MS)
        ask(page, "Which debt did the heavy ledger hold?")
        expect(page.get_by_text("answered by: extractive").first).to_be_visible(timeout=WAIT_MS)
        page.get_by_text(re.compile(r"^\[1\] ")).first.click()
        body = page.locator("body")
        for shown in (f"http://{HOST}/a.png", f"http://{HOST}/ledger", f"http://{HOST}/c.png", "kept the ledger !["):
            expect(body).to_contain_text(shown, timeout=WAIT_MS)  # the markup is there to read, as text
        # Only once the expanded citation is drawn does its absence of images and links say anything.
        assert page.locator(f"img[src*='{HOST}']").count() == 0
        assert page.locator(f"a[href*='{HOST}']").count() == 0
        session.assert_offline()
        session.screenshot("untrusted-markdown")


def test_every_markdown_variant_in_an_answer_stays_text(browser: Browser, hostile_app: str) -> None:
    with browse(browser, hostile_app) as session:
        session.open("Ask")
        page = session.page
        ask(page, "Which tricks did the ledger hold?")
        expect(page.get_by_text("answered by: LLM").first).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("Export conversation (Markdown)")).to_be_visible(timeout=WAIT_MS)  # redrawn
        page.wait_for_timeout(1_000)

        for tag, attribute in (("img", "src"), ("iframe", "src"), ("a", "href")):
            found = page.locator(f"{tag}[{attribute}*='{VARIANT_HOST}']")
            assert found.count() == 0, found.evaluate_all("elements => elements.map(e => e.outerHTML)")
        session.assert_offline()
        body = page.locator("body").inner_text()
        for shown in re.findall(rf"https://{re.escape(VARIANT_HOST)}/[\w-]+\.png", "\n".join(VARIANTS.values())):
            assert shown in body, shown  # every address is there to read, as text
        session.screenshot("untrusted-markdown-variants")
