"""Which retrieval knobs each mode reads, and what they did to an answer.

Why: a person tuning sliders needs to know whether a knob can matter for the mode at hand (global
search never reads top-k or hops) and whether moving it changed anything (a node cap that is never
reached changes nothing). The UI disables knobs a mode ignores and shows `effects` under each answer;
both come from here so the CLI or an HTTP API can say the same.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from retrieval.models import Answer, Mode
from retrieval.modes import MODES

#: QueryParams field -> the modes whose answers it can change (read from the code paths that use it; the agent
#: picks its own search sizes, so with a model no knob reaches it).
KNOB_MODES: dict[str, tuple[Mode, ...]] = {
    "fusion": ("local", "drift"),
    "alpha": ("local", "drift"),
    "top_k": ("local", "drift"),
    "max_hops": ("local", "drift"),
    "max_nodes": ("local", "drift"),
    "degree_penalty": ("local", "drift"),
    "recency_weight": ("local", "drift"),
    "drift_budget": ("local", "drift"),
    "expansion_direction": ("local", "drift"),
    "drift_rounds": ("drift",),
    "drift_followups_per_round": ("drift",),
    "drift_primer_communities": ("drift",),
    "global_level": ("global",),
}


_NAMES: dict[Mode, str] = {"local": "Local", "global": "Global", "drift": "DRIFT", "agent": "Agent"}


def affects(knob: str, mode: Mode) -> bool:
    """Whether `knob` can change an answer in `mode` (knobs not listed affect every mode)."""
    return mode in KNOB_MODES.get(knob, (mode,))


def modes_text(knob: str) -> str:
    """'Affects: Local, DRIFT' for a knob's help text."""
    return "Affects: " + ", ".join(_NAMES[m] for m in KNOB_MODES.get(knob, MODES))


class Effects(BaseModel):
    """What the knobs produced in one answer: how much evidence, how far the graph walk went, whether it was cut."""

    evidence: int = 0
    cited: int = 0
    expanded_entities: int | None = None
    truncated: bool | None = None
    steps: int = 0


def effects(answer: Answer) -> Effects:
    search = next((s for s in answer.trace if s.kind == "search"), None)
    details: dict[str, Any] = search.details if search else {}
    return Effects(
        evidence=len(answer.evidence),
        cited=len({c.chunk_id for c in answer.citations()}),
        expanded_entities=details.get("expanded_entities"),
        truncated=details.get("expansion_truncated"),
        steps=len(answer.trace),
    )


def describe(answer: Answer) -> str:
    """One line: the evidence count, expansion and truncation this answer's knobs led to."""
    found = effects(answer)
    parts = [f"{found.evidence} evidence items", f"{found.cited} cited"]
    if found.expanded_entities is not None:
        cut = "cap reached" if found.truncated else "cap not reached"
        parts.append(f"{found.expanded_entities} entities expanded ({cut})")
    if answer.mode in ("drift", "global"):
        parts.append(f"{found.steps} reasoning steps")
    return " · ".join(parts)


def changes(before: Answer, after: Answer) -> str:
    """What moved between two answers of the same mode: the knobs that differ, and which cited passages, entities
    and evidence changed (by id: moving alpha can swap the cited chunks and keep their count)."""
    moved = [
        f"{name.replace('_', ' ')} {before.params[name]} → {after.params[name]}"
        for name in KNOB_MODES
        if name in before.params
        and name in after.params
        and before.params[name] != after.params[name]
        and affects(name, after.mode)
    ]
    if not moved:
        return ""
    diffs = [
        _diff(label, old, new)
        for label, old, new in (
            ("cited passages", _cited(before), _cited(after)),
            ("entities", _entities(before), _entities(after)),
            ("evidence", {h.id for h in before.evidence}, {h.id for h in after.evidence}),
        )
        if old != new
    ]
    effect = "; ".join(diffs) if diffs else "the same passages and entities were cited"
    return f"Since the previous {after.mode} answer: {', '.join(moved)} — {effect}."


def _cited(answer: Answer) -> set[str]:
    return {c.chunk_id for c in answer.citations() if c.kind != "node"}


def _entities(answer: Answer) -> set[str]:
    """The entities the answer stands on: the search's seed entities and any cited entity node."""
    search = next((s for s in answer.trace if s.kind == "search"), None)
    seeds = {str(t) for t in (search.details.get("seed_entities", []) if search else [])}
    return seeds | {c.chunk_id for c in answer.citations() if c.kind == "node"}


def _diff(label: str, old: set[str], new: set[str]) -> str:
    """'cited passages: 2 new, 1 no longer' (which ones, not how many: the same count can be other passages)."""
    parts = [f"{len(new - old)} new"] if new - old else []
    parts += [f"{len(old - new)} no longer"] if old - new else []
    return f"{label}: {', '.join(parts)}"
