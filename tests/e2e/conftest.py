"""Browser end-to-end fixtures: one app process per test session on a free port, Debian's Chromium.

Offline rule: every page records requests that go anywhere but 127.0.0.1 (or data:/blob:), and each
test asserts that list is empty. Screenshots land in tests/artifacts/ (git-ignored; the README copies them).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.backends import NEO4J, Occupant
from tests.conftest import DemoGraph
from tests.e2e.graph import ROOT, app_env, demo_graph
from tests.hermetic import skip_missing_tool

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
ARTIFACTS = ROOT / "tests" / "artifacts"
LOCAL_PREFIXES = ("http://127.0.0.1", "data:", "blob:", "about:")
START_TIMEOUT_S = 90


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def require_chromium() -> None:
    """Skip where there is no browser, except in CI, where a missing browser is a failure."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing in CI: install Debian's chromium (see .ci/run)")
    skip_missing_tool(f"{CHROMIUM} (Debian's chromium) for the browser tests")


def start_app(graph: Path, port: int, log: Path, extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, **app_env(graph), "PYTHONPATH": str(ROOT), **(extra_env or {})}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"app exited early:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return process
        except OSError:
            time.sleep(0.3)
    process.terminate()
    raise RuntimeError(f"app did not start in {START_TIMEOUT_S}s:\n{log.read_text()}")


@pytest.fixture(scope="package")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_chromium()
    graph = demo_graph(tmp_path_factory.getbasetemp() / "app-graph")
    port = free_port()
    process = start_app(graph, port, tmp_path_factory.getbasetemp() / "app.log")
    yield f"http://127.0.0.1:{port}"
    stop_app(process)


def stop_app(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="package")
def browser(app_url: str) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


def idle(page: Page, timeout_ms: int = 60_000) -> None:
    """Wait until the page's script run is over. Why: a button clicked while the page reruns (after a row is
    picked, a setting changed) can be undone by that rerun, and the click is then lost, not delayed."""
    page.get_by_test_id("stStatusWidgetRunningIcon").wait_for(state="detached", timeout=timeout_ms)


def clicked(page: Page, button: Locator) -> None:
    """Click a button that a rerun draws (a picked row's actions) once that rerun is over: it is drawn while the
    run is still going, and a click then is lost (`idle`)."""
    button.wait_for(state="visible", timeout=60_000)
    idle(page)
    button.click()


def clicked_until(page: Page, button: Locator, shown: Locator, tries: int = 3) -> None:
    """Click `button` once the page is idle until `shown` appears. Why more than one try: `idle` cannot see a rerun
    that has not started yet (one began after it returned in a CI run: the click was lost), and Streamlit drops a
    click on a button that rerun redraws, as it would an analyst's, who clicks again. A second click is sent only
    while the button is still enabled (one that took effect may disable it), and `shown` must appear in the end:
    a message lost after the action happened still fails."""
    for _ in range(tries - 1):
        idle(page)
        button.click()
        try:
            shown.wait_for(state="visible", timeout=15_000)
            return
        except PlaywrightTimeoutError:
            if not button.is_enabled():
                break
    idle(page)
    if button.is_enabled():
        button.click()
    expect(shown).to_be_visible(timeout=60_000)


def ask(page: Page, question: str) -> None:
    """Type a question into Ask's box and send it, as a user would."""
    box = page.get_by_placeholder("Ask the graph")
    box.fill(question)
    box.press("Enter")


@dataclass
class Session:
    """A page on the app plus every request it made that did not stay on this machine."""

    page: Page
    url: str
    outbound: list[str] = field(default_factory=list)

    def open(self, title: str) -> None:
        """Go to a page through the sidebar, as a user would (test_deep_link_e2e covers direct URLs)."""
        page = self.page
        page.goto(self.url)
        page.get_by_text("Backend").first.wait_for(timeout=60_000)
        if title != "Home":
            page.get_by_role("link", name=title, exact=True).click()
            page.get_by_role("heading", name=title).first.wait_for(timeout=30_000)

    def screenshot(self, name: str) -> Path:
        """The page once its script run is over and every element is drawn: widgets still on their way, and charts
        whose code is still loading, show as grey placeholders (skeletons)."""
        idle(self.page)
        self.page.get_by_test_id("stSkeleton").first.wait_for(state="detached", timeout=60_000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def assert_offline(self) -> None:
        assert self.outbound == [], f"requests left 127.0.0.1: {self.outbound}"


@contextmanager
def browse(browser: Browser, url: str) -> Iterator[Session]:
    """A fresh browser context on `url` that records every request leaving this machine."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    result = Session(page, url)
    page.on(
        "request",
        lambda request: None if request.url.startswith(LOCAL_PREFIXES) else result.outbound.append(request.url),
    )
    try:
        yield result
    finally:
        context.close()


@pytest.fixture
def session(browser: Browser, app_url: str) -> Iterator[Session]:
    with browse(browser, app_url) as result:
        yield result


@pytest.fixture(scope="package")
def neo4j_app(tmp_path_factory: pytest.TempPathFactory, demo: DemoGraph) -> Iterator[str]:
    """An app process on the demo graph in Neo4j (the `demo` fixture says when to rebuild it)."""
    require_chromium()
    port = free_port()
    process = start_app(demo.data_dir / "graph.db", port, tmp_path_factory.mktemp("neo4j-app") / "app.log", demo.env)
    yield f"http://127.0.0.1:{port}"
    stop_app(process)


@pytest.fixture
def backend_url(backend: str, request: pytest.FixtureRequest) -> str:
    """The app over `backend`'s graph (the embedded demo graph's app, or the one over Neo4j, its graph rebuilt
    when another test's fixture reset the database), for tests that open several sessions on it."""
    if backend == NEO4J:
        url: str = request.getfixturevalue("neo4j_app")
        Occupant.ensure(request.getfixturevalue("demo").store)
        return url
    return str(request.getfixturevalue("app_url"))


@pytest.fixture
def backend_session(browser: Browser, backend_url: str) -> Iterator[Session]:
    """A page on an app over the backend's graph."""
    with browse(browser, backend_url) as result:
        yield result
