"""Secret redaction for every text that can reach a log, a traceback or a page.

Why one module: secrets leak through many doors (a Neo4j URI with `user:password@`, a key a model
server echoes back, a chained exception's message), so every door calls the same function. The
configured secret values are registered once when settings load; patterns catch the rest. Log
records are masked where they are made (`install_log_redaction`), so no handler, whoever added it,
ever sees the raw text.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import Any

MASK = "***"
#: Secrets shorter than this are not registered: masking "a" everywhere would destroy every message.
MIN_SECRET_LENGTH = 4

#: Serialises the writers (secrets registered, the record factory installed). Re-entrant: what runs under it
#: (a `len`, a sort) may allocate, a collection may then run a finaliser that logs, and logging reaches it again.
_lock = threading.RLock()


class _Registered:
    """The registered secrets, longest first (a secret inside another is masked after it). The tuple is replaced
    whole by the writers, never changed in place, so `redact` reads it without the lock: a log record made while
    the lock is held on the same thread (an openai client's finaliser logging from inside a collection) masks
    instead of waiting on itself. With a plain lock taken in `redact`, such a record hung the test suite (a worker
    waited forever inside `redact`, below a Neo4j driver's debug log)."""

    secrets: tuple[str, ...] = ()


_registered = _Registered()
_FORMATTER = logging.Formatter()

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
        found = set(_registered.secrets) | {v for v in values if v and len(v) >= MIN_SECRET_LENGTH}
        _registered.secrets = tuple(sorted(found, key=len, reverse=True))


def redact(text: str) -> str:
    """`text` with registered secrets, URI passwords, bearer tokens and key-like values masked."""
    for secret in _registered.secrets:
        text = text.replace(secret, MASK)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def install_log_redaction() -> None:
    """Mask every log record's message, traceback and stack text as it is created; idempotent.

    A record factory rather than a handler filter: filters only run for the handlers they are added to,
    while Streamlit, pytest and users add handlers of their own.
    """
    with _lock:
        make_record = logging.getLogRecordFactory()
        if getattr(make_record, "redacts", False):
            return

        def redacting_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = make_record(*args, **kwargs)
            _redact_record(record)
            return record

        redacting_factory.redacts = True  # type: ignore[attr-defined]
        logging.setLogRecordFactory(redacting_factory)


def _redact_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except (TypeError, ValueError):
        return  # a malformed format string: logging reports that itself, with the arguments unmerged
    record.msg, record.args = redact(message), None
    if record.exc_info and record.exc_info[1] is not None:
        # Formatters reuse a set exc_text instead of formatting the exception again.
        record.exc_text = redact(_FORMATTER.formatException(record.exc_info))
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
