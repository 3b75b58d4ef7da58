"""Repository ingestion on the real store with the real embedder: which files are read, code chunked along its
definitions with line ranges, symbols, resolved references, links and MCP metadata, incremental re-indexing and
clean deletes, and `path:start-end` citations in answers and in the CLI."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from retrieval.cli import main
from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.indexing import graph_stats, run_index
from retrieval.indexing.repo_facts import symbol_id
from retrieval.store import GraphStore

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "repo"
PROJECT = "shop"
ROOT = "shop-repo"
#: Files the fixture's .gitignore ignores: written by the test, since git itself would not commit them.
IGNORED = {"build/generated.py": "GENERATED = 1\n", "debug.log": "a log line\n", "secrets.yaml": "api_key: x\n"}
INDEXED = {
    "config/settings.yaml",
    "docs/architecture.md",
    "manifest.json",
    "mcp.json",
    "pyproject.toml",
    "shop/__init__.py",
    "shop/cart.py",
    "shop/payments/__init__.py",
    "shop/payments/charges.py",
    "shop/payments/refunds.py",
    "web/src/checkout.ts",
    "web/src/format.ts",
}


def copy_fixture(tmp_path: Path) -> Path:
    root = tmp_path / ROOT
    shutil.copytree(FIXTURE, root)
    for rel, text in IGNORED.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path)


def index(settings: Settings, store: GraphStore, embedder: Embedder, root: Path):  # type: ignore[no-untyped-def]
    return run_index(settings, store, embedder, [root], project=PROJECT)


def rows(store: GraphStore, cypher: str) -> list[dict]:  # type: ignore[type-arg]
    return store.query(cypher, {"project": PROJECT})


def line_of(root: Path, rel: str, needle: str) -> int:
    return next(n for n, line in enumerate((root / rel).read_text().splitlines(), start=1) if needle in line)


def test_reads_source_docs_and_configs_and_skips_ignored_vendored_and_binary(settings, store, embedder, repo) -> None:
    report = index(settings, store, embedder, repo)
    assert sorted(report.added) == sorted(f"{ROOT}/{p}" for p in INDEXED)
    assert [i.path for i in report.issues] == [f"{ROOT}/assets/data.json"]  # binary with a text suffix: one message
    assert "binary" in report.issues[0].message
    stored = {r["path"] for r in rows(store, "MATCH (d:__Document__ {projectId: $project}) RETURN d.path AS path")}
    assert stored == {f"{ROOT}/{p}" for p in INDEXED}


def test_gitignore_files_above_the_indexed_folder_apply_too(settings, store, embedder, tmp_path) -> None:
    top = tmp_path / "monorepo"
    root = copy_fixture(top)
    (top / ".git").mkdir()  # the repository's top: .gitignore files from here down to the indexed folder count
    (top / ".gitignore").write_text(f"{ROOT}/web/\n*.toml\n", encoding="utf-8")
    report = index(settings, store, embedder, root)
    left_out = {p for p in INDEXED if p.startswith("web/") or p.endswith(".toml")}
    assert left_out and sorted(report.added) == sorted(f"{ROOT}/{p}" for p in INDEXED - left_out)


def test_a_zipped_repository_is_read_the_same_way(settings, store, embedder, repo) -> None:
    archive = repo.parent / f"{ROOT}.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in sorted(repo.rglob("*")):
            if file.is_file():
                zf.write(file, file.relative_to(repo).as_posix())
    report = index(settings, store, embedder, archive)
    assert sorted(report.added) == sorted(f"{ROOT}.zip/{p}" for p in INDEXED)  # its .gitignore and vendored folders
    assert [i.path for i in report.issues] == [f"{ROOT}.zip/assets/data.json"]


def test_code_is_chunked_along_definitions_with_line_ranges(settings, store, embedder, repo) -> None:
    index(settings, store, embedder, repo)
    chunks = rows(
        store,
        "MATCH (c:__Chunk__ {projectId: $project}) RETURN c.path AS path, c.symbol AS symbol, "
        "c.line_start AS first, c.line_end AS last, c.text AS text",
    )
    by_symbol = {(c["path"], c["symbol"]): c for c in chunks if c["symbol"]}
    refunds = "shop/payments/refunds.py"
    limit = by_symbol[(f"{ROOT}/{refunds}", "refund_limit")]
    first = line_of(repo, refunds, "def refund_limit")
    lines = (repo / refunds).read_text().splitlines()
    assert (limit["first"], limit["last"]) == (first, first + 3)
    assert limit["text"] == "\n".join(lines[first - 1 : first + 3])
    assert (f"{ROOT}/web/src/format.ts", "formatPrice") in by_symbol
    doc_comment = by_symbol[(f"{ROOT}/web/src/format.ts", "formatPrice")]
    assert doc_comment["text"].startswith("/** Format cents")  # the comment above a definition goes with it
    markdown = [c for c in chunks if c["path"].endswith("architecture.md")]
    assert markdown and all(c["first"] >= 1 and c["last"] >= c["first"] for c in markdown)


def test_symbols_references_links_and_mcp_metadata(settings, store, embedder, repo) -> None:
    index(settings, store, embedder, repo)
    symbols = {
        (r["path"].removeprefix(f"{ROOT}/"), r["name"], r["kind"], r["line"])
        for r in rows(
            store,
            "MATCH (d:__Document__ {projectId: $project})-[:DEFINES]->(s:Symbol) "
            "WHERE s.path = d.path RETURN s.path AS path, s.name AS name, s.kind AS kind, s.line AS line",
        )
    }
    refunds = "shop/payments/refunds.py"
    assert (refunds, "Refund", "class", line_of(repo, refunds, "class Refund")) in symbols
    assert (refunds, "Refund.is_partial", "method", line_of(repo, refunds, "def is_partial")) in symbols
    assert ("web/src/format.ts", "Price", "interface", line_of(repo, "web/src/format.ts", "interface Price")) in symbols
    assert ("web/src/checkout.ts", "shippingNote", "function", 13) in symbols
    refers = {
        (r["from"].removeprefix(f"{ROOT}/"), r["to"].removeprefix(f"{PROJECT}:{ROOT}/"))
        for r in rows(
            store,
            "MATCH (d:__Document__ {projectId: $project})-[:REFERS_TO]->(s:Symbol) RETURN d.path AS from, s.id AS to",
        )
    }
    assert refers == {
        ("shop/cart.py", f"{refunds}"),  # from shop.payments import refunds (the package has no definitions)
        ("shop/cart.py", f"{refunds}#Refund"),
        ("shop/cart.py", f"{refunds}#refund_limit"),
        ("shop/payments/charges.py", f"{refunds}"),  # from . import refunds: the submodule
        ("shop/payments/charges.py", f"{refunds}#Refund"),  # from .refunds import Refund
        ("shop/payments/charges.py", f"{refunds}#refund_limit"),  # refunds.refund_limit(...) through the import
        ("web/src/checkout.ts", "web/src/format.ts#formatPrice"),
        ("web/src/checkout.ts", "web/src/format.ts#Price"),
    }  # json and the leftpad package resolve outside the repository: no reference
    links = {
        (r["path"].removeprefix(f"{ROOT}/"), r["url"])
        for r in rows(
            store,
            "MATCH (d:__Document__ {projectId: $project})-[:LINKS_TO]->(u:URL) RETURN d.path AS path, u.url AS url",
        )
    }
    assert links == {
        (refunds, "https://example.com/chargebacks"),
        (refunds, "https://example.com/refund-policy"),
        ("web/src/format.ts", "https://example.com/iso-4217"),
        ("docs/architecture.md", "https://example.com/chargebacks"),
        ("docs/architecture.md", "https://example.com/design-system"),
    }
    mcp = {
        (r["label"], r["name"], r["path"].removeprefix(f"{ROOT}/"))
        for r in rows(
            store,
            "MATCH (t)-[:DEFINED_IN]->(d:__Document__ {projectId: $project}) "
            "RETURN labels(t)[0] AS label, t.name AS name, d.path AS path",
        )
    }
    assert mcp == {
        ("Tool", "lookup_order", "manifest.json"),
        ("Tool", "refund_order", "manifest.json"),
        ("MCPServer", "shop", "mcp.json"),
    }
    stats = graph_stats(store, settings, PROJECT)
    assert (stats["references"], stats["links"], stats["mcp_tools"]) == (len(refers), 4, 2)
    assert stats["symbols"] == len(symbols)
    unscoped = rows(
        store,
        "MATCH (n) WHERE (n:Symbol OR n:URL OR n:Tool OR n:MCPServer) AND n.projectId <> $project RETURN n.id AS id",
    )
    assert unscoped == []


def test_reindexing_is_incremental_and_deletes_are_clean(settings, store, embedder, repo) -> None:
    index(settings, store, embedder, repo)
    assert not index(settings, store, embedder, repo).changed
    refunds = repo / "shop/payments/refunds.py"
    refunds.write_text(refunds.read_text().replace("refund_limit", "refundable"), encoding="utf-8")
    format_ts = repo / "web/src/format.ts"
    format_text = format_ts.read_text()
    format_ts.unlink()
    report = index(settings, store, embedder, repo)
    assert report.updated == [f"{ROOT}/shop/payments/refunds.py"] and report.deleted == [f"{ROOT}/web/src/format.ts"]
    names = {r["id"] for r in rows(store, "MATCH (s:Symbol {projectId: $project}) RETURN s.id AS id")}
    assert symbol_id(PROJECT, f"{ROOT}/shop/payments/refunds.py", "refundable") in names
    assert not {n for n in names if "refund_limit" in n or "format.ts" in n}
    refers = {
        r["to"]
        for r in rows(store, "MATCH (:__Document__ {projectId: $project})-[:REFERS_TO]->(s:Symbol) RETURN s.id AS to")
    }
    assert not {t for t in refers if "format.ts" in t or "refund_limit" in t}  # gone with their targets
    assert symbol_id(PROJECT, f"{ROOT}/shop/payments/refunds.py", "Refund") in refers
    urls = {r["url"] for r in rows(store, "MATCH (u:URL {projectId: $project}) RETURN u.url AS url")}
    assert "https://example.com/iso-4217" not in urls  # linked only from the deleted file
    assert "https://example.com/chargebacks" in urls
    chunks = rows(
        store, "MATCH (c:__Chunk__ {projectId: $project}) WHERE c.path CONTAINS 'format.ts' RETURN c.id AS id"
    )
    assert chunks == []
    format_ts.write_text(format_text, encoding="utf-8")  # back: the unchanged importer's reference resolves again
    report = index(settings, store, embedder, repo)
    assert report.added == [f"{ROOT}/web/src/format.ts"] and f"{ROOT}/web/src/checkout.ts" in report.unchanged
    refers = {
        r["to"]
        for r in rows(store, "MATCH (:__Document__)-[:REFERS_TO]->(s:Symbol {projectId: $project}) RETURN s.id AS to")
    }
    assert symbol_id(PROJECT, f"{ROOT}/web/src/format.ts", "formatPrice") in refers


@pytest.fixture
def cli_args(settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Point `python -m retrieval` at the test's store, whichever backend it is."""
    monkeypatch.chdir(tmp_path)  # no .env from the repository
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "NEO4J_URI", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    if not settings.neo4j_uri:
        return ["--graph", str(settings.embedded_graph_path)]
    monkeypatch.setenv("NEO4J_URI", settings.neo4j_uri)
    monkeypatch.setenv("NEO4J_USERNAME", settings.neo4j_username)
    monkeypatch.setenv("NEO4J_DATABASE", settings.neo4j_database)
    if settings.neo4j_password is not None:
        monkeypatch.setenv("NEO4J_PASSWORD", settings.neo4j_password.get_secret_value())
    return []


