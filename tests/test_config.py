"""Settings: aliases other tools use, start-up validation with one clear message, secrets never printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Settings, load_settings
from retrieval.errors import ConfigError


def _settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return load_settings(_env_file=None)


def test_embedded_backend_by_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NEO4J_URI", raising=False)
    s = _settings(monkeypatch, DRIFTLENS_GRAPH_PATH=str(tmp_path / "g.db"))
    assert s.backend == "falkordb"
    assert s.embedded_graph_path == tmp_path / "g.db"
    assert "Embedded FalkorDB Lite" in s.backend_display


def test_neo4j_when_uri_set_with_user_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _settings(
        monkeypatch, NEO4J_URI="bolt://db:7687", NEO4J_USER="alice", NEO4J_PASSWORD="hunter2", NEO4J_DATABASE="kg"
    )
    assert (s.backend, s.neo4j_username, s.neo4j_database) == ("neo4j", "alice", "kg")
    assert s.backend_display == "Neo4j bolt://db:7687 (database kg)"


def test_oai_aliases_select_azure(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _settings(
        monkeypatch,
        OAI_BASE_URL="https://x.openai.azure.com",
        OAI_KEY="secret-azure-key",
        OAI_MODEL="gpt4o-deploy",
        OAI_API_VERSION="2024-06-01",
        OAI_EMBED_DEPLOYMENT_NAME="emb-deploy",
        OAI_EMBED_MODEL_NAME="text-embedding-3-large",
        OAI_TIMEOUT_SEC="12.5",
        LLM_TEMPERATURE="0.3",
        RETRY_MAX_ATTEMPTS="7",
        RETRY_BACKOFF_BASE_SEC="0.1",
        RETRY_BACKOFF_FACTOR="3",
        RETRY_BACKOFF_MAX_SEC="9",
    )
    assert s.llm_provider == "azure"
    assert (s.azure_chat_deployment, s.azure_openai_api_version, s.azure_embed_deployment) == (
        "gpt4o-deploy",
        "2024-06-01",
        "emb-deploy",
    )
    assert (s.openai_embedding_model, s.llm_timeout_sec, s.llm_temperature) == ("text-embedding-3-large", 12.5, 0.3)
    assert (s.retry_max_attempts, s.retry_backoff_base_sec, s.retry_backoff_factor, s.retry_backoff_max_sec) == (
        7,
        0.1,
        3.0,
        9.0,
    )


def test_no_llm_when_nothing_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "OAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    assert _settings(monkeypatch).llm_provider is None


def test_secrets_are_masked_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _settings(monkeypatch, OPENAI_API_KEY="sk-verysecret", NEO4J_PASSWORD="pw-verysecret", OAI_KEY="az-verysecret")
    for text in (repr(s), str(s), s.model_dump_json(), s.backend_display):
        assert "verysecret" not in text
    assert s.openai_api_key is not None and s.openai_api_key.get_secret_value() == "sk-verysecret"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"top_k": 0}, "top_k"),
        ({"alpha": 1.5}, "alpha"),
        ({"search_type": "hybrid", "chunk_fulltext_index": ""}, "hybrid' needs a fulltext index name"),
        ({"retrieval_query": "RETURN 1 AS text"}, "retrieval_query must use the variables `node` and `score`"),
        ({"embedder": "azure"}, "embedder 'azure' needs"),
        ({"retry_backoff_base_sec": 5, "retry_backoff_max_sec": 1}, "RETRY_BACKOFF_MAX_SEC"),
    ],
)
def test_invalid_combinations_fail_with_one_clear_message(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_env_file=None, azure_openai_endpoint=None, **overrides)
    text = str(info.value)
    assert text.startswith("Invalid DriftLens settings: ")
    assert message in text
    assert "\n" not in text


def test_retrieval_query_that_uses_node_and_score_is_kept() -> None:
    query = "MATCH (node)<-[:HAS_CHUNK]-(d) RETURN node.text AS text, score, d.title AS document"
    assert load_settings(_env_file=None, retrieval_query=query).retrieval_query == query


def test_env_file_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("DRIFTLENS_TOP_K=17\nDRIFTLENS_FUSION=rrf\n")
    monkeypatch.delenv("DRIFTLENS_TOP_K", raising=False)
    s = load_settings(_env_file=env)
    assert (s.top_k, s.fusion) == (17, "rrf")


# --- the names other tools' settings use (issue #12 item 5) -----------------------------------------
_SEED_NAMES = [
    ("NEO4J_INDEX_NAME", "vec_a", "chunk_vector_index", "vec_a"),
    ("NEO4J_VECTOR_INDEX_NAME", "vec_b", "chunk_vector_index", "vec_b"),
    ("CHUNK_VECTOR_INDEX_NAME", "vec_c", "chunk_vector_index", "vec_c"),
    ("NEO4J_FULLTEXT_INDEX_NAME", "ft_chunks", "chunk_fulltext_index", "ft_chunks"),
    ("COMMUNITY_VECTOR_INDEX_NAME", "vec_k", "community_vector_index", "vec_k"),
    ("ENTITY_VECTOR_INDEX", "vec_e", "entity_vector_index", "vec_e"),
    ("FT_INDEX_ENTITIES", "ft_entities", "entity_fulltext_index", "ft_entities"),
    ("VECTOR_INDEX_DIMENSIONS", "384", "vector_index_dimensions", 384),
    ("VECTOR_INDEX_SIMILARITY", "COSINE", "vector_index_similarity", "cosine"),
    ("EMBEDDING_PROVIDER", "local", "embedder", "local"),
    ("AZURE_AI_EMBEDDING_NAME", "text-embedding-3-small", "azure_ai_embedding_name", "text-embedding-3-small"),
    ("EMBEDDING_MODEL", "all-MiniLM-L6-v2", "openai_embedding_model", "all-MiniLM-L6-v2"),
    ("API_PORT", "8123", "api_port", 8123),
]


@pytest.mark.parametrize(("name", "value", "field", "expected"), _SEED_NAMES)
def test_seed_names_are_aliases(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, field: str, expected: object
) -> None:
    assert getattr(_settings(monkeypatch, **{name: value}), field) == expected


def test_embedding_provider_and_key_select_the_api_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _settings(
        monkeypatch, EMBEDDING_PROVIDER="OpenAI", EMBEDDING_MODEL="text-embedding-3-large", EMBEDDING_API_KEY="sk-emb"
    )
    assert (s.embedder, s.openai_embedding_model) == ("openai", "text-embedding-3-large")
    assert s.embedding_api_key is not None and s.embedding_api_key.get_secret_value() == "sk-emb"
    assert "sk-emb" not in repr(s)


def test_api_port_defaults_to_8000() -> None:
    assert load_settings(_env_file=None).api_port == 8000


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"NEO4J_INDEX_NAME": "chunkEmbeddings", "DRIFTLENS_CHUNK_VECTOR_INDEX": "chunk_embedding"},
            "NEO4J_INDEX_NAME=chunkEmbeddings",
        ),
        ({"NEO4J_VECTOR_INDEX_NAME": "a", "CHUNK_VECTOR_INDEX_NAME": "b"}, "each sets chunk_vector_index"),
        ({"FT_INDEX_ENTITIES": "a", "DRIFTLENS_ENTITY_FULLTEXT_INDEX": "b"}, "each sets entity_fulltext_index"),
        ({"VECTOR_INDEX_DIMENSIONS": "1536"}, "VECTOR_INDEX_DIMENSIONS=1536 does not match the local MiniLM"),
        (
            {"EMBEDDING_PROVIDER": "openai", "OPENAI_API_KEY": "sk-x", "VECTOR_INDEX_DIMENSIONS": "384"},
            "does not match text-embedding-3-small (1536-d)",
        ),
        ({"EMBEDDING_PROVIDER": "cohere"}, "unknown embedding provider 'cohere'"),
        ({"VECTOR_INDEX_SIMILARITY": "euclidean"}, "VECTOR_INDEX_SIMILARITY=euclidean is not supported"),
        ({"API_PORT": "70000"}, "Input should be less than or equal to 65535"),
    ],
)
def test_contradicting_names_fail_at_start_up_with_one_line(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        _settings(monkeypatch, **env)
    text = str(info.value)
    assert text.startswith("Invalid DriftLens settings: ")
    assert message in text
    assert "\n" not in text


def test_the_same_value_under_two_names_is_no_contradiction(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _settings(monkeypatch, NEO4J_INDEX_NAME="chunkEmbeddings", DRIFTLENS_CHUNK_VECTOR_INDEX="chunkEmbeddings")
    assert s.chunk_vector_index == "chunkEmbeddings"


def test_contradiction_between_env_file_and_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("EMBEDDING_API_KEY=sk-file-secret\n")
    monkeypatch.setenv("DRIFTLENS_EMBEDDING_API_KEY", "sk-env-secret")
    with pytest.raises(ConfigError) as info:
        load_settings(_env_file=env)
    assert "each sets embedding_api_key" in str(info.value)
    assert "sk-file-secret" not in str(info.value) and "sk-env-secret" not in str(info.value)


def test_an_explicit_value_is_not_contradicted_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_INDEX_NAME", "a")
    monkeypatch.setenv("DRIFTLENS_CHUNK_VECTOR_INDEX", "b")
    assert load_settings(_env_file=None, chunk_vector_index="c").chunk_vector_index == "c"


# --- the designs' defaults (issue #28 item 6) --------------------------------------------------------------
def test_model_call_defaults_are_the_designs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Retries 3 / 2 s first wait / 60 s longest wait, OAI_TIMEOUT_SEC 10: what the client is built with."""
    from retrieval.llm.client import ChatModel

    for name in ("OAI_TIMEOUT_SEC", "RETRY_MAX_ATTEMPTS", "RETRY_BACKOFF_BASE_SEC", "RETRY_BACKOFF_MAX_SEC"):
        monkeypatch.delenv(name, raising=False)
    s = _settings(monkeypatch, OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert (s.retry_max_attempts, s.retry_backoff_base_sec, s.retry_backoff_max_sec) == (3, 2.0, 60.0)
    assert s.llm_timeout_sec == 10.0
    model = ChatModel(s)
    assert model._client.timeout == 10.0
    assert model._retrying().stop.max_attempt_number == 3  # type: ignore[attr-defined]


def test_app_memory_stays_on_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app keeps its own threads' memory; the Agent Framework provider's `memory_enabled` is off (test_provider)."""
    monkeypatch.delenv("DRIFTLENS_MEMORY_ENABLED", raising=False)
    assert _settings(monkeypatch).memory_enabled is True


def test_embedding_provider_azure_openai_is_the_azure_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The designs write EMBEDDING_PROVIDER=azure-openai; it selects Azure OpenAI embeddings."""
    s = _settings(
        monkeypatch,
        EMBEDDING_PROVIDER="azure-openai",
        AZURE_OPENAI_ENDPOINT="https://x.openai.azure.com",
        OAI_EMBED_DEPLOYMENT_NAME="emb",
    )
    assert s.embedder == "azure"


def test_azure_ai_embedding_name_defaults_to_ada_002(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AZURE_AI_EMBEDDING_NAME", raising=False)
    assert _settings(monkeypatch).azure_ai_embedding_name == "text-embedding-ada-002"
