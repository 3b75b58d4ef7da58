"""Reading a chat completion body ourselves, so a broken server is one clear error and never a crash.

Why not the openai client's typed objects: it builds them without validation, so a proxy's HTML page
arrives as a `str`, cut-off JSON raises `JSONDecodeError`, a missing `choices` or a `message: null`
raises `TypeError`/`AttributeError` deep in the caller, and integer ids travel on as integers. Here the
raw body is parsed and validated once: what can be repaired (numbers where strings belong, arguments
sent as an object instead of a JSON string, an unreadable `usage`) is repaired, anything else raises
`MalformedResponse`, which the caller retries and then turns into an `LLMError`.

Model output is untrusted text, cleaned where it enters: every JSON the model sends is decoded by `decode_json`
(the body here, then the answers and tool arguments written as JSON inside it), which passes each string through
the same `clean_text` as a user's question. A `"\\ud800"` in a reply would otherwise become a str no UTF-8
encoder accepts, and crash whoever encodes it next: the client sending it back, the tokenizer, the HTTP response.
"""

from __future__ import annotations

import json
from typing import Any

import json_repair
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from retrieval.text.clean import clean_text
from retrieval.text.redact import redact

#: How much of an unusable body an error message quotes: enough to recognise a proxy page.
EXCERPT_CHARS = 80


class MalformedResponse(Exception):
    """The server answered 200 with a body that is not a usable chat completion."""


class _Lenient(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True, extra="ignore")


class WireFunction(_Lenient):
    name: str
    arguments: str = ""

    @field_validator("arguments", mode="before")
    @classmethod
    def _as_json_text(cls, value: Any) -> Any:
        """Some servers send the arguments as an object, not as the JSON string the API specifies."""
        if value is None:
            return ""
        return json.dumps(value) if isinstance(value, dict | list) else value


class WireToolCall(_Lenient):
    id: str
    type: str = "function"
    function: WireFunction


class WireMessage(_Lenient):
    content: str | None = None
    tool_calls: list[WireToolCall] | None = None


class WireChoice(_Lenient):
    message: WireMessage


class WireUsage(_Lenient):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class WireCompletion(_Lenient):
    model: str | None = None
    choices: list[WireChoice] = Field(min_length=1)
    usage: WireUsage | None = None

    @field_validator("usage", mode="before")
    @classmethod
    def _drop_unreadable_usage(cls, value: Any) -> Any:
        """Token counts are bookkeeping: an unreadable block counts as zero rather than losing the answer."""
        try:
            return WireUsage.model_validate(value) if value is not None else None
        except ValidationError:
            return None


def parse_completion(body: str, content_type: str) -> WireCompletion:
    """The completion in `body`, repaired where harmless; `MalformedResponse` saying why otherwise."""
    try:
        data = decode_json(body)
    except json.JSONDecodeError:
        kind = content_type.split(";", maxsplit=1)[0].strip() or "no content type"
        raise MalformedResponse(f"the body is not JSON ({kind}): {_excerpt(body)!r}") from None
    if not isinstance(data, dict):
        raise MalformedResponse(f"the body is a JSON {type(data).__name__}, not an object: {_excerpt(body)!r}")
    try:
        return WireCompletion.model_validate(data)
    except ValidationError as exc:
        raise MalformedResponse(f"the completion has {_problems(exc)}") from None


def decode_json(text: str, *, repair: bool = False) -> Any:
    """`text` decoded, every string (keys too) cleaned; `repair` mends sloppy JSON (fences, trailing commas).

    Raises `JSONDecodeError` for broken JSON unless `repair`; repaired empty text is None.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        if not repair:
            raise
        value = json_repair.loads(text) if text.strip() else None
    return _cleaned(value)


def _cleaned(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [_cleaned(item) for item in value]
    if isinstance(value, dict):
        return {_cleaned(key): _cleaned(item) for key, item in value.items()}
    return value


def _problems(exc: ValidationError) -> str:
    """'no choices', 'choices.0.message: null' ...: where the shape broke, without echoing values."""
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"])
        if error["type"] == "missing":
            parts.append(f"no {where}")
        elif error["type"] == "too_short":
            parts.append(f"empty {where}")
        else:
            parts.append(f"an unusable {where} ({error['msg'].lower()})")
    return "; ".join(parts)


def _excerpt(body: str) -> str:
    flat = " ".join(body.split())
    return redact(flat if len(flat) <= EXCERPT_CHARS else flat[:EXCERPT_CHARS] + "…")
