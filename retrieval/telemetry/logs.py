"""One logging setup for every face (HTTP service, MCP server, Streamlit app): JSON lines on stderr.

Why stdlib logging with python-json-logger rather than structlog: every library we run (uvicorn, the MCP SDK,
the Neo4j driver, Streamlit) logs through stdlib `logging`, and the secret masking is a stdlib record factory
(`retrieval/text/redact.py`) that sees every record wherever it comes from. A JSON formatter on the root handler
keeps that single path; structlog would add a second pipeline that both have to be kept redacting.

Each line carries the request id of the HTTP request or MCP call it belongs to (`request_id`), taken from a
context variable, so one request's lines can be found among concurrent ones. The formatted line is redacted
field by field: fields passed with `extra=` bypass the record factory's message masking.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from retrieval.text.redact import install_log_redaction, redact

#: The id of the request being served in this context ("-" outside any request).
request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

_FIELDS = ("asctime", "levelname", "name", "message")
_MARK = "driftlens_json"


class _RequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class RedactingJsonFormatter(JsonFormatter):
    """JSON lines whose every string field (extras and tracebacks included) passes through `redact`."""

    def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
        return {key: _redacted(value) for key, value in log_data.items()}


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redacted(v) for v in value]
    return value


def json_handler(stream: Any = None) -> logging.Handler:
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(
        RedactingJsonFormatter(
            _FIELDS, rename_fields={"asctime": "time", "levelname": "level", "name": "logger"}, timestamp=False
        )
    )
    handler.addFilter(_RequestId())
    handler.set_name(_MARK)
    return handler


def configure_logging(level: str = "INFO", stream: Any = None) -> None:
    """JSON lines at `level` on the root logger; idempotent (a Streamlit rerun calls it again).

    Uvicorn's own loggers are pointed at the root handler too, so its access and error lines are JSON as well.
    """
    install_log_redaction()
    root = logging.getLogger()
    if not any(h.get_name() == _MARK for h in root.handlers):
        root.addHandler(json_handler(stream))
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
