"""Secret redaction for every text that can reach a log, a traceback or a page.

Why one module: secrets leak through many doors (a Neo4j URI with `user:password@`, a key a model
server echoes back, a chained exception's message), so every door calls the same function. The
configured secret values are registered once when settings load; patterns catch the rest.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

MASK = "***"
#: Secrets shorter than this are not registered: masking "a" everywhere would destroy every message.
MIN_SECRET_LENGTH = 4

_lock = threading.Lock()
_secrets: set[str] = set()

_PATTERNS = (
    # scheme://user:password@host -> scheme://user:***@host
    (re.compile(r"(?P<pre>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(?=@)"), r"\g<pre>" + MASK),
    # Authorization headers and bearer tokens
    (re.compile(r"(?i)(?P<pre>\bbearer\s+)[A-Za-z0-9._~+/=\-]{8,}"), r"\g<pre>" + MASK),
    # OpenAI-style keys (sk-..., sk-proj-...)
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), MASK),
    # key=value / "api_key": "value" spellings
    (
        re.compile(r"(?i)(?P<pre>\b(?:api[_-]?key|password|passwd|secret|token)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]{4,}"),
        r"\g<pre>" + MASK,
    ),
)


def register_secrets(values: Iterable[str | None]) -> None:
    """Remember configured secret values so that `redact` masks them wherever they turn up."""
    with _lock:
        _secrets.update(v for v in values if v and len(v) >= MIN_SECRET_LENGTH)


def redact(text: str) -> str:
    """`text` with registered secrets, URI passwords, bearer tokens and key-like values masked."""
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for secret in known:
        text = text.replace(secret, MASK)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text
