"""Turns of a transcript as evidence needs them: who speaks where a chunk begins, and what a turn answers.

Why: a chunk is cut by length, not by turn, so most chunks of an interview begin mid-turn with no speaker label,
and the guest's sentence that answers ("And the reason I got into biology and medicine was ...") was nobody's:
a question naming the guest could not prefer it over the host's introduction that merely names her. The
speaker at a chunk's start is the last label before that point in the chunks before it (`opening_speaker`).

And in an interview the host asks, the guest answers: "KEVIN SCOTT: And what did Loopt do?" is followed by
"SAM ALTMAN: We made location-based software for cell phones.", a sentence that shares no word with "What did
Sam Altman's company Loopt make?". So the first sentences of a turn carry the turn before them as their
`prompt`: how well that prompt matches the question is evidence that they answer it (`prompts`).

And what the host says of the guest answers questions about her too (`addresses`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from retrieval.context import Context
from retrieval.models import Hit
from retrieval.store.records import ident
from retrieval.text.speakers import LABEL, speaker_at, title_case

#: Hit metadata key: who speaks at the chunk's first character (set by `with_opening_speakers`).
OPENING_SPEAKER = "opening_speaker"
#: Chunks read back to find the last label before a chunk that opens mid-turn.
LOOKBACK = 3
#: Characters of a chunk's start looked for in the chunk before (chunks overlap).
ANCHOR = 60
#: A turn's sentences answering the turn before it, and how much of its match each keeps, by position.
PROMPT_DECAY = (1.0, 0.8, 0.6)
_SENTENCE_END = re.compile(r"[.!?]+[\"'’”)\]]*(?=\s|$)")
_CHUNK_ID = re.compile(r"^(?P<document>.+):(?P<n>\d+)$")


def opening_speaker(text: str, before: Sequence[str]) -> str | None:
    """Who speaks at the start of `text`, from the chunks `before` it (nearest first); None when no label says.

    Chunks overlap, so the start of `text` is looked for in the chunk before and the last label ahead of that
    point counts; a label inside the overlap would be in `text` too, ahead of its first words.
    """
    words = text[:ANCHOR].split()[:-1] or text.split()[:1]  # the last word may be cut
    anchor = re.compile(r"\s+".join(re.escape(w) for w in words)) if words else None
    for n, previous in enumerate(before):
        found_at = anchor.search(previous) if n == 0 and anchor is not None else None
        speaker = speaker_at(previous, found_at.start() if found_at else len(previous))
        if speaker is not None:
            return speaker
    return None


def with_opening_speakers(ctx: Context, hits: Sequence[Hit]) -> list[Hit]:
    """`hits` with OPENING_SPEAKER set on chunks that begin mid-turn in a transcript (one read of the chunks before).

    A chunk whose text starts with a label, whose id is not `<document id>:<n>` (a graph another tool built), or
    that a caller resolved already is returned as it is.
    """
    wanted: dict[str, list[str]] = {}
    for hit in hits:
        match = _CHUNK_ID.match(hit.id)
        if hit.kind != "chunk" or match is None or OPENING_SPEAKER in hit.metadata or _opens_with_label(hit.text):
            continue
        n = int(match["n"])
        wanted[hit.id] = [f"{match['document']}:{k}" for k in range(n - 1, max(n - 1 - LOOKBACK, -1), -1)]
    ids = sorted({i for previous in wanted.values() for i in previous})
    if not ids:
        return list(hits)
    s = ctx.settings
    rows = ctx.store.read(
        f"MATCH (c:{ident(s.chunk_label)}) WHERE c.id IN $ids AND {ctx.in_scope('c')} "
        f"RETURN c.id AS id, c.{ident(s.text_property)} AS text",
        {"ids": ids, "project": ctx.project},
    )
    texts = {str(r["id"]): str(r["text"] or "") for r in rows}
    out = []
    for hit in hits:
        previous = [texts[i] for i in wanted.get(hit.id, []) if i in texts]
        speaker = opening_speaker(hit.text, previous) if previous else None
        resolved = hit.id in wanted  # None when no label says: read once, not again by the next caller
        out.append(hit.model_copy(update={"metadata": {**hit.metadata, OPENING_SPEAKER: speaker}}) if resolved else hit)
    return out


def _opens_with_label(text: str) -> bool:
    first = LABEL.search(text)
    return first is not None and not text[: first.start()].strip()


def speaker_of(hit: Hit, offset: int) -> str | None:
    """Who says the words at `offset` of a chunk: the last label before it, else who spoke at the chunk's start."""
    return speaker_at(hit.text, offset) or hit.metadata.get(OPENING_SPEAKER)


def prompt(text: str, offset: int) -> tuple[list[str], float]:
    """The sentences of the turn before the one holding `offset`, and how much they count for a sentence there.

    A turn's first sentence counts fully, the next ones less (`PROMPT_DECAY`), later ones not at all: a guest
    answers the host's question first. No turn before it in the chunk (or no labels): nothing.
    """
    turns = [(m.start(), m.end(), title_case(m.group("label"))) for m in LABEL.finditer(text)]
    mine = [t for t in turns if t[1] <= offset]
    if not mine:
        return [], 0.0
    start, end, _speaker = mine[-1]
    position = len(_SENTENCE_END.findall(text[end:offset]))
    if position >= len(PROMPT_DECAY):
        return [], 0.0
    before = mine[-2][1] if len(mine) > 1 else 0
    asked = [s.strip() for s in _split(text[before:start]) if s.strip()]
    return asked, PROMPT_DECAY[position] if asked else 0.0


def _split(text: str) -> list[str]:
    out, last = [], 0
    for match in _SENTENCE_END.finditer(text):
        out.append(text[last : match.end()])
        last = match.end()
    out.append(text[last:])
    return out


#: A sentence about someone it does not name: what others say of a guest ("She worked as ...", "you brought up ...").
_ABOUT_SOMEONE = re.compile(r"\b(?:she|he|her|his|you|your)\b", re.IGNORECASE)


def addresses(sentence: str, passage: str, people: Collection[str]) -> bool:
    """Whether a sentence is about one of `people` without naming them: it says "she", "he" or "you" in a passage
    that names them (or holds their turns, whose labels name them).

    Why: "Which Tesla car did Mira Murati help develop?" is answered by the host's introduction, "She worked as an
    engineer and product manager, most notably helping to develop the Tesla Model X."; only her own sentences were
    credited with stating her name, and five of them about Tesla in general were chosen instead (evidence's
    `states` now counts the person for such a sentence: on the demo dev split, 29 -> 30 of 36 by hit@5)."""
    text = passage.lower()
    return bool(_ABOUT_SOMEONE.search(sentence)) and any(person.lower() in text for person in people)
