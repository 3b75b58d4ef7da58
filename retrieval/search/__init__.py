"""Search primitives over chunks, entities and communities: vector, fulltext, hybrid fusion,
enrichment Cypher, neighbourhood expansion and extractive evidence. Modes compose these.
"""
