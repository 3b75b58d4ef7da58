"""What is known about the embedding models without loading one: their names and output sizes.

Why a module of its own: the settings check that VECTOR_INDEX_DIMENSIONS agrees with the embedder in use, and
the embedders read the settings; both read these facts from here, so neither imports the other.
"""

from __future__ import annotations

#: The local embedder: all-MiniLM-L6-v2, int8 ONNX.
LOCAL_MINILM_NAME = "local:all-MiniLM-L6-v2-int8"
LOCAL_MINILM_DIM = 384

#: Output sizes of OpenAI's embedding models, so `dim` is known without spending a request.
KNOWN_OPENAI_DIMS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
