"""Offline extraction in a child process (settings `extract_processes`, `extract_process_min_words`): the same
graph as extracting in-process, a document whose extraction raises does not end the run, and a stopped run
leaves no child behind; documents parsed together extract as each alone. Real spaCy in a real spawned process,
the real ONNX embedder, both graph backends."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)
from __future__ import annotations

import threading
from pathlib import Path

import psutil
import pytest

from retrieval.config import Settings
from retrieval.errors import DriftLensError
from retrieval.indexing import StageProgress, run_index
from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.extract_offline import extract_document
from retrieval.indexing.extract_process import extract_documents, groups
from tests.indexing_runs import DOCS, KilledError, assert_same_graph, corpus, dump, graph, ids  # noqa: F401 (fixtures)

#: 45 space-separated "words" of 30,000 characters (a dump of encoded data, say): the tokenizer makes one unknown
#: token of each, so they fit one chunk (the fixture's are 48 tokens), longer than spaCy accepts (ValueError E088).
BLOB = " ".join(f"blob{i:02d}" * 5000 for i in range(45))


def extraction_children() -> list[psutil.Process]:
    """This test process's extraction processes (spawned pool workers; not the graph server or the
    multiprocessing resource tracker)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if any("multiprocessing.spawn" in part for part in child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def with_processes(settings: Settings, processes: int) -> Settings:
    """`processes` extraction processes whatever the run's size (the test corpus is far below the threshold)."""
    return settings.model_copy(update={"extract_processes": processes, "extract_process_min_words": 0})


def test_extraction_process_builds_the_same_graph_as_extracting_in_process(graph, corpus, embedder) -> None:
    settings, store = graph
    run_index(with_processes(settings, 0), store, embedder, [corpus], project="p")
    in_process = dump(store)
    store.clear()
    events: list[tuple[StageProgress, int]] = []
    children: set[int] = set()

    def record(event: StageProgress) -> None:
        events.append((event, threading.get_ident()))
        if event.stage == "extract" and event.done:
            children.update(child.pid for child in extraction_children())

    report = run_index(with_processes(settings, 1), store, embedder, [corpus], project="p", on_progress=record)
    assert children, "extraction did not run in a child process"
    assert_same_graph(in_process, dump(store))
    assert not report.issues
    # progress still comes from the caller's thread, one tick per document in document order
    assert {thread for _e, thread in events} == {threading.get_ident()}
    extract = [e.done for e, _t in events if e.stage == "extract"]
    assert extract == sorted(extract) and extract[-1] == 3
    assert not extraction_children()


@pytest.mark.parametrize("processes", [1, 0])
def test_a_document_whose_extraction_fails_is_reported_and_the_run_goes_on(graph, corpus, embedder, processes) -> None:
    settings, store = graph
    (corpus / "blob.txt").write_text(BLOB, encoding="utf-8")
    report = run_index(with_processes(settings, processes), store, embedder, [corpus], project="p")
    assert [
        (i.path, "ValueError" in i.message, i.message.endswith("indexed without entities")) for i in report.issues
    ] == [("corpus/blob.txt", True, True)]
    assert sorted(report.added) == ["corpus/blob.txt", "corpus/gates.txt", "corpus/murati.txt", "corpus/su.txt"]
    assert {"p:microsoft", "p:lisa-su", "p:openai"} <= set(ids(store, "__Entity__"))
    blob = store.query(
        "MATCH (c:__Chunk__) WHERE c.path = 'corpus/blob.txt' "
        "RETURN count(c) AS chunks, sum(size([(c)-[:HAS_ENTITY]->() | 1])) AS entities"
    )
    assert blob[0]["chunks"] > 0 and blob[0]["entities"] == 0  # its chunks are searchable, without entities


def test_a_stopped_run_leaves_no_extraction_process(graph, corpus, embedder) -> None:
    settings, store = graph
    seen: list[psutil.Process] = []

    def stop(event: StageProgress) -> None:
        if event.stage == "extract" and event.done == 1:
            seen.extend(extraction_children())
            raise KilledError("stopped during extraction")

    with pytest.raises(KilledError):
        run_index(with_processes(settings, 1), store, embedder, [corpus], project="p", on_progress=stop)
    assert seen, "extraction did not run in a child process"
    assert not any(child.is_running() for child in seen)
    assert not extraction_children()


def test_a_killed_extraction_process_ends_the_run_with_a_message(graph, corpus, embedder) -> None:
    """Killed from outside (out of memory, say) while the run waits for it: a clear error, no child left."""
    settings, store = graph
    killed: list[psutil.Process] = []

    def kill(event: StageProgress) -> None:
        if event.stage == "embed" and not killed:  # the first tick with a child: waiting for its first result
            killed.extend(extraction_children())
            for child in killed:
                child.kill()

    with pytest.raises(DriftLensError, match="extraction process stopped unexpectedly"):
        run_index(with_processes(settings, 1), store, embedder, [corpus], project="p", on_progress=kill)
    assert killed and not extraction_children()


def test_small_runs_extract_in_process(graph, corpus: Path, embedder) -> None:
    """Below `extract_process_min_words` no child is started (the three test documents have ~200 words)."""
    settings, store = graph
    children: list[psutil.Process] = []

    def record(event: StageProgress) -> None:
        if event.stage == "extract" and event.done:
            children.extend(extraction_children())

    small = settings.model_copy(update={"extract_processes": 1, "extract_process_min_words": 1000})
    run_index(small, store, embedder, [corpus], project="p", on_progress=record)
    assert not children and ids(store, "__Entity__")


def test_documents_parsed_together_extract_as_each_alone() -> None:
    """One spaCy `pipe` call for a group of documents gives each the extraction it gets alone; a document spaCy
    refuses gets its exception and the others their extractions."""
    jobs = [(text, chunk_text(text, 48, 0.1)) for text in DOCS.values()]
    assert sum(len(chunks) for _t, chunks in jobs) > len(jobs)  # several chunks a document: offsets matter
    alone = [extract_document(text, chunks) for text, chunks in jobs]
    assert extract_documents(jobs) == alone
    with_blob = extract_documents([jobs[0], (BLOB, chunk_text(BLOB, 48, 0.1)), *jobs[1:]])
    assert isinstance(with_blob[1], ValueError)
    assert [with_blob[0], *with_blob[2:]] == alone


def test_documents_are_grouped_in_order_by_chunks() -> None:
    chunk = chunk_text("one two three", 48, 0)[0]
    jobs = [(str(n), [chunk] * n) for n in (1, 2, 3, 1, 1)]
    assert [[text for text, _c in group] for group in groups(jobs, size=3)] == [["1", "2"], ["3"], ["1", "1"]]
    assert list(groups([], size=3)) == []
