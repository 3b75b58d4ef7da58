"""An indexing run over bad input: per-file progress in the load and chunk stages, a message per bad file,
and the check that limits what the app and the API may index to the configured roots."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.indexing import StageProgress, run_index
from retrieval.indexing.roots import PathNotAllowed, allowed_source
from retrieval.store import GraphStore
from tests.conftest import make_settings


def test_run_reports_every_file_in_the_load_and_chunk_stages_and_goes_on(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    names = ["ada.txt", "grace.md", "alan.txt"]
    for name, who in zip(names, ("Ada Lovelace", "Grace Hopper", "Alan Turing"), strict=True):
        (folder / name).write_text(f"{who} changed computing. {who} is remembered in many books.", encoding="utf-8")
    with zipfile.ZipFile(folder / "old.zip", "w") as zf:
        zf.writestr("locked.txt", "secret")
    raw = bytearray((folder / "old.zip").read_bytes())
    raw[6] |= 0x1  # the encryption flag in the local header
    raw[raw.find(b"PK\x01\x02") + 8] |= 0x1  # and in the central directory
    (folder / "old.zip").write_bytes(bytes(raw))
    events: list[StageProgress] = []

    report = run_index(settings, store, embedder, [folder], on_progress=events.append)

    assert sorted(report.added) == sorted(f"docs/{name}" for name in names)
    assert [(i.path, "encrypted" in i.message) for i in report.issues] == [("docs/old.zip/locked.txt", True)]
    load = [(e.done, e.total, e.message) for e in events if e.stage == "load" and e.message]
    assert load == [
        (1, 4, "docs/ada.txt"),
        (2, 4, "docs/alan.txt"),
        (3, 4, "docs/grace.md"),
        (4, 4, "docs/old.zip/locked.txt"),
    ]
    chunk = [(e.done, e.total, e.message) for e in events if e.stage == "chunk" and e.message]
    assert chunk == [(1, 3, "docs/ada.txt"), (2, 3, "docs/alan.txt"), (3, 3, "docs/grace.md")]


def test_a_link_followed_by_an_older_run_is_removed_once_links_are_not_followed(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path
) -> None:
    (tmp_path / "secret.txt").write_text("root:x:0:0:root:/root:/bin/bash", encoding="utf-8")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("Ada Lovelace wrote the first program.", encoding="utf-8")
    (folder / "passwd.txt").symlink_to(tmp_path / "secret.txt")
    following = settings.model_copy(update={"index_follow_links": True})
    assert sorted(run_index(following, store, embedder, [folder]).added) == ["docs/notes.txt", "docs/passwd.txt"]

    report = run_index(settings, store, embedder, [folder])

    assert report.deleted == ["docs/passwd.txt"] and report.unchanged == ["docs/notes.txt"]
    assert "outside the indexed folder" in report.issues[0].message


def test_only_folders_under_the_index_roots_may_be_indexed_from_the_app(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "notes").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (data / "escape").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    settings = make_settings(tmp_path / "state", index_roots=(data,))

    assert allowed_source(settings, data / "notes") == (data / "notes").resolve()
    assert allowed_source(settings, f"{data}/notes/../notes") == (data / "notes").resolve()
    for refused in (tmp_path / "elsewhere", data / "escape", data / ".." / "elsewhere", "/etc"):
        with pytest.raises(PathNotAllowed, match="outside the folders you can index from"):
            allowed_source(settings, refused)
    with pytest.raises(PathNotAllowed, match="does not exist"):
        allowed_source(settings, data / "missing")


def test_default_index_roots_are_the_repository_data_folder_and_the_data_dir(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    repo_data = Path(__file__).resolve().parents[1] / "data"
    assert settings.allowed_index_roots == (repo_data, tmp_path)
    assert allowed_source(settings, repo_data / "demo") == (repo_data / "demo").resolve()
    assert make_settings(tmp_path, index_roots=f"/srv/a:{tmp_path}").allowed_index_roots == (Path("/srv/a"), tmp_path)
