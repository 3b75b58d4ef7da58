"""`search` and `ask` commands: ranked chunks (re-ranked through the graph) and an Answer in any mode."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from retrieval.cli import add_graph_options, settings_from_args, text_argument
from retrieval.engine import Engine
from retrieval.errors import ConfigError
from retrieval.models import Answer, Hit, QueryParams
from retrieval.modes import MODES


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    search = sub.add_parser("search", help="ranked chunk hits (hybrid search re-ranked through the graph)")
    search.add_argument("query", type=text_argument)
    _tuning_options(search)
    add_graph_options(search)
    search.set_defaults(func=run_search)

    ask = sub.add_parser("ask", help="answer a question in any mode")
    ask.add_argument("question", type=text_argument)
    ask.add_argument("--mode", choices=MODES, default="local")
    ask.add_argument("--trace", action="store_true", help="print the reasoning trace")
    _tuning_options(ask)
    add_graph_options(ask)
    ask.set_defaults(func=run_ask)


def _tuning_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--top-k", type=int, default=None)
    parser.add_argument("--alpha", type=float, default=None, help="vector weight in linear fusion (0..1)")
    parser.add_argument("--fusion", choices=("linear", "rrf"), default=None)
    parser.add_argument("--search-type", choices=("vector", "fulltext", "hybrid"), default=None)
    parser.add_argument("--hops", type=int, default=None, help="graph expansion hops (0 = none)")
    parser.add_argument("--drift-budget", type=float, default=None, help="expansion stops at this total score")
    parser.add_argument("--direction", choices=("out", "in", "both"), default=None, help="directed edges to follow")


def _params(engine: Engine, args: argparse.Namespace) -> QueryParams:
    try:
        return engine.params(
            top_k=args.top_k,
            alpha=args.alpha,
            fusion=args.fusion,
            search_type=args.search_type,
            max_hops=args.hops,
            drift_budget=args.drift_budget,
            expansion_direction=args.direction,
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"Invalid search options: {problems}") from None


def run_search(args: argparse.Namespace) -> int:
    """The Engine's search, as the service runs it: a query `ask` would find nothing to search in finds nothing.
    It prints chunks only, so the neighbours' walk, which does not change them, is not run."""
    engine = Engine(settings_from_args(args))
    try:
        found = engine.search(args.query, _params(engine, args), walk=False)
    finally:
        engine.close()
    rows = [_hit_row(h) for h in found.chunks]
    if found.no_data:  # on stderr, so `--json` output stays a plain list
        Console(stderr=True).print(found.no_data, markup=False)
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    console = Console()
    for n, row in enumerate(rows, start=1):
        sources = ", ".join(f"{k} {v:.3f}" for k, v in row["sources"].items())
        where = row["lines"] or row["document"]
        console.print(f"[bold]{n}. {where}[/] score {row['score']:.3f} ({sources}) [dim]{row['chunk_id']}[/]")
        console.print("   " + " ".join(row["text"].split())[:300], markup=False)
    return 0


def _hit_row(hit: Hit) -> dict[str, Any]:
    return {
        "chunk_id": hit.id,
        "document": hit.document_name or hit.document_id or "",
        "lines": str(hit.lines) if hit.lines else None,
        "score": round(hit.score, 6),
        "text": hit.text,
        "sources": {k: round(v, 6) for k, v in hit.sources.items()},
    }


def run_ask(args: argparse.Namespace) -> int:
    engine = Engine(settings_from_args(args))
    try:
        answer = engine.ask(args.question, args.mode, _params(engine, args))
    finally:
        engine.close()
    if args.json:
        payload = answer.model_dump(mode="json", exclude=set() if args.trace else {"trace"})
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    _print_answer(Console(), answer, trace=args.trace)
    return 0


def _print_answer(console: Console, answer: Answer, *, trace: bool) -> None:
    if answer.no_data_found:
        console.print("[yellow]No data found.[/] " + " ".join(answer.notes), markup=True)
        return
    console.print(f"[bold]{answer.mode} answer[/] ({answer.answered_by})")
    console.print(answer.final_answer, markup=False)
    for n, fact in enumerate(answer.key_facts, start=1):
        sources = "; ".join(c.source for c in fact.citations)
        console.print(f"  [{n}] {fact.fact}  — {sources}", markup=False)
    for note in answer.notes:
        console.print(f"[yellow]note[/] {note}")
    if trace:
        for step in answer.trace:
            console.print(
                f"  [dim]{step.kind}[/] {step.id} <- {step.parent_id or '-'} {step.duration_ms:.0f} ms "
                f"{len(step.chunk_ids)} chunks {step.question[:80]}",
                markup=True,
            )
    usage = answer.usage
    console.print(f"[dim]{usage.llm_calls} LLM calls, {usage.wall_ms:.0f} ms, ${usage.cost_usd:.4f}[/]")
