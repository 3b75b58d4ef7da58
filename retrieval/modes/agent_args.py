"""Typed arguments of the agent's tools: what the model sends is checked before anything runs.

Why: a model may send `depth: "abc"`, `limit: "ten"` or `supporting_evidence: [null, 5]`. Calling a
tool with those raised deep inside it and ended the whole run; validated here, a wrong call becomes a
tool result naming each bad argument, and the model corrects it on its next step. Numbers out of the
documented range are clamped rather than refused (a model asking for 100 rows gets the cap, not an error).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

MAX_SEARCH_LIMIT = 50
MAX_DEPTH = 3


class InvalidArguments(ValueError):
    """A tool call's arguments do not fit the tool; the message is written for the model to correct them."""


class ToolArgs(BaseModel):
    """Unknown keys are ignored (models add e.g. `explanation`); types are checked, numeric strings accepted."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class ExecuteCypherArgs(ToolArgs):
    query: str
    reasoning: str = ""


class VectorSearchArgs(ToolArgs):
    search_text: str
    limit: int = 5

    @field_validator("limit")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return max(1, min(value, MAX_SEARCH_LIMIT))


class ExpandNodeArgs(ToolArgs):
    node_id: str
    relationship_types: list[str] = Field(default_factory=list)
    depth: int = 1

    @field_validator("relationship_types", mode="before")
    @classmethod
    def _none_is_all(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("depth")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return max(1, min(value, MAX_DEPTH))


class Evidence(ToolArgs):
    id: str = Field(min_length=1)
    quote: str = ""

    @model_validator(mode="before")
    @classmethod
    def _bare_id(cls, value: Any) -> Any:
        """A bare id string is accepted as evidence without a quote."""
        return {"id": value} if isinstance(value, str) else value


class SubmitAnswerArgs(ToolArgs):
    answer: str
    confidence: float | None = None
    supporting_evidence: list[Evidence] = Field(default_factory=list)

    @field_validator("supporting_evidence", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("confidence")
    @classmethod
    def _clamp(cls, value: float | None) -> float | None:
        return None if value is None else max(0.0, min(1.0, value))


ARGUMENTS: dict[str, type[ToolArgs]] = {
    "execute_cypher": ExecuteCypherArgs,
    "vector_search": VectorSearchArgs,
    "expand_node": ExpandNodeArgs,
    "submit_answer": SubmitAnswerArgs,
}


def parse_arguments(name: str, arguments: Mapping[str, Any]) -> ToolArgs:
    """The validated arguments of tool `name`, or `InvalidArguments` naming every bad one."""
    return _validated(ARGUMENTS[name], name, arguments)


def parse_submission(arguments: Mapping[str, Any]) -> SubmitAnswerArgs:
    return _validated(SubmitAnswerArgs, "submit_answer", arguments)


def _validated[T: ToolArgs](model: type[T], name: str, arguments: Mapping[str, Any]) -> T:
    try:
        return model.model_validate(dict(arguments))
    except ValidationError as exc:
        problems = "; ".join(_problem(error) for error in exc.errors())
        raise InvalidArguments(f"invalid arguments for {name}: {problems}. Fix them and call {name} again.") from None


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    if error["type"] == "missing":
        return f"{where} is required"
    return f"{where}: {error['msg'][0].lower()}{error['msg'][1:]} (got {error.get('input')!r:.60})"
