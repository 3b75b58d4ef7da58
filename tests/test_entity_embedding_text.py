"""What an entity's vector is made of (`Entity.embedding_text`): its name, its type and the first
EMBED_CONTEXT_CHARS characters of its best sentence; the rest of its description is not embedded, since entity
embedding is an index's largest stage on name-dense corpora and its cost follows the tokens."""

from __future__ import annotations

from retrieval.indexing.entities import EMBED_CONTEXT_CHARS, Entity

BEST = (
    "Mount Calvary United Methodist Church is a Methodist church in Harlem Village, Manhattan, New York City, at "
    "116 Edgecombe Avenue, and its congregation was founded in 1889 by a group of families from the South."
)
OTHER = "The church's building was designed by the architect Henry F. Kilburn."


def test_the_embedding_text_is_name_type_and_the_best_sentences_start() -> None:
    church = Entity("p:mcc", "Mount Calvary Church", "FAC", ((BEST, "p:d:0"), (OTHER, "p:d:1")), 2)
    text = church.embedding_text()
    assert text == f"Mount Calvary Church (FAC): {BEST[:EMBED_CONTEXT_CHARS]}"
    assert len(BEST) > EMBED_CONTEXT_CHARS and "1889" not in text  # the sentence is cut ...
    assert "Kilburn" not in text  # ... and the other description sentences are left out
    assert len(text) <= len("Mount Calvary Church (FAC): ") + EMBED_CONTEXT_CHARS


def test_a_short_sentence_is_embedded_whole_and_no_evidence_leaves_name_and_type() -> None:
    station = Entity("p:beat", "100.1 The Beat", "ORG", (("The station goes by 100.1 The Beat.", "p:d:0"),), 1)
    assert station.embedding_text() == "100.1 The Beat (ORG): The station goes by 100.1 The Beat."
    assert Entity("p:x", "X", "CONCEPT", (), 1).embedding_text() == "X (CONCEPT): "
