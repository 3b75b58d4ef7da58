"""The collection's themes, for a question that asks for them ("What are the main themes?").

Why not the reports nearest the question: a question about the whole collection has no content words to
match, so the embedding similarity of "main themes" to each report favours small trivia communities ("Hurricane
Irma & Category 3"), and their sentences do not say "theme" either. The themes of a collection are its
communities with the most evidence behind them (`rank`: the log of their source chunks offline, the model's
rating with one), at the coarsest level that still has several: their titles name the themes, their summaries
are the facts that support them, and each theme says how many documents it rests on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from retrieval.context import Context
from retrieval.models import Hit
from retrieval.search.community_context import community_chunk_ids
from retrieval.search.keywords import STOPWORDS
from retrieval.store.records import ident

#: A level is coarse enough for themes when it still has this many communities.
MIN_THEMES = 4
#: Words a question about the collection's themes is made of: what it asks for ("themes", "topics"), how it
#: weighs them ("main", "recurring") and what it calls the collection ("episodes", "corpus").
_THEME_ASKED = frozenset({"theme", "themes", "topic", "topics", "subject", "subjects"})
_THEME_WORDS = _THEME_ASKED | frozenset(
    {
        "main", "key", "major", "central", "biggest", "big", "most", "important", "recurring", "common", "overall",
        "general", "broad", "top", "primary", "ideas", "idea", "discussed", "covered", "cover", "covers", "talked",
        "talk", "discuss", "addressed", "explored", "run", "runs", "running", "through", "across", "corpus",
        "collection", "documents", "document", "episodes", "episode", "podcast", "podcasts", "texts", "text",
        "files", "book", "books", "dataset", "data", "set", "graph", "these", "this", "all", "whole", "entire",
        "list", "give", "summarise", "summarize", "summary", "overview", "mostly", "kinds", "kind", "sort",
        "sorts", "come", "comes", "coming", "emerge", "emerges", "appear", "appears"
    }
)  # fmt: skip
_WORD = re.compile(r"[a-z]+")
#: "What is this collection about?": the collection's themes asked without the word.
_ABOUT = re.compile(r"^\s*what\b.*\babout\W*$", re.IGNORECASE)


def theme_question(question: str) -> bool:
    """Whether a question asks for the collection's themes and nothing more ("What are the main themes?",
    "Which topics do these episodes cover?", "What is this corpus about?"); "What are the themes of Scrooge's
    story?" names what it asks about, so it is not one."""
    words = [w for w in _WORD.findall(question.lower()) if w not in STOPWORDS]
    asks = any(w in _THEME_ASKED for w in words) or bool(words and _ABOUT.match(question))
    return asks and all(w in _THEME_WORDS for w in words)


def theme_level(levels: Sequence[int], counts: dict[int, int]) -> int | None:
    """The coarsest level with at least MIN_THEMES communities, else the finest (a small graph)."""
    several = [level for level in levels if counts.get(level, 0) >= MIN_THEMES]
    return max(several) if several else min(levels, default=None)


def level_counts(ctx: Context) -> dict[int, int]:
    rows = ctx.store.read(
        f"MATCH (k:{ident(ctx.settings.community_label)}) WHERE {ctx.in_scope('k')} AND k.level IS NOT NULL "
        "RETURN k.level AS level, count(k) AS n",
        {"project": ctx.project},
    )
    return {int(r["level"]): int(r["n"]) for r in rows}


def theme_hits(ctx: Context, level: int | None, k: int) -> list[Hit]:
    """The `k` communities of `level` with the most evidence, best first, scored 0-1 against the best."""
    where = " AND k.level = $level" if level is not None else ""
    rows = ctx.store.read(
        f"MATCH (k:{ident(ctx.settings.community_label)}) WHERE {ctx.in_scope('k')}{where} "
        "RETURN k.id AS id, k.level AS level, k.title AS title, k.summary AS summary, k.rank AS rank "
        "ORDER BY coalesce(k.rank, 0) DESC, k.id LIMIT $k",
        {"project": ctx.project, "level": level, "k": k},
    )
    best = max((float(r["rank"] or 0) for r in rows), default=0.0) or 1.0
    return [
        Hit(
            id=str(r["id"]),
            kind="community",
            text=str(r["summary"] or ""),
            score=float(r["rank"] or 0) / best,
            metadata={"level": r["level"], "title": r["title"] or r["id"], "rank": r["rank"]},
            sources={"rank": float(r["rank"] or 0)},
        )
        for r in rows
    ]


def documents_under(ctx: Context, community_ids: Sequence[str]) -> dict[str, int]:
    """How many documents each community's chunks come from (chunk ids are `document:index`)."""
    return {
        community: len({chunk.rsplit(":", 1)[0] for chunk in chunks})
        for community, chunks in community_chunk_ids(ctx, community_ids).items()
    }
