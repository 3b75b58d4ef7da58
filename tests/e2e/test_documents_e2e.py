"""The Documents page and the selected project in a real browser, on both backends: index two files into a
project of their own and see each document's status, Home and Index follow that project, then search, sort,
re-index and remove a document from its row."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.conftest import DemoGraph
from tests.e2e.conftest import Session
from tests.e2e.grid import pick_row, rows

pytestmark = pytest.mark.e2e
WAIT_MS = 60_000
PROJECT = "walktest"
FILES = {
    "alpha.txt": "Ada Lovelace wrote the first published algorithm. Charles Babbage designed the Analytical Engine.",
    "beta.txt": "Grace Hopper built the first compiler. Grace Hopper worked on the Harvard Mark I with Howard Aiken.",
}


def nav(page: Page, title: str) -> None:
    """Another page through the sidebar, in the same session (a reload would start a new one)."""
    page.get_by_role("link", name=title, exact=True).click()
    page.get_by_role("heading", name="DriftLens" if title == "Home" else title).first.wait_for(timeout=WAIT_MS)


def status_of(grid: Locator) -> list[tuple[str, str]]:
    """(title, status) of each row in order: the first two columns of a documents table."""
    return [(cells[0], cells[1]) for cells in rows(grid) if len(cells) > 1]


def expect_statuses(grid: Locator, wanted: dict[str, str]) -> None:
    """The table shows these rows, in this order (it redraws after each rerun: poll until it does)."""
    for _ in range(120):
        if status_of(grid) == list(wanted.items()):
            return
        grid.page.wait_for_timeout(500)
    assert status_of(grid) == list(wanted.items())


def test_documents_page_and_the_selected_project(backend_session: Session, demo: DemoGraph) -> None:
    session, page = backend_session, backend_session.page
    folder = demo.data_dir / PROJECT
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")

    # Index into a project of its own: each document's status is listed, and the app follows that project
    session.open("Index")
    page.get_by_role("textbox", name="Project").fill(PROJECT)
    page.get_by_label("Folder (or file, or .zip)").fill(str(folder))
    page.get_by_role("button", name="Index", exact=True).click()
    expect(page.get_by_text(re.compile(r"^Last run: 2 added"))).to_be_visible(timeout=WAIT_MS)
    run_table = page.get_by_test_id("stDataFrame").first
    expect_statuses(run_table, {"alpha": "indexed", "beta": "indexed"})
    expect(page.get_by_role("heading", name=f"Project '{PROJECT}'")).to_be_visible()
    documents_metric = page.get_by_test_id("stMetric").filter(has_text="Documents")
    expect(documents_metric.get_by_test_id("stMetricValue")).to_have_text("2")
    page.get_by_role("button", name="Re-index last source").click()
    expect(page.get_by_text(re.compile(r"^Last run: 0 added, 0 updated, 2 unchanged"))).to_be_visible(timeout=WAIT_MS)
    expect_statuses(page.get_by_test_id("stDataFrame").first, {"alpha": "unchanged", "beta": "unchanged"})

    nav(page, "Home")  # the selected project's counts, not the whole graph's
    expect(page.get_by_text(f"Searches read project '{PROJECT}'", exact=False).first).to_be_visible()
    home_documents = page.get_by_test_id("stMetric").filter(has_text="Documents").get_by_test_id("stMetricValue")
    expect(home_documents).to_have_text("2")

    nav(page, "Documents")
    grid = page.get_by_test_id("stDataFrame").first
    expect_statuses(grid, {"alpha": "unchanged", "beta": "unchanged"})
    page.get_by_label("Search documents").fill("hopper beta")
    page.get_by_label("Search documents").press("Enter")
    page.get_by_label("Search documents").fill("beta")
    page.get_by_label("Search documents").press("Enter")
    expect_statuses(grid, {"beta": "unchanged"})
    page.get_by_label("Search documents").fill("")
    page.get_by_label("Search documents").press("Enter")
    page.get_by_text("Descending").click()
    expect_statuses(grid, {"beta": "unchanged", "alpha": "unchanged"})

    pick_row(grid, 0)  # beta
    page.get_by_role("button", name="Re-index").click()
    expect_statuses(page.get_by_test_id("stDataFrame").first, {"beta": "updated", "alpha": "unchanged"})

    pick_row(page.get_by_test_id("stDataFrame").first, 0)
    expect(page.get_by_role("button", name="Remove")).to_be_visible(timeout=WAIT_MS)
    session.screenshot("documents")  # both rows, one selected with its actions (the README's picture)
    page.get_by_text("Remove its chunks").click()
    page.get_by_role("button", name="Remove").click()
    expect(page.get_by_text(re.compile(r"^1 of 1 documents"))).to_be_visible(timeout=WAIT_MS)
    expect_statuses(page.get_by_test_id("stDataFrame").first, {"alpha": "unchanged"})
    session.assert_offline()
