"""Transcript speaker labels ("KEVIN SCOTT: ...", "KEVIN SCOTT/ANDREW NG: ...") found in text.

Why a module of its own: a label is the strongest evidence there is that a name is a PERSON (the
small spaCy model tags upper-case labels as ORG), a shared label names two people, not one
organisation, and both extraction and answering (speaker-aware evidence) need to read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = r"[A-Z][A-Z'’.\-]*[A-Z]"
_NAME = rf"{_WORD}(?:[ \t]+{_WORD}){{1,3}}"
#: At a line start: one to three upper-case names of 2-4 words, joined by "/", then a colon.
LABEL = re.compile(rf"(?m)^[ \t]*(?P<label>{_NAME}(?:[ \t]*/[ \t]*{_NAME}){{0,2}})[ \t]*:")


@dataclass(frozen=True)
class Label:
    """One speaker label occurrence: the names it gives (title case) and where the label ends in the text."""

    names: tuple[str, ...]
    start: int
    end: int


def title_case(label: str) -> str:
    """'FEI-FEI LI' -> 'Fei-Fei Li' (a label is upper case; the entity title should not be)."""
    return " ".join(word.title() for word in label.split())


def labels(text: str) -> list[Label]:
    """Every speaker label of `text`, in order."""
    return [
        Label(tuple(title_case(part.strip()) for part in m.group("label").split("/")), m.start(), m.end())
        for m in LABEL.finditer(text)
    ]


def speaker_at(text: str, offset: int) -> str | None:
    """Who is speaking at `offset` of `text`: the names of the last label before it (None when unlabelled)."""
    found = None
    for label in LABEL.finditer(text, 0, offset):
        found = label
    if found is None:
        return None
    return " / ".join(title_case(part.strip()) for part in found.group("label").split("/"))


#: A label anywhere, as a sentence splitter glues it to the sentence before ("... Andrew Ng. CHRISTINA WARREN:").
_INNER_LABEL = re.compile(rf"\s(?:{_NAME}(?:[ \t]*/[ \t]*{_NAME}){{0,2}})[ \t]*:")


def strip_label(sentence: str) -> str:
    """A sentence without the speaker label it starts with, and without the next turn a splitter glued on."""
    match = LABEL.match(sentence)
    said = sentence[match.end() :].lstrip() if match else sentence
    inner = _INNER_LABEL.search(said)
    return said[: inner.start()].rstrip() if inner else said
