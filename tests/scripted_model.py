"""A chat model pointed at the scripted server (tests/scripted_openai.py): its settings, the key it sends, a short
chat to complete, an answer for the server to give, and readers of the requests the server received. Shared by the
model's own tests (test_llm*.py), the modes' (test_drift.py, test_global.py, test_local.py) and the service's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from retrieval.config import Settings
from tests.conftest import make_settings
from tests.scripted_openai import ScriptedOpenAI

#: The API key the model sends the server: tests check that no error message repeats it.
KEY = "sk-test-DO-NOT-LEAK-4242"
#: A short chat for a model to complete.
QUESTION = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "what is six times seven"}]

#: A model answer with one valid citation, one invented chunk id and one misquote: what the citation check sorts.
CHECKED_CITATIONS = {
    "answer": "Marie Curie (with Pierre Curie).",
    "key_facts": [
        {"fact": "Marie Curie discovered polonium.", "chunk_ids": [1], "spans": ["discovered polonium"]},
        {"fact": "Invented.", "chunk_ids": ["c999"], "spans": ["nothing"]},
        {"fact": "Misquoted.", "chunk_ids": [1], "spans": ["discovered gold"]},
    ],
}


def llm_settings(tmp: Path, server: ScriptedOpenAI, **overrides: object) -> Settings:
    """Settings whose model is `server`. Fast retries so failure paths take milliseconds, not the production
    backoff."""
    values: dict[str, object] = {
        "openai_base_url": server.base_url,
        "openai_api_key": KEY,
        "retry_max_attempts": 3,
        "retry_backoff_base_sec": 0.01,
        "retry_backoff_max_sec": 1.0,
        "llm_timeout_sec": 5.0,
    }
    values.update(overrides)
    return make_settings(tmp, **values)


def schema_name(request: dict[str, Any]) -> str:
    """The name of the JSON schema a request asked the model to answer in ("hyde" when it named none)."""
    return str(request.get("response_format", {}).get("json_schema", {}).get("name", "hyde"))


def ids_in(request: dict[str, Any], kind: str) -> list[str]:
    """The ids of the `[kind id]` items (e.g. `[community c1]`) in a request's last message, in order."""
    return re.findall(rf"\[{kind} ([^\]]+)\]", request["messages"][-1]["content"])
