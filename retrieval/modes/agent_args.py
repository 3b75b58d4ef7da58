"""Typed arguments of the agent's tools: what the model sends is checked before anything runs.

Why: a model may send `depth: "abc"`, `limit: "ten"` or `supporting_evidence: [null, 5]`. Calling a
tool with those raised deep inside it and ended the whole run; validated here, a wrong call becomes a
tool result naming each bad argument, and the model corrects it on its next step. Numbers out of the
documented range are clamped rather than refused (a model asking for 100 rows gets the cap, not an error).
The required arguments and defaults are the agent design's: `execute_cypher` needs its `reasoning` (the trace
then says why each query ran), `vector_search` returns 10 rows unless told otherwise, and `submit_answer`
always carries a `confidence` and its `supporting_evidence` (an empty list says "none"), so an answer's
grounding is never left out by accident.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

MAX_SEARCH_LIMIT = 50
#: Rows `vector_search` returns when the model names no limit (the agent design's default).
DEFAULT_SEARCH_LIMIT = 10
MAX_DEPTH = 3


class InvalidArguments(ValueError):
    """A tool call's arguments do not fit the tool; the message is written for the model to correct them."""


def _none_as_empty(value: Any) -> Any:
    """Models send `null` for "none" as often as `[]`."""
    return [] if value is None else value


def _clamped(low: float, high: float) -> AfterValidator:
    """Numbers outside the documented range are clamped to it (None stays None)."""
    return AfterValidator(lambda value: value if value is None else max(low, min(value, high)))


class ToolArgs(BaseModel):
    """Unknown keys are ignored (models add e.g. `explanation`); types are checked, numeric strings accepted."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class ExecuteCypherArgs(ToolArgs):
    query: str
    reasoning: str


class VectorSearchArgs(ToolArgs):
    search_text: str
    limit: Annotated[int, _clamped(1, MAX_SEARCH_LIMIT)] = DEFAULT_SEARCH_LIMIT


class ExpandNodeArgs(ToolArgs):
    node_id: str
    relationship_types: Annotated[list[str], BeforeValidator(_none_as_empty)] = Field(default_factory=list)
    depth: Annotated[int, _clamped(1, MAX_DEPTH)] = 1


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
    confidence: Annotated[float, _clamped(0.0, 1.0)]
    supporting_evidence: Annotated[list[Evidence], BeforeValidator(_none_as_empty)]


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