QUESTION = "How much can still be refunded for an order?"


def test_code_citations_show_path_and_lines(store, embedder, repo, cli_args, capsys) -> None:
    index(store.settings, store, embedder, repo)
    engine = Engine(store.settings, store=store, embedder=embedder)
    try:
        answer = engine.ask(QUESTION, "local", project=PROJECT)
    finally:
        engine.bus.close()  # the store is the fixture's to close
    first = line_of(repo, "shop/payments/refunds.py", "def refund_limit")
    where = f"{ROOT}/shop/payments/refunds.py:{first}-{first + 3}"
    sources = [c.source for c in answer.citations()]
    assert where in sources
    assert all(c.lines is not None for c in answer.citations())  # every file of a repository has lines
    payload = json.loads(answer.model_dump_json())
    assert payload["key_facts"][0]["citations"][0]["source"] == sources[0]
    assert main(["ask", QUESTION, "--project", PROJECT, *cli_args]) == 0
    assert where in capsys.readouterr().out
    assert main(["search", QUESTION, "--project", PROJECT, "--json", *cli_args]) == 0
    assert where in [row["lines"] for row in json.loads(capsys.readouterr().out)]


# --- this project's own repository -------------------------------------------------------------------
REPO = Path(__file__).resolve().parents[1]
#: From the store layer, the file that escapes fulltext queries and the adapters that import it to run them, which
#: talk about fulltext queries all the time (a third of the layer: the rest would only cost embedding time, over
#: a minute per backend on a busy 2-core machine).
SELF_SOURCE = REPO / "retrieval" / "store"
SELF_PROJECT = "driftlens-self"


