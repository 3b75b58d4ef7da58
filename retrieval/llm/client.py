"""ChatModel: one thread-safe way to call OpenAI, Azure OpenAI or any OpenAI-compatible server.

Why one wrapper: every mode needs the same things around a chat call — retries that respect
rate limits, token and cost accounting per phase, JSON replies that survive a sloppy model, and
errors a user can act on without a secret ever reaching a message or a log. tenacity is the only
retry layer (the openai client's own retries are off) so attempts, backoff and Retry-After are
governed by Settings alone.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from retrieval.config import Settings
from retrieval.errors import ConfigError, LLMError
from retrieval.llm.response import MalformedResponse, WireCompletion, WireToolCall, decode_json, parse_completion
from retrieval.models import Usage
from retrieval.text.redact import MASK, redact

if TYPE_CHECKING:  # openai is imported where it is used: a process with no model never loads it (~0.7 CPU-s)
    import openai

log = logging.getLogger(__name__)

Message = dict[str, Any]
_OPENAI_HOST = "https://api.openai.com/v1"
_PLACEHOLDER_KEY = "not-needed"  # local OpenAI-compatible servers ignore the key, the client insists on one


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str


@dataclass(frozen=True)
class Completion:
    text: str
    tool_calls: list[ToolCall]
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    cost_usd: float
    model: str

    def assistant_message(self) -> Message:
        """The reply as a chat message, so a tool loop can append it to the history it sends back."""
        message: Message = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.raw_arguments}}
                for c in self.tool_calls
            ]
        return message


@dataclass(frozen=True)
class JsonResult:
    """`parsed` is None when the model failed twice: the caller then answers extractively and shows `notes`."""

    parsed: dict[str, Any] | None
    completion: Completion
    asks: int
    notes: list[str] = field(default_factory=list)


class ChatModel:
    """Chat completions with retries, JSON repair and usage accounting; safe to share across threads."""

    def __init__(self, settings: Settings) -> None:
        import openai

        self._settings = settings
        self._lock = threading.Lock()
        self.unpriced_models: set[str] = set()
        common: dict[str, Any] = {"timeout": settings.llm_timeout_sec, "max_retries": 0}
        if settings.llm_provider == "azure":
            if settings.azure_openai_api_key is None:
                raise ConfigError("Azure OpenAI needs an API key: set AZURE_OPENAI_API_KEY (or OAI_KEY).")
            self._secret = settings.azure_openai_api_key.get_secret_value()
            self.model = settings.azure_chat_deployment or settings.llm_model
            self._client: openai.OpenAI = openai.AzureOpenAI(
                azure_endpoint=str(settings.azure_openai_endpoint),
                azure_deployment=self.model,
                api_version=settings.azure_openai_api_version,
                api_key=self._secret,
                **common,
            )
            self._kind = "Azure OpenAI"
            endpoint = _safe_url(str(settings.azure_openai_endpoint))
            self._describe = (
                f"Azure OpenAI at {endpoint}, deployment {self.model} (api-version {settings.azure_openai_api_version})"
            )
        else:
            key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
            self._secret = key or ""
            self.model = settings.llm_model
            base_url = settings.openai_base_url or _OPENAI_HOST
            self._client = openai.OpenAI(api_key=key or _PLACEHOLDER_KEY, base_url=base_url, **common)
            self._kind = "OpenAI-compatible" if settings.openai_base_url else "OpenAI"
            self._describe = f"{self._kind} at {_safe_url(base_url)}, model {self.model}"
        self._host = urlsplit(str(self._client.base_url)).netloc.rsplit("@", 1)[-1]

    def describe(self) -> str:
        """Where calls go, safe to show: URL without credentials, model or deployment, never a key."""
        if self.unpriced_models:
            return f"{self._describe} (no price known for {', '.join(sorted(self.unpriced_models))}: cost shown as $0)"
        return self._describe

    def complete(
        self,
        messages: list[Message],
        *,
        phase: str,
        usage: Usage | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        tools: list[dict[str, Any]] | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> Completion:
        """One chat completion, retried on 429/5xx/timeouts/connection errors; counted in `usage` under `phase`."""
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self._settings.llm_temperature if temperature is None else temperature,
        }
        optional = {"max_tokens": max_tokens, "tools": tools, "response_format": response_format}
        request.update({k: v for k, v in optional.items() if v is not None})
        started = time.perf_counter()
        response = self._call(request, phase)
        latency_ms = (time.perf_counter() - started) * 1000
        message = response.choices[0].message
        prompt_tokens = response.usage.prompt_tokens if response.usage else 0
        completion_tokens = response.usage.completion_tokens if response.usage else 0
        cost = self._cost(response.model or self.model, prompt_tokens, completion_tokens)
        if usage is not None:
            with self._lock:
                usage.add_call(phase, prompt_tokens, completion_tokens, cost)
        return Completion(
            text=message.content or "",
            tool_calls=[_tool_call(c) for c in message.tool_calls or [] if c.type == "function"],
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_ms=latency_ms,
            cost_usd=cost,
            model=response.model or self.model,
        )

    def complete_json(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any],
        schema_name: str,
        phase: str,
        usage: Usage | None = None,
    ) -> JsonResult:
        """A JSON object matching `schema`: repaired if sloppy, re-asked once if broken, else degraded.

        The schema is sent non-strict because callers' schemas may have optional keys (strict mode
        rejects those); the repair-and-validate step below is the guard instead.
        """
        response_format = {"type": "json_schema", "json_schema": {"name": schema_name, "schema": schema}}
        completion = self.complete(messages, phase=phase, usage=usage, response_format=response_format)
        parsed, problem = parse_json_reply(completion.text, schema)
        if parsed is not None:
            return JsonResult(parsed, completion, asks=1)
        log.info("re-asking the model for %s: %s", phase, problem)
        retry_messages = [
            *messages,
            {"role": "assistant", "content": completion.text},
            {
                "role": "user",
                "content": f"Your reply was not usable: {problem}. Reply again with only one JSON object "
                f"that matches the {schema_name} schema.",
            },
        ]
        completion = self.complete(retry_messages, phase=phase, usage=usage, response_format=response_format)
        parsed, problem = parse_json_reply(completion.text, schema)
        if parsed is not None:
            return JsonResult(parsed, completion, asks=2)
        log.warning("model returned malformed JSON twice for %s: %s", phase, problem)
        note = f"model returned malformed JSON twice for {phase}; used extractive fallback"
        return JsonResult(None, completion, asks=2, notes=[note])

    # --- internals ----------------------------------------------------------------------------
    def _call(self, request: dict[str, Any], phase: str) -> WireCompletion:
        """The parsed completion, retried like a 5xx when the body is unusable; an `LLMError` after the last try.

        The error is raised outside the `except` block so it carries no chained exception: the client's
        own exceptions quote the server's body, which may echo the key back.
        """
        import openai

        retrying = self._retrying()
        failure: LLMError
        try:
            for attempt in retrying:
                with attempt:
                    raw = self._client.chat.completions.with_raw_response.create(**request)
                    return parse_completion(raw.text, raw.headers.get("content-type", ""))
        except openai.OpenAIError as exc:
            failure = self._error(exc, phase, retrying.statistics.get("attempt_number", 1))
        except MalformedResponse as exc:
            attempts = retrying.statistics.get("attempt_number", 1)
            failure = LLMError(
                f"{self._kind} endpoint {self._host} returned a malformed response for {phase} {_tries(attempts)}: "
                f"{exc}. Check that the configured endpoint is an OpenAI-compatible API, not a proxy or a web page."
            )
        raise failure

    def _retrying(self) -> Retrying:
        """A fresh Retrying per call: its statistics (attempt count) are per call, threads never share them."""
        s = self._settings
        backoff = wait_exponential_jitter(
            multiplier=s.retry_backoff_base_sec,
            max=s.retry_backoff_max_sec,
            exp_base=s.retry_backoff_factor,
            jitter=s.retry_backoff_base_sec,
        )

        def wait(state: RetryCallState) -> float:
            hinted = _retry_after(state.outcome.exception() if state.outcome else None)
            return min(hinted, s.retry_backoff_max_sec) if hinted is not None else backoff(state)

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            log.warning(
                "LLM call to %s failed (%s), attempt %d of %d; retrying in %.2fs",
                self._host,
                _status_text(exc),
                state.attempt_number,
                s.retry_max_attempts,
                state.upcoming_sleep,
            )

        return Retrying(
            stop=stop_after_attempt(s.retry_max_attempts),
            wait=wait,
            retry=retry_if_exception(_retryable),
            before_sleep=before_sleep,
            reraise=True,
        )

    def _cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        price = _price_for(self._settings.llm_prices, model) or _price_for(self._settings.llm_prices, self.model)
        if price is None:
            with self._lock:
                if model not in self.unpriced_models:
                    log.warning("no price known for model %s; its cost is counted as 0", model)
                self.unpriced_models.add(model)
            return 0.0
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000

    def _error(self, exc: openai.OpenAIError, phase: str, attempts: int) -> LLMError:
        import openai

        where = f"{self._kind} endpoint {self._host}"
        tries = _tries(attempts)
        if isinstance(exc, openai.APITimeoutError):
            return LLMError(
                f"{where} timed out ({self._settings.llm_timeout_sec:g}s) for {phase} {tries}. "
                "Check the server, or raise OAI_TIMEOUT_SEC."
            )
        if isinstance(exc, openai.APIConnectionError):
            return LLMError(f"Could not connect to {where} for {phase} {tries}. Check the URL and that it is running.")
        if isinstance(exc, openai.APIStatusError):
            detail = self._redact(_error_detail(exc))
            return LLMError(
                f"{where} returned HTTP {exc.status_code} for {phase} {tries}"
                f"{': ' + detail if detail else ''}. {_hint(exc.status_code)}"
            )
        return LLMError(f"{where} failed for {phase}: {self._redact(type(exc).__name__ + ': ' + str(exc))}")

    def _redact(self, text: str) -> str:
        return redact(text.replace(self._secret, MASK) if self._secret else text)


def make_chat_model(settings: Settings) -> ChatModel | None:
    """The configured chat model, or None: every mode then answers extractively."""
    return ChatModel(settings) if settings.llm_provider else None


def parse_json_reply(text: str, schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """Parse (repairing trailing commas, quotes, fences...) and check the shape; (None, why) when unusable."""
    value = decode_json(text, repair=True)
    if not isinstance(value, dict):
        return None, "it was not a JSON object"
    problem = _shape_problem(value, schema)
    return (None, problem) if problem else (value, "")


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _shape_problem(value: dict[str, Any], schema: dict[str, Any]) -> str:
    """Required keys present and top-level types right: enough for callers to index without guarding."""
    missing = [key for key in schema.get("required", []) if key not in value]
    if missing:
        return f"missing required key(s) {', '.join(missing)}"
    for key, spec in schema.get("properties", {}).items():
        expected = spec.get("type") if isinstance(spec, dict) else None
        if key not in value or not isinstance(expected, str) or expected not in _JSON_TYPES:
            continue
        item = value[key]
        wrong_bool = isinstance(item, bool) and expected != "boolean"
        if wrong_bool or not isinstance(item, _JSON_TYPES[expected]):
            return f"key {key} should be a {expected}, got {type(item).__name__}"
    return ""


def _tool_call(call: WireToolCall) -> ToolCall:
    raw = call.function.arguments
    arguments = decode_json(raw, repair=True)
    return ToolCall(call.id, call.function.name, arguments if isinstance(arguments, dict) else {}, raw)


def _tries(attempts: int) -> str:
    return f"after {attempts} attempt{'s' if attempts != 1 else ''}"


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError | MalformedResponse):  # includes timeouts; a proxy's error page
        return True
    return isinstance(exc, openai.APIStatusError) and (exc.status_code in (408, 429) or exc.status_code >= 500)


def _retry_after(exc: BaseException | None) -> float | None:
    """Seconds the server asked us to wait (Retry-After, or OpenAI's retry-after-ms), if any."""
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = exc.response.headers
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / divisor)
        except ValueError:
            try:
                return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
            except (TypeError, ValueError):
                continue
    return None


def _price_for(prices: dict[str, tuple[float, float]], model: str) -> tuple[float, float] | None:
    """Exact name, else the longest priced prefix: 'gpt-4o-mini-2024-07-18' is priced as 'gpt-4o-mini'."""
    if model in prices:
        return prices[model]
    prefixes = [name for name in prices if model.startswith(name)]
    return prices[max(prefixes, key=len)] if prefixes else None


def _status_text(exc: BaseException | None) -> str:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return type(exc).__name__ if exc else "unknown error"


def _error_detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    message = body.get("message") if isinstance(body, dict) else None
    return str(message)[:200] if message else ""


def _hint(status: int) -> str:
    if status in (401, 403):
        return "Check the API key and its permissions."
    if status == 404:
        return "Check the model or deployment name and the base URL."
    if status == 429:
        return "Rate limited: lower DRIFTLENS_LLM_CONCURRENCY or try again later."
    if status >= 500:
        return "The service is failing; try again later."
    return "Check the request settings (model, max tokens)."


def _safe_url(url: str) -> str:
    """The URL without user:password@ or query string, fit for a status line."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{host}{parts.path}".rstrip("/")
