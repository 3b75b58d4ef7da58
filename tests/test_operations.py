"""The RAG decision record's operational pieces (#28 item 10): the Grafana dashboard queries only metrics the
service exports (and covers every one), and the CI example runs only real CLI commands and, run on a real git
history against a real embedded graph, re-indexes exactly what a merge changed."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from prometheus_client import Counter, Histogram

from retrieval.cli import build_parser
from retrieval.service import metrics
from retrieval.store import open_store
from tests.conftest import make_settings

ROOT = Path(__file__).resolve().parents[1]
DASHBOARD = ROOT / "deploy" / "grafana" / "driftlens.json"
WORKFLOW = ROOT / "examples" / "ci" / "reindex-changed.yml"
SERIES = re.compile(r"\bdriftlens_[a-z_]+\b")
SELECTOR = re.compile(r"(driftlens_[a-z_]+)\{([^}]*)\}")
GROUPING = re.compile(r"\bby \(([^)]*)\)")


# --- Grafana dashboard ------------------------------------------------------------------------------------
def _exported() -> dict[str, set[str]]:
    """Every series name the service's metrics expose, with the labels a query may use on it."""
    series: dict[str, set[str]] = {}
    for metric in vars(metrics).values():
        if not isinstance(metric, (Counter, Histogram)):
            continue
        labels = set(metric._labelnames)
        (family,) = metric.describe()
        if isinstance(metric, Counter):
            series[f"{family.name}_total"] = labels
        else:
            series.update({f"{family.name}_{suffix}": labels | {"le"} for suffix in ("bucket", "count", "sum")})
    return series


def _expressions(dashboard: dict[str, Any]) -> list[str]:
    panels = [p for top in dashboard["panels"] for p in (top, *top.get("panels", []))]
    exprs = [t["expr"] for p in panels for t in p.get("targets", [])]
    exprs += [v["definition"] for v in dashboard["templating"]["list"] if "definition" in v]
    return exprs


def test_the_dashboard_queries_only_exported_metrics_and_labels_and_covers_every_metric() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    exported = _exported()
    expressions = _expressions(dashboard)
    assert len(expressions) >= 10
    used: set[str] = set()
    for expr in expressions:
        names = set(SERIES.findall(expr))
        unknown = names - exported.keys()
        assert not unknown, f"{expr}: no such metric {unknown}"
        used |= names
        allowed = set().union(*(exported[n] for n in names))
        for name, matchers in SELECTOR.findall(expr):
            keys = {m.split("=")[0].rstrip("!~").strip() for m in matchers.split(",") if m.strip()}
            assert keys <= exported[name], f"{expr}: {name} has no label {keys - exported[name]}"
        for grouping in GROUPING.findall(expr):
            keys = {k.strip() for k in grouping.split(",")}
            assert keys <= allowed, f"{expr}: grouped by unknown labels {keys - allowed}"
    families = {re.sub(r"_(total|bucket|count|sum)$", "", name) for name in exported}
    assert families <= {re.sub(r"_(total|bucket|count|sum)$", "", name) for name in used}
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))


# --- CI workflow example ------------------------------------------------------------------------------------
def _run_scripts() -> list[str]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    return [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]


def _cli_calls(script: str) -> list[list[str]]:
    calls = []
    for line in script.splitlines():
        if "python -m retrieval " in line:
            words = shlex.split(line.split("python -m retrieval ", 1)[1])
            calls.append([w for w in words if w not in (";", "then", "do", "fi", "done")])
    return calls


def test_the_ci_example_runs_only_commands_and_options_the_cli_has() -> None:
    calls = [call for script in _run_scripts() for call in _cli_calls(script)]
    assert [call[0] for call in calls] == ["index", "remove"]
    parser = build_parser()
    for call in calls:
        args = parser.parse_args(call)  # argparse exits (SystemExit) on an unknown command or option
        assert args.project == "$DRIFTLENS_PROJECT"


def test_commands_on_the_graph_file_as_a_whole_offer_no_options_they_would_ignore() -> None:
    """`repair` and `stop` act on an embedded graph's server, not on a project, and print one line: a `--project`
    or `--json` they accepted would be silently ignored, so argparse refuses them; the project commands keep both."""
    parser = build_parser()
    for command in ("repair", "stop"):
        assert parser.parse_args([command, "--graph", "g.db"]).graph == "g.db"
        for option in (["--project", "p"], ["--json"]):
            try:
                parser.parse_args([command, *option])
            except SystemExit as exc:
                assert exc.code == 2
            else:
                raise AssertionError(f"{command} accepted {option[0]}")
    assert parser.parse_args(["stats", "--project", "p", "--json"]).json


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@x"
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def test_the_ci_example_reindexes_exactly_what_a_merge_changed(tmp_path: Path) -> None:
    repo, docs = tmp_path / "kb", tmp_path / "kb" / "docs"
    docs.mkdir(parents=True)
    texts = {
        "kept.md": "The Orion probe launches from Kourou in March.",
        "edited.md": "The budget is 300 million euros.",
        "gone.md": "The cafeteria serves espresso.",
    }
    for name, text in texts.items():
        (docs / name).write_text(text + "\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "knowledge base")
    before = _git(repo, "rev-parse", "HEAD")
    settings = make_settings(tmp_path, project="docs")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "DRIFTLENS_GRAPH_PATH": str(settings.embedded_graph_path),
        "DRIFTLENS_DATA_DIR": str(tmp_path),
        "NEO4J_URI": "",
        "DRIFTLENS_PROJECT": "docs",
        "KB_DIR": "docs",
    }
    bootstrap = ["python", "-m", "retrieval", "index", "--project", "docs", *(f"docs/{n}" for n in texts)]
    subprocess.run(bootstrap, cwd=repo, env=env, check=True, capture_output=True)
    (docs / "edited.md").write_text("The budget is 420 million euros, approved in 2024.\n")
    (docs / "gone.md").unlink()
    (docs / "added.md").write_text("Dr. Ana Ruiz leads the science team.\n")
    (docs / "notes.png").write_bytes(b"\x89PNG not a document")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "merge")
    (script,) = [s for s in _run_scripts() if "git diff" in s]

    done = subprocess.run(
        ["bash", "-c", script],
        check=False,  # the exit code is asserted below, with the script's stderr
        cwd=repo,
        env={**env, "BEFORE": before, "AFTER": _git(repo, "rev-parse", "HEAD")},
        capture_output=True,
        text=True,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("re-indexed 2 document(s), removed 1")
    with open_store(settings) as store:
        rows = store.read("MATCH (d:__Document__)-[:HAS_CHUNK]->(c:__Chunk__) RETURN d.path AS path, c.text AS text")
    texts_now = {r["path"]: r["text"] for r in rows}
    assert sorted(texts_now) == ["added.md", "edited.md", "kept.md"]
    assert "420 million euros" in texts_now["edited.md"]
