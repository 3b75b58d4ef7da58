"""Where the vectors live and how they are indexed, and the batch sizes of global mode.

Why a group: these shape what a search reads and how fast, not what is indexed. `Settings` (settings.py) is every
group at once; scripts/config_doc.py documents each group from its `#:` comments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, SecretStr


class SearchSettings(BaseModel):
    """Where the vectors live and how they are indexed, and the batch sizes of global mode."""

    # --- vector store: where the chunk, entity and community vectors live ------------------
    #: `graph`: on the graph nodes, searched by the graph store's own vector indexes; `qdrant`: in Qdrant
    #: collections keyed by the graph node id (entry points there, traversal in the graph store).
    vector_store: Literal["graph", "qdrant"] = "graph"
    #: Qdrant server or Qdrant Cloud URL; unset: Qdrant's local mode in `qdrant_path` (no server, one process).
    qdrant_url: str | None = Field(None, validation_alias=AliasChoices("QDRANT_URL", "qdrant_url"))
    #: Qdrant API key (a secret), for a server or Qdrant Cloud.
    qdrant_api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("QDRANT_API_KEY", "qdrant_api_key"))
    #: Folder of Qdrant's local mode; default `data_dir/qdrant`.
    qdrant_path: Path | None = None
    #: Collections are named `<prefix>_chunk`, `<prefix>_entity`, `<prefix>_community`.
    qdrant_collection_prefix: str = Field("driftlens", pattern=r"^[A-Za-z0-9_-]+$")

    # --- vector index (HNSW) --------------------------------------------------------------
    #: HNSW graph degree of the embedded vector indexes (recall against memory).
    hnsw_m: int = Field(32, ge=4, le=128)
    #: HNSW candidate list size while building the embedded vector indexes.
    hnsw_ef_construction: int = Field(200, ge=10)
    #: HNSW candidate list size while searching the embedded vector indexes (recall against latency).
    hnsw_ef_runtime: int = Field(100, ge=10)
    #: Fewest candidates a Neo4j vector index is asked for (a search that keeps more asks for what it keeps).
    #: Neo4j has no search-time ef: the k asked is both the candidates its HNSW search explores and the rows
    #: returned, and each call costs in proportion to it. 60, not 40: an index filled in one segment (tools/neo4j's
    #: population buffer) explores fewer candidates than one of many, and 40 found 0.980 of the exact top 10 at
    #: 100k chunks against 0.993 for 60; the dev sets' rankings are the same at 40, 60 and 100
    #: (docs/benchmarks.md, issue #26).
    neo4j_vector_min_k: int = Field(60, ge=1)
    #: Dimension the vector indexes are declared with (optional): set, it must equal the embedder's dimension,
    #: or the start-up fails instead of the first search.
    vector_index_dimensions: int | None = Field(
        None,
        ge=1,
        validation_alias=AliasChoices(
            "DRIFTLENS_VECTOR_INDEX_DIMENSIONS", "VECTOR_INDEX_DIMENSIONS", "vector_index_dimensions"
        ),
    )
    #: Similarity of the vector indexes: DriftLens ranks by cosine, so `cosine` is the one value accepted.
    vector_index_similarity: Literal["cosine"] = Field(
        "cosine",
        validation_alias=AliasChoices(
            "DRIFTLENS_VECTOR_INDEX_SIMILARITY", "VECTOR_INDEX_SIMILARITY", "vector_index_similarity"
        ),
    )

    # --- global mode (the other retrieval knobs are the RetrievalKnobs fields, listed last) -------
    #: Community reports per map call in global mode.
    global_map_batch: int = Field(5, ge=1)
    #: Most communities global mode reads for one question.
    global_max_communities: int = Field(24, ge=1)
