"""Tuning lab: labelled question sets in the graph, the settings grid, its statistics and the `tune` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.eval_retrieval import passages as harness_passages
from benchmarks.eval_retrieval import score as harness_score
from retrieval.cli import main
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.errors import ConfigError
from retrieval.indexing import document_id, run_index
from retrieval.models import QueryParams
from retrieval.search.passages import ChunkText, locate
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore
from retrieval.tuning.grid import parse_grid, run_grid
from retrieval.tuning.question_sets import Passage, Question, QuestionSet, read_set, write_set
from retrieval.tuning.set_store import Owner, QuestionSetStore
from retrieval.tuning.stats import paired_difference, split
from tests.conftest import SEARCH_CHUNKS, SEARCH_PROJECT, backend_env

CURIE = Passage("Marie Curie", SEARCH_CHUNKS["c1"][2])
BREAD = Passage("Baking", SEARCH_CHUNKS["c4"][2])
PHYSICS = Passage("Pierre Curie", SEARCH_CHUNKS["c3"][2])


def science_set(unit: str = "chunk") -> QuestionSet:
    questions = [
        Question("q1", "Who discovered polonium?", frozenset({CURIE.key}), frozenset({BREAD.key})),
        Question("q2", "How long should sourdough bake?", frozenset({BREAD.key})),
        Question("q3", "Who studied piezoelectricity in crystals?", frozenset({PHYSICS.key})),
    ]
    return QuestionSet("science-set", questions, {p.key: p for p in (CURIE, BREAD, PHYSICS)}, unit=unit)  # type: ignore[arg-type]


def test_grid_axes_parse_with_aliases_and_refuse_nonsense() -> None:
    assert parse_grid(["alpha=0.3,0.5", "hops=0,1", "k=5"]) == {"alpha": [0.3, 0.5], "max_hops": [0, 1], "top_k": [5]}
    with pytest.raises(ConfigError, match="NAME=v1,v2"):
        parse_grid(["colour=red"])
    with pytest.raises(ConfigError, match="alpha=high"):
        parse_grid(["alpha=high"])


def test_labelled_passages_find_their_chunks_by_text() -> None:
    chunks = [ChunkText("a", "d1", "Marie   Curie discovered\npolonium"), ChunkText("b", "d2", "unrelated text here")]
    found = locate({"p": "Title\n\nMarie Curie discovered polonium and radium.", "q": "nothing"}, chunks)
    assert found == {"p": {"a"}, "q": set()}


def test_grid_measures_each_setting_on_the_labelled_chunks(search_store: GraphStore, embedder: Embedder) -> None:
    ctx = Context(search_store.settings, search_store, embedder, None, SEARCH_PROJECT)
    grid = {"search_type": ["vector", "fulltext"], "top_k": [1, 3]}
    seen: list[tuple[int, int]] = []
    run = run_grid(ctx, science_set(), grid, on_progress=lambda done, total, _what: seen.append((done, total)))
    assert run.questions == 3 and run.unlocated == 0
    assert seen[-1] == (9, 9)  # 3 questions x 3 rankings (vector, fulltext, the current hybrid): k shares one
    by_label = {r.label: r for r in run.results}
    assert set(by_label) >= {"search_type=vector k=1", "search_type=fulltext k=3"}
    for result in run.results:  # every question's gold chunk is within the top 3 of either arm
        if result.setting.get("top_k") == 3:
            assert result.mean("recall") == 1.0
    # the current setting (hybrid, top_k 10) is measured too and marked, so the best can be compared with it
    current = [r for r in run.results if r.current]
    assert len(current) == 1 and current[0].setting == {"search_type": "hybrid", "top_k": 10}
    first = by_label["search_type=vector k=1"].outcomes[0]
    assert first.question_id == "q1" and first.found == [CURIE.key] and first.reciprocal_rank == 1.0


def test_grid_figures_equal_the_evaluation_harness(store: GraphStore, embedder: Embedder, tmp_path: Path) -> None:
    """Pooled passages indexed as the harness indexes them: the grid's Recall@5 and MRR are the harness's."""
    rows = [
        {"_id": "h1", "question": "Which drummer played for Rush?", "supporting_facts": [["Neil Peart", 0]],
         "context": [["Neil Peart", ["Neil Peart was the drummer and lyricist of the band Rush."]],
                     ["Toto", ["Toto is an American rock band formed in 1977 in Los Angeles."]]]},
        {"_id": "h2", "question": "Where was Toto formed?", "supporting_facts": [["Toto", 0]],
         "context": [["Toto", ["Toto is an American rock band formed in 1977 in Los Angeles."]],
                     ["Geddy Lee", ["Geddy Lee sang and played bass guitar in Rush."]]]},
    ]  # fmt: skip
    set_file = tmp_path / "mini.jsonl"
    set_file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data = read_set(set_file)
    docs = tmp_path / "passages"
    docs.mkdir()
    doc_to_key = {}
    for key, passage in data.passages.items():
        (docs / f"{key}.txt").write_text(f"{passage.title}\n\n{passage.text}\n", encoding="utf-8")
        doc_to_key[document_id("eval", f"passages/{key}.txt")] = key
    run_index(store.settings, store, embedder, [docs], project="eval")
    ctx = Context(store.settings, store, embedder, None, "eval")
    params = QueryParams.from_settings(store.settings, top_k=20, filters={}, alpha=0.6, max_hops=1)
    expected = [
        harness_score(harness_passages(retrieve(ctx, q.text, params, walk=False).chunks, doc_to_key), q.gold)
        for q in data.questions
    ]
    run = run_grid(ctx, data, {"alpha": [0.6], "max_hops": [1], "top_k": [5]})
    ours = next(r for r in run.results if r.setting == {"alpha": 0.6, "max_hops": 1, "top_k": 5})
    assert ours.mean("recall") == pytest.approx(sum(e["R@5"] for e in expected) / len(expected))
    assert ours.mean("mrr") == pytest.approx(sum(e["MRR"] for e in expected) / len(expected))


def test_question_sets_are_kept_per_project_and_user(store: GraphStore) -> None:
    sets = QuestionSetStore(store)
    mine, theirs, elsewhere = Owner("science", "ana"), Owner("science", "bob"), Owner("other", "ana")
    sets.label(mine, "curie", "Who discovered polonium?", [(CURIE, True), (BREAD, False)])
    sets.label(mine, "curie", "Who discovered polonium?", [(BREAD, True)])  # a changed thumb is a correction
    loaded = sets.load(mine, "curie")
    assert [q.text for q in loaded.questions] == ["Who discovered polonium?"]
    assert loaded.questions[0].gold == {CURIE.key, BREAD.key} and not loaded.questions[0].negative
    assert [(s.name, s.questions, s.labelled) for s in sets.names(mine)] == [("curie", 1, 1)]
    assert sets.names(theirs) == [] and sets.names(elsewhere) == []
    with pytest.raises(ConfigError, match="No question set 'curie'"):
        sets.load(theirs, "curie")
    assert sets.delete(theirs, "curie") == 0 and sets.names(mine)
    with pytest.raises(ConfigError, match="project and a user"):
        Owner("science", "")


def test_sets_round_trip_through_the_harness_format(store: GraphStore, tmp_path: Path) -> None:
    original = science_set()
    QuestionSetStore(store).save(Owner("science", "ana"), original)
    loaded = QuestionSetStore(store).load(Owner("science", "ana"), original.name)
    write_set(loaded, tmp_path / "out.jsonl")
    again = read_set(tmp_path / "out.jsonl")
    assert again.unit == "chunk" and again.passages == original.passages
    assert [(q.id, q.text, q.gold, q.negative) for q in again.questions] == [
        (q.id, q.text, q.gold, q.negative) for q in original.questions
    ]


def test_split_is_stable_and_the_interval_says_when_a_difference_is_noise() -> None:
    ids = [f"q{i}" for i in range(200)]
    train, test = split(ids)
    assert train | test == set(ids) and not train & test and 40 < len(test) < 80
    assert split(list(reversed(ids))) == (train, test)
    tiny = paired_difference({"a": 1.0, "b": 0.0, "c": 1.0}, {"a": 0.0, "b": 1.0, "c": 1.0})
    assert not tiny.meaningful and "noise" in tiny.describe("Recall@k")
    clear = paired_difference({q: 1.0 for q in ids}, {q: 0.0 for q in ids})
    assert clear.meaningful and clear.low == 1.0


def test_tune_command_prints_the_grid_and_saves_sets(
    search_store: GraphStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env from the repository
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "NEO4J_URI", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in backend_env(search_store.settings).items():
        monkeypatch.setenv(name, value)
    graph = ["--graph", str(search_store.settings.embedded_graph_path), "--project", SEARCH_PROJECT]
    write_set(science_set(), tmp_path / "set.jsonl")
    assert main(["tune", "set.jsonl", "--grid", "alpha=0.2,0.8", "k=1,3", "--json", *graph]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["questions"] == 3 and len(report["rows"]) == 5  # 4 grid settings + the current one
    assert {"recall", "all_gold", "mrr", "recall_train", "recall_test"} <= set(report["rows"][0])
    assert "Best on the train part" in report["verdict"]
    assert main(["tune", "set.jsonl", "--save", "science-set", *graph]) == 0
    assert main(["tune", "--set", "science-set", "--grid", "hops=0", *graph]) == 0
    assert "science-set: 3 labelled questions" in capsys.readouterr().out
    assert main(["tune", "--set", "missing", "--grid", "hops=0", *graph]) == 2
    assert "No question set 'missing'" in capsys.readouterr().err
    assert main(["tune", "set.jsonl", *graph]) == 2


def test_ranking_without_the_walk_ranks_the_same_chunks(search_store: GraphStore, embedder: Embedder) -> None:
    ctx = Context(search_store.settings, search_store, embedder, None, SEARCH_PROJECT)
    params = QueryParams.from_settings(search_store.settings, max_hops=2, top_k=4)
    full = retrieve(ctx, "Who discovered polonium with Pierre?", params, walk=True)
    ranked = retrieve(ctx, "Who discovered polonium with Pierre?", params, walk=False)
    assert full.expansion.entities and not ranked.expansion.entities
    assert [h.id for h in ranked.chunks] == [h.id for h in full.chunks]
