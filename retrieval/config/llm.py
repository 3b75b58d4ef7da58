"""The language model: which endpoint, which model, what it costs, and how calls are retried.

Why a group: without any of these set DriftLens answers extractively; with them, every mode can use a model.
`Settings` (settings.py) is every group at once; scripts/config_doc.py documents each group from its `#:` comments.
"""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field, SecretStr

#: USD per 1M tokens (prompt, completion); override with DRIFTLENS_LLM_PRICES as JSON.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
}


class ModelSettings(BaseModel):
    """The language model: which endpoint, which model, what it costs, and how calls are retried."""

    # --- language model (OpenAI / Azure OpenAI / compatible) --------------------------------
    #: OpenAI API key (a secret); with it or `openai_base_url` the model-backed answers are on.
    openai_api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("OPENAI_API_KEY", "openai_api_key"))
    #: Base URL of any OpenAI-compatible server (vLLM, llama.cpp, Ollama...).
    openai_base_url: str | None = Field(None, validation_alias=AliasChoices("OPENAI_BASE_URL", "openai_base_url"))
    #: Chat model name.
    llm_model: str = Field(
        "gpt-4o-mini", validation_alias=AliasChoices("DRIFTLENS_LLM_MODEL", "OPENAI_MODEL", "llm_model")
    )
    #: Azure OpenAI endpoint; set, Azure is used for the chat model.
    azure_openai_endpoint: str | None = Field(
        None, validation_alias=AliasChoices("AZURE_OPENAI_ENDPOINT", "OAI_BASE_URL", "azure_openai_endpoint")
    )
    #: Azure OpenAI key (a secret).
    azure_openai_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("AZURE_OPENAI_API_KEY", "OAI_KEY", "azure_openai_api_key")
    )
    #: Azure OpenAI API version.
    azure_openai_api_version: str = Field(
        "2024-10-21",
        validation_alias=AliasChoices("AZURE_OPENAI_API_VERSION", "OAI_API_VERSION", "azure_openai_api_version"),
    )
    #: Azure deployment of the chat model.
    azure_chat_deployment: str | None = Field(
        None, validation_alias=AliasChoices("AZURE_OPENAI_DEPLOYMENT", "OAI_MODEL", "azure_chat_deployment")
    )
    #: Azure deployment of the embedding model (when `embedder` is `azure`).
    azure_embed_deployment: str | None = Field(
        None,
        validation_alias=AliasChoices(
            "AZURE_OPENAI_EMBED_DEPLOYMENT", "OAI_EMBED_DEPLOYMENT_NAME", "azure_embed_deployment"
        ),
    )
    #: Timeout of one model request, in seconds (the designs' `OAI_TIMEOUT_SEC` default).
    llm_timeout_sec: float = Field(10.0, gt=0, validation_alias=AliasChoices("OAI_TIMEOUT_SEC", "llm_timeout_sec"))
    #: Sampling temperature of the chat model.
    llm_temperature: float = Field(
        0.0, ge=0.0, le=2.0, validation_alias=AliasChoices("LLM_TEMPERATURE", "llm_temperature")
    )
    #: USD per 1M tokens (prompt, completion) per model, for the cost shown with each answer; JSON.
    llm_prices: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    #: Model calls in flight at once (DRIFT follow-ups, global map, LLM extraction).
    llm_concurrency: int = Field(4, ge=1, le=64)

    # --- retries ----------------------------------------------------------------------------
    #: Attempts per model call on 429, 5xx and timeouts (the designs' default: 3).
    retry_max_attempts: int = Field(
        3, ge=1, le=20, validation_alias=AliasChoices("RETRY_MAX_ATTEMPTS", "retry_max_attempts")
    )
    #: First retry wait, in seconds (exponential backoff with jitter; the designs' default: 2 s).
    retry_backoff_base_sec: float = Field(
        2.0, ge=0.0, validation_alias=AliasChoices("RETRY_BACKOFF_BASE_SEC", "retry_backoff_base_sec")
    )
    #: Growth of the retry wait per attempt.
    retry_backoff_factor: float = Field(
        2.0, ge=1.0, validation_alias=AliasChoices("RETRY_BACKOFF_FACTOR", "retry_backoff_factor")
    )
    #: Longest retry wait, in seconds (the designs' default: 60 s).
    retry_backoff_max_sec: float = Field(
        60.0, ge=0.0, validation_alias=AliasChoices("RETRY_BACKOFF_MAX_SEC", "retry_backoff_max_sec")
    )