@pytest.fixture(scope="module")
def self_indexed(module_store: GraphStore, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> GraphStore:
    folder = tmp_path_factory.mktemp("self") / "store"  # indexed as `store/…`, as the repository's own folder is
    folder.mkdir()
    for source in SELF_SOURCE.glob("*.py"):
        if source.name == "text_query.py" or "text_query import" in source.read_text(encoding="utf-8"):
            shutil.copy2(source, folder / source.name)
    report = run_index(module_store.settings, module_store, embedder, [folder], project=SELF_PROJECT)
    assert not report.issues
    return module_store


def test_own_repository_answers_where_the_fulltext_query_is_escaped(self_indexed, embedder) -> None:
    engine = Engine(self_indexed.settings, store=self_indexed, embedder=embedder)
    try:
        answer = engine.ask("where is the fulltext query escaped?", "local", project=SELF_PROJECT)
    finally:
        engine.bus.close()
    source = SELF_SOURCE / "text_query.py"
    escaping = {n for n, line in enumerate(source.read_text().splitlines(), 1) if "escape" in line or "SPECIAL" in line}
    top = [c.lines for c in answer.citations()[:3] if c.lines is not None]
    assert any(
        lines.path == "store/text_query.py" and escaping & set(range(lines.start, lines.end + 1)) for lines in top
    ), [str(lines) for lines in top]


def test_a_folder_named_explicitly_is_indexed_though_a_gitignore_above_ignores_it(
    settings, store, embedder, tmp_path
) -> None:
    top = tmp_path / "monorepo"
    root = copy_fixture(top / "scratch")
    (top / ".git").mkdir()
    (top / ".gitignore").write_text("scratch/\n", encoding="utf-8")  # a scratch area the repository never commits
    report = index(settings, store, embedder, root)
    assert sorted(report.added) == sorted(f"{ROOT}/{p}" for p in INDEXED)  # its own .gitignore still applies
