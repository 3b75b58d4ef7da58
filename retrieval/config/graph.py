"""The graph: which database holds it, and the labels, properties and index names it is read through.

Why a group: bringing your own graph means setting these and nothing else. `Settings` (settings.py) is every group
at once; scripts/config_doc.py documents each group from its `#:` comments.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, BaseModel, Field, SecretStr

DEFAULT_DATA_DIR = Path(".driftlens")


class GraphSettings(BaseModel):
    """The graph: which database holds it, and the labels, properties and index names it is read through."""

    # --- graph backend -------------------------------------------------------------------
    #: Bolt/neo4j URI of a Neo4j 5 server; when set, Neo4j replaces the embedded graph.
    neo4j_uri: str | None = Field(None, validation_alias=AliasChoices("NEO4J_URI", "neo4j_uri"))
    #: Neo4j user name.
    neo4j_username: str = Field(
        "neo4j", validation_alias=AliasChoices("NEO4J_USERNAME", "NEO4J_USER", "neo4j_username")
    )
    #: Neo4j password (a secret: masked in every message and log).
    neo4j_password: SecretStr | None = Field(None, validation_alias=AliasChoices("NEO4J_PASSWORD", "neo4j_password"))
    #: Neo4j database to use.
    neo4j_database: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_DATABASE", "neo4j_database"))
    #: Folder for local state: the embedded graph (unless `graph_path` is set) and the chat history;
    #: one of the default index roots.
    data_dir: Path = DEFAULT_DATA_DIR
    #: Embedded graph file (FalkorDB Lite); default `data_dir/graph.db`. The CLI's `--graph` sets it.
    graph_path: Path | None = Field(None, validation_alias=AliasChoices("DRIFTLENS_GRAPH_PATH", "graph_path"))
    #: Name of the graph inside the embedded FalkorDB server.
    graph_name: str = "driftlens"
    #: Most memory (MB) the embedded server may hold; a 24 GB machine shares it with the app and the indexer.
    #: Past it writes fail with "OOM" and reads go on.
    graph_max_memory_mb: int = Field(8192, ge=64)
    #: Working memory (MB) one query may use on the embedded server before it is stopped. A vector index's growth
    #: counts against the write that grows it, so a write that hits the cap raises it to twice the largest
    #: vector index (at most `graph_max_memory_mb`) and runs again; reads stay under whatever it is.
    graph_query_memory_mb: int = Field(1024, ge=16)
    #: Server-side limit for every read (user Cypher, search, explorer); a hung server fails the read this long
    #: (plus a short grace) after it was sent, instead of blocking for the loading timeout below.
    query_timeout_ms: int = Field(30_000, ge=100)
    #: Server-side limit for Cypher a person or a model writes: the explorer's Cypher box, the agent's tools and
    #: the service's `read_cypher`. Below `query_timeout_ms` (which caps it): a runaway query frees the graph sooner.
    cypher_timeout_ms: int = Field(10_000, ge=100)
    #: How long opening a graph may take: the server replays its log and rebuilds indexes; writes get as long.
    graph_load_timeout_s: float = Field(600.0, gt=0)
    #: An embedded server that uses no CPU at all for this long while statements wait for it is taken for stuck
    #: (a FalkorDB deadlock, FalkorDB#2129) and restarted: reads are sent again, a write is reported unconfirmed.
    #: A server that stops using CPU while it loads at start is killed and started once more.
    #: Below `query_timeout_ms`, so a stuck server is restarted before a read's socket gives up on it.
    graph_stall_s: float = Field(20.0, gt=0)
    #: Leave the embedded graph server running when the last DriftLens closes the graph, so the next start
    #: attaches to it in about a second instead of reloading the graph and rebuilding its indexes (minutes for
    #: 100k chunks). The server keeps the graph's memory until `python -m retrieval stop` stops it.
    graph_keep_server: bool = False
    #: Project used when a call names none; every node carries its project in `projectId`. Left unset, a graph
    #: that holds no project at all (built by another tool) is read whole.
    project: str = "demo"

    # --- graph model: labels, properties, index names (bring-your-own-graph) -------------
    #: Label of document nodes.
    document_label: str = "__Document__"
    #: Label of chunk nodes (the text units that are searched and cited).
    chunk_label: str = "__Chunk__"
    #: Label of entity nodes.
    entity_label: str = "__Entity__"
    #: Label of community nodes (Leiden clusters of entities, with summaries).
    community_label: str = "__Community__"
    #: Label of project nodes (embedder name and dimension, indexing state).
    project_label: str = "__Project__"
    #: Label of conversation memory nodes.
    memory_label: str = "Memory"
    #: Property holding a chunk's text.
    text_property: str = "text"
    #: Property holding a node's embedding vector (chunks, entities, communities, memories).
    embedding_property: str = "embedding"
    #: Property holding an entity's name (neo4j-graphrag writes `name`).
    entity_name_property: str = "title"
    #: Relationship types walked between entities (graph expansion, the explorer); a JSON list.
    entity_relationships: tuple[str, ...] = ("RELATED",)
    #: Relationship tying a chunk to an entity it mentions (neo4j-graphrag: `FROM_CHUNK`).
    mention_relationship: str = "HAS_ENTITY"
    #: Whether that relationship points from the chunk to the entity; neo4j-graphrag's `FROM_CHUNK` points from
    #: the entity to the chunk (false).
    mention_from_chunk: bool = True
    #: Vector index over chunk embeddings.
    chunk_vector_index: str = Field(
        "chunk_embedding",
        validation_alias=AliasChoices(
            "DRIFTLENS_CHUNK_VECTOR_INDEX",
            "NEO4J_INDEX_NAME",
            "NEO4J_VECTOR_INDEX_NAME",
            "CHUNK_VECTOR_INDEX_NAME",
            "chunk_vector_index",
        ),
    )
    #: Fulltext index over chunk text; hybrid and fulltext search need it.
    chunk_fulltext_index: str | None = Field(
        "chunk_text",
        validation_alias=AliasChoices(
            "DRIFTLENS_CHUNK_FULLTEXT_INDEX", "NEO4J_FULLTEXT_INDEX_NAME", "chunk_fulltext_index"
        ),
    )
    #: Vector index over entity embeddings.
    entity_vector_index: str = Field(
        "entity_embedding",
        validation_alias=AliasChoices("DRIFTLENS_ENTITY_VECTOR_INDEX", "ENTITY_VECTOR_INDEX", "entity_vector_index"),
    )
    #: Fulltext index over entity title and description (optional).
    entity_fulltext_index: str | None = Field(
        "entity_text",
        validation_alias=AliasChoices("DRIFTLENS_ENTITY_FULLTEXT_INDEX", "FT_INDEX_ENTITIES", "entity_fulltext_index"),
    )
    #: Vector index over community summary embeddings.
    community_vector_index: str = Field(
        "community_embedding",
        validation_alias=AliasChoices(
            "DRIFTLENS_COMMUNITY_VECTOR_INDEX", "COMMUNITY_VECTOR_INDEX_NAME", "community_vector_index"
        ),
    )
    #: Vector index over memory embeddings.
    memory_vector_index: str = "memory_embedding"
    #: Enrichment Cypher run per hit: receives `node` and `score`, returns at least `text` and `score`
    #: (for graphs built by other tools).
    retrieval_query: str | None = None
