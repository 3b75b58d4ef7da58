"""OpenAIEmbedder through the real openai client against the scripted local server."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from retrieval import embed
from retrieval.config import Settings, load_settings
from retrieval.embed import OpenAIEmbedder
from retrieval.errors import ConfigError, LLMError
from tests.conftest import make_settings
from tests.scripted_openai import ScriptedOpenAI, error

KEY = "sk-embed-DO-NOT-LEAK-777"
MODEL = "scripted-embed"  # not in the known-dimension table: the embedder learns the dim from the server


def embed_settings(tmp: Path, server: ScriptedOpenAI, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "embedder": "openai",
        "openai_base_url": server.base_url,
        "openai_api_key": KEY,
        "openai_embedding_model": MODEL,
        "retry_max_attempts": 2,
    }
    values.update(overrides)
    return make_settings(tmp, **values)


def expected(server: ScriptedOpenAI, texts: list[str]) -> np.ndarray:
    vectors = np.array([server.embedding_for(t) for t in texts], dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_vectors_come_back_in_order_and_normalised(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    texts = ["central banks", "tomato garden", "password reset"]
    embedder = OpenAIEmbedder(embed_settings(tmp_path, scripted_openai))

    vectors = embedder.embed(texts)

    assert vectors.shape == (3, scripted_openai.embedding_dim)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(vectors, expected(scripted_openai, texts), atol=1e-6)
    (sent,) = scripted_openai.embedding_requests()
    assert sent.path == "/v1/embeddings"
    assert sent.json["model"] == MODEL and sent.json["input"] == texts


def test_dim_is_probed_once_for_unknown_models(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    scripted_openai.embedding_dim = 12
    embedder = OpenAIEmbedder(embed_settings(tmp_path, scripted_openai))

    assert (embedder.dim, embedder.dim) == (12, 12)
    assert len(scripted_openai.embedding_requests()) == 1


def test_large_inputs_are_split_into_batches(
    tmp_path: Path, scripted_openai: ScriptedOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed, "OPENAI_BATCH", 3)
    texts = [f"passage number {n}" for n in range(7)]
    embedder = OpenAIEmbedder(embed_settings(tmp_path, scripted_openai))

    vectors = embedder.embed(texts)

    assert [len(r.json["input"]) for r in scripted_openai.embedding_requests()] == [3, 3, 1]
    np.testing.assert_allclose(vectors, expected(scripted_openai, texts), atol=1e-6)


def test_azure_uses_the_embedding_deployment(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    settings = embed_settings(
        tmp_path,
        scripted_openai,
        embedder="azure",
        azure_openai_endpoint=scripted_openai.endpoint,
        azure_openai_api_key=KEY,
        azure_embed_deployment="embed-dep",
        azure_openai_api_version="2024-10-21",
    )

    vectors = OpenAIEmbedder(settings).embed(["one text"])

    np.testing.assert_allclose(vectors, expected(scripted_openai, ["one text"]), atol=1e-6)
    (sent,) = scripted_openai.embedding_requests()
    assert sent.path == "/openai/deployments/embed-dep/embeddings"
    assert sent.query["api-version"] == "2024-10-21"
    assert sent.headers["api-key"] == "<redacted>"


def test_failure_names_the_endpoint_but_not_the_key(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    scripted_openai.script_embeddings(error(400, message=f"bad input for key {KEY}"))
    embedder = OpenAIEmbedder(embed_settings(tmp_path, scripted_openai))

    with pytest.raises(LLMError) as raised:
        embedder.embed(["x"])

    assert scripted_openai.base_url in str(raised.value)
    assert KEY not in str(raised.value)


def test_transient_server_error_is_retried(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    scripted_openai.script_embeddings(error(503, retry_after=0.01))
    embedder = OpenAIEmbedder(embed_settings(tmp_path, scripted_openai))

    vectors = embedder.embed(["after a hiccup"])

    np.testing.assert_allclose(vectors, expected(scripted_openai, ["after a hiccup"]), atol=1e-6)
    assert len(scripted_openai.embedding_requests()) == 2


# --- Azure AI embeddings as the context provider design has them (issue #28 item 8) --------------------------
def test_azure_ai_embeds_through_the_projects_model_inference_endpoint(
    tmp_path: Path, scripted_openai: ScriptedOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted_openai.embedding_dim = 1536  # ada-002's, which the embedder knows without asking
    monkeypatch.setenv("EMBEDDING_PROVIDER", "azure-ai")
    monkeypatch.setenv("AZURE_AI_PROJECT_ENDPOINT", f"{scripted_openai.endpoint}/api/projects/graphrag")
    monkeypatch.setenv("EMBEDDING_API_KEY", KEY)
    for name in ("AZURE_AI_EMBEDDING_NAME", "DRIFTLENS_EMBEDDER", "DRIFTLENS_EMBEDDING_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings(_env_file=None, data_dir=tmp_path, openai_base_url=None, azure_openai_endpoint=None)

    embedder = OpenAIEmbedder(settings)
    vectors = embedder.embed(["one text"])

    assert (settings.embedder, settings.azure_ai_embedding_name) == ("azure-ai", "text-embedding-ada-002")
    assert embedder.name == "azure-ai:text-embedding-ada-002" and embedder.dim == 1536
    np.testing.assert_allclose(vectors, expected(scripted_openai, ["one text"]), atol=1e-6)
    (sent,) = scripted_openai.embedding_requests()
    assert sent.path == "/models/embeddings" and sent.query["api-version"] == "2024-05-01-preview"
    assert (sent.json["model"], sent.json["input"]) == ("text-embedding-ada-002", ["one text"])
    assert sent.headers["api-key"] == "<redacted>"


def test_azure_ai_embedding_name_and_an_inference_endpoint_are_taken_as_given(
    tmp_path: Path, scripted_openai: ScriptedOpenAI
) -> None:
    settings = embed_settings(
        tmp_path,
        scripted_openai,
        embedder="azure-ai",
        azure_ai_project_endpoint=f"{scripted_openai.endpoint}/models/",
        azure_ai_embedding_name=MODEL,
        embedding_api_key=KEY,
    )

    OpenAIEmbedder(settings).embed(["two"])

    (sent,) = scripted_openai.embedding_requests()
    assert sent.path == "/models/embeddings" and sent.json["model"] == MODEL


def test_azure_ai_needs_its_project_endpoint(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="embedder 'azure-ai' needs AZURE_AI_PROJECT_ENDPOINT"):
        make_settings(tmp_path, embedder="azure-ai")
