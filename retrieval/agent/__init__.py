"""Agent-mode helpers that hold no Cypher: the tracer and the multi-turn session."""
