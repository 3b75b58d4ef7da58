"""Five short documents about the Curies, a two-hop question over them, and the bitwise comparison of two rankings:
what the stored-profile tests (test_stored_terms.py) and the one-statement ranking tests (test_ranking_fold.py)
both search, so that each proves its path gives exactly the other path's ranking on the same graph."""

from __future__ import annotations

from pathlib import Path

from retrieval.search.ranking import Retrieval

PROJECT = "terms"
DOCUMENTS = {
    "curie.txt": "Marie Curie discovered polonium and radium together with Pierre Curie in Paris. "
    "She was born in Warsaw and studied physics at the University of Paris.",
    "warsaw.txt": "Warsaw is the capital of Poland. The city lies on the Vistula river and was rebuilt after the war.",
    "pierre.txt": "Pierre Curie studied crystals and magnetism. Pierre Curie and his brother Jacques Curie discovered "
    "piezoelectricity in crystals.",
    "nobel.txt": "Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.",
    "bread.txt": "Bake the sourdough bread at 220 degrees for thirty minutes until the crust is golden.",
}
QUESTION = "Which river flows through the city where the discoverer of polonium was born?"


def written(tmp_path: Path, documents: dict[str, str]) -> Path:
    """`documents` as the files of one folder, the ones no longer listed removed (so a rerun indexes a change)."""
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        if old.name not in documents:
            old.unlink()
    for name, text in documents.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def assert_same(a: Retrieval, b: Retrieval) -> None:
    """The two rankings' chunks (scores, sources, texts), seeds and walk are bitwise equal."""
    assert [(h.id, h.score, h.sources, h.text) for h in a.chunks] == [
        (h.id, h.score, h.sources, h.text) for h in b.chunks
    ]
    assert [(h.id, h.score) for h in a.seeds] == [(h.id, h.score) for h in b.seeds]
    assert a.hit_entities == b.hit_entities and a.expansion == b.expansion
