"""A small real graph for the app tests: part of A Christmas Carol, indexed offline, plus a few memories.

Built once per test process (AppTest and the browser tests share it): indexing costs ~10 s on 2 cores.
"""

from __future__ import annotations

import functools
from pathlib import Path

from retrieval.config import Settings, load_settings
from retrieval.conversation.memory import MemoryMessage, MemoryStore, Scope
from retrieval.embed import make_embedder
from retrieval.indexing import run_index
from retrieval.store import GraphStore, open_store

ROOT = Path(__file__).resolve().parents[2]
CAROL = ROOT / "data" / "demo" / "a-christmas-carol" / "a-christmas-carol.txt"
#: Characters of the novel to index: the opening of Stave One (Scrooge, Marley, Bob Cratchit, the nephew).
EXCERPT_CHARS = 14_000
MEMORY_SCOPE = Scope(application_id="driftlens-tests", user_id="analyst")


@functools.cache
def demo_graph(root: Path) -> Path:
    """Index the excerpt into the embedded graph `root/graph.db` (once per process); returns the graph path."""
    path = root / "graph.db"
    settings = load_settings(
        _env_file=None,
        graph_path=path,
        data_dir=root,
        neo4j_uri=None,
        openai_api_key=None,
        openai_base_url=None,
        azure_openai_endpoint=None,
        redis_url=None,
    )
    with open_store(settings) as store:
        build_demo(settings, store, root)
    return path


def build_demo(settings: Settings, store: GraphStore, root: Path) -> None:
    """The excerpt indexed offline into `store`, plus a few memories (on either backend)."""
    root.mkdir(parents=True, exist_ok=True)
    source = root / "docs" / "carol-stave-one.txt"
    source.parent.mkdir(exist_ok=True)
    text = CAROL.read_text(encoding="utf-8")
    start = text.find("\nSTAVE ONE\n")
    source.write_text(text[max(start, 0) : max(start, 0) + EXCERPT_CHARS], encoding="utf-8")
    embedder = make_embedder(settings)
    run_index(settings, store, embedder, [source.parent], project=settings.project)
    MemoryStore(store, settings, embedder).add(
        MEMORY_SCOPE,
        [
            MemoryMessage(role="user", text="I am researching how Scrooge treats Bob Cratchit."),
            MemoryMessage(role="assistant", text="Scrooge keeps Bob Cratchit's fire very small."),
            MemoryMessage(role="user", text="Marley was Scrooge's business partner."),
        ],
    )


def app_env(graph: Path) -> dict[str, str]:
    """Environment for an app process on `graph`: embedded backend, no LLM, no Redis."""
    return {
        "DRIFTLENS_GRAPH_PATH": str(graph),
        "DRIFTLENS_DATA_DIR": str(graph.parent),
        "NEO4J_URI": "",
        "OPENAI_API_KEY": "",
        "OPENAI_BASE_URL": "",
        "AZURE_OPENAI_ENDPOINT": "",
        "OAI_BASE_URL": "",
        "REDIS_URL": "",
    }
