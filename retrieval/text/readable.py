"""Text as an extractive answer shows it: spoken fillers removed, boilerplate recognised, stop-word-only input caught.

Why display-only cleaning: an offline answer is extraction, so what it shows must be what the source
says. Removing "um", "you know" and stutters ("I I think") makes a transcript sentence readable
without changing its claim; the citation keeps the verbatim span, so the highlight in the chunk and
any check against the source still use the exact words. A quote stays a quote: every stretch of words left
out is shown as "…" (a word said twice in a row is shown once, unmarked: the shown words still run in the
source in that order), so each part between the marks is verbatim (`confidence.quote_match` checks it).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from spacy.lang.en.stop_words import STOP_WORDS

_WORD = re.compile(r"\w+(?:['’]\w+)?")
#: Sounds and set phrases that carry no content in speech ("you know" only when set off by commas).
_FILLERS = re.compile(
    r"(?:,\s*|\b)(?:u+m+|u+h+|e+r+m+|h+m+|mm-hmm|uh-huh)\b[,.]?\s*"
    r"|,\s*(?:you know|I mean|sort of|kind of|like)\s*,"
    r"|^\s*(?:you know|I mean)\s*,\s*",
    re.IGNORECASE,
)
#: A word or two-word phrase said twice in a row: "I I think", "it was it was".
_REPEAT = re.compile(r"\b(\w+(?:\s+\w+)?)(?:[\s,]+\1\b)+", re.IGNORECASE)
#: Openers that only mark a turn: "Yeah, so, ..." -> "...".
_OPENER = re.compile(r"^(?:(?:yeah|yes|so|and so|and|well|oh|right|okay|ok|look|but)\b[,.]?\s+)+", re.IGNORECASE)
#: A sentence abandoned mid-way ends with a dash or an ellipsis: drop the dangling tail.
_DANGLING = re.compile(r"\s*(?:—|--|–|\.\.\.|…)\s*[^—–.…]{0,40}$")
#: What marks left-out words in a shown quote.
ELLIPSIS = "…"
NO_WORDS = "The question has no words to search for."
NOTHING_TO_SEARCH = "The question has only common words (like 'the', 'of', 'and'): there is nothing to search for."
#: A normalised sentence seen in this many documents is boilerplate (show intros, sponsor lines).
BOILERPLATE_DOCUMENTS = 3


def clean_spoken(text: str) -> str:
    """`text` without fillers, stutters, turn openers and a dangling tail, each left-out stretch shown as "…";
    unchanged when nothing is left."""
    cleaned = " ".join(text.split())
    cleaned = _FILLERS.sub(f" {ELLIPSIS} ", cleaned)
    cleaned = _REPEAT.sub(r"\1", cleaned)
    cleaned = _OPENER.sub(f"{ELLIPSIS} ", cleaned)
    if _DANGLING.search(cleaned) and len(cleaned) > 60:
        cleaned = _DANGLING.sub(f" {ELLIPSIS}", cleaned)
    cleaned = re.sub(r"\s+([,.!?])", r"\1", " ".join(cleaned.split())).strip(" ,")
    cleaned = re.sub(r",([.!?])", r"\1", cleaned)
    cleaned = re.sub(rf"[,\s]*{ELLIPSIS}[,\s{ELLIPSIS}]*", f" {ELLIPSIS} ", cleaned).strip()
    cleaned = re.sub(r"\s+([.!?])", r"\1", cleaned)
    if len(_WORD.findall(cleaned)) < 3:
        return " ".join(text.split())
    if cleaned.startswith(ELLIPSIS):
        return cleaned
    return cleaned[:1].upper() + cleaned[1:]


def sentence_key(sentence: str) -> str:
    """Case-, punctuation- and whitespace-insensitive form of a sentence, for counting repeats."""
    return " ".join(_WORD.findall(sentence.lower()))


def boilerplate(pairs: Iterable[tuple[str, str]], min_documents: int = BOILERPLATE_DOCUMENTS) -> set[str]:
    """Keys (`sentence_key`) of the sentences found in at least `min_documents` documents, from (document, sentence).

    A sentence every episode repeats ("Welcome to Behind the Tech.") says nothing about any one of them.
    """
    seen: dict[str, set[str]] = defaultdict(set)
    for document, sentence in pairs:
        key = sentence_key(sentence)
        if key:
            seen[key].add(document)
    return {key for key, documents in seen.items() if len(documents) >= min_documents}


def content_words(question: str) -> list[str]:
    """The question's words that are not stop words: empty for "the of and", so there is nothing to search."""
    return [w for w in _WORD.findall(question.lower()) if w not in STOP_WORDS]


def nothing_to_search(question: str) -> str | None:
    """Why a question cannot be searched (no words, or only stop words), None when it can."""
    if not _WORD.search(question):
        return NO_WORDS
    return None if content_words(question) else NOTHING_TO_SEARCH
