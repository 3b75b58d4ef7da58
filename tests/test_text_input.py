"""Text no encoder accepts (lone surrogates, invalid UTF-8 in argv, control characters) is cleaned at the boundary:
through the Engine (every mode and search) and through the CLI, which run to an answer instead of a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.modes import MODES
from retrieval.store import open_store
from retrieval.text.clean import REPLACEMENT, clean_text
from tests.conftest import SEARCH_PROJECT, build_search_graph

REPO = Path(__file__).resolve().parents[1]
BROKEN = "Marie \ud800 Curie \udcff polonium\x00\x1b[31m"


def test_clean_text_replaces_lone_surrogates_joins_pairs_and_blanks_controls() -> None:
    assert clean_text("a\udcffb") == f"a{REPLACEMENT}b"
    assert clean_text("smile \ud83d\ude00") == "smile \U0001f600"  # a pair, as JavaScript spells it
    assert clean_text("line one\nline\ttwo\x00\x1b") == "line one\nline\ttwo  "
    assert clean_text("Cafe\u0301") == "Café"
    assert clean_text(BROKEN).encode("utf-8")  # always encodable


def test_engine_answers_text_with_lone_surrogates_in_every_mode(settings: Settings, embedder: Embedder) -> None:
    with open_store(settings) as store:
        build_search_graph(store, embedder)
        engine = Engine(settings, store=store, embedder=embedder, llm=None)
        for mode in MODES:
            answer = engine.ask(BROKEN, mode, project=SEARCH_PROJECT)
            assert answer.question == clean_text(BROKEN).strip(), mode
            if mode == "local":
                assert answer.citations()[0].chunk_id == "c1"


def _cli_env(settings: Settings) -> dict[str, str]:
    """The parent's environment without any graph or model configuration, then the test graph's."""
    prefixes = ("DRIFTLENS_", "NEO4J_", "OPENAI_", "AZURE_OPENAI_", "OAI_", "REDIS_URL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(PYTHONPATH=str(REPO), DRIFTLENS_DATA_DIR=str(settings.data_dir))
    if settings.neo4j_uri:
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        env.update(NEO4J_URI=settings.neo4j_uri, NEO4J_USERNAME=settings.neo4j_username, NEO4J_PASSWORD=password)
    else:
        env["DRIFTLENS_GRAPH_PATH"] = str(settings.embedded_graph_path)
    return env


def _cli(settings: Settings, *args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "retrieval", *args],
        cwd=settings.data_dir,  # no .env there
        env=_cli_env(settings),
        capture_output=True,
        timeout=300,
        check=False,
    )


def test_cli_search_and_ask_accept_invalid_utf8_in_argv(settings: Settings, embedder: Embedder) -> None:
    with open_store(settings) as store:
        build_search_graph(store, embedder)
    question = b"Marie \xff Curie polonium"  # argv bytes that are not UTF-8, as a latin-1 terminal sends them
    search = _cli(settings, "search", question, "--project", SEARCH_PROJECT, "--json")
    assert search.returncode == 0, search.stderr.decode(errors="replace")
    assert json.loads(search.stdout)[0]["chunk_id"] == "c1"
    ask = _cli(settings, "ask", question, "--project", SEARCH_PROJECT, "--json")
    assert ask.returncode == 0, ask.stderr.decode(errors="replace")
    assert json.loads(ask.stdout)["question"] == f"Marie {REPLACEMENT} Curie polonium"


def test_stats_json_into_a_reader_that_left_ends_without_a_traceback(settings: Settings) -> None:
    with open_store(settings):
        pass  # an empty graph is enough: stats still prints a JSON object
    reader_gone = subprocess.Popen(
        [sys.executable, "-m", "retrieval", "stats", "--json"],
        cwd=settings.data_dir,
        env=_cli_env(settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader_gone.stdout is not None and reader_gone.stderr is not None
    reader_gone.stdout.close()  # `| head -1` that has already left, before the command prints
    stderr = reader_gone.stderr.read().decode(errors="replace")
    assert reader_gone.wait(timeout=300) == 1
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
