"""Bad input: each bad file gets one message and the rest of the run goes on."""

from __future__ import annotations

import zipfile
from pathlib import Path

from retrieval.indexing.sources import MAX_DOCUMENT_BYTES, load, normalise_text


def test_bad_files_get_a_message_each_and_good_files_load(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.txt").write_text("Ada Lovelace wrote the first program.\r\n", encoding="utf-8")
    (folder / "z-copy.md").write_text("Ada Lovelace wrote the first program.\n", encoding="utf-8")
    (folder / "empty.txt").write_text("  \n\n", encoding="utf-8")
    (folder / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (folder / "undecodable.txt").write_bytes(b"caf\xe9 \x81\x8d\x8f\x90\x9d" * 50)
    (folder / "huge.txt").write_bytes(b"word " * (MAX_DOCUMENT_BYTES // 5 + 10))
    (folder / "latin.txt").write_bytes("Café Müller in Zürich".encode("cp1252"))
    (folder / "utf16.txt").write_text("Grace Hopper found a moth.", encoding="utf-16")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n")
    with zipfile.ZipFile(folder / "bundle.zip", "w") as zf:
        zf.writestr("inner/notes.md", "Alan Turing asked whether machines can think.")
        zf.writestr("inner/blank.txt", "")
    (folder / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    (folder / "scan.pdf").write_bytes(b"%PDF-1.4 truncated")

    result = load([folder, tmp_path / "missing.txt"])

    loaded = {d.path: d for d in result.documents}
    assert sorted(loaded) == [
        "mixed/bundle.zip/inner/notes.md",
        "mixed/good.txt",
        "mixed/latin.txt",
        "mixed/utf16.txt",
    ]
    assert loaded["mixed/latin.txt"].text == "Café Müller in Zürich"
    assert loaded["mixed/good.txt"].text == "Ada Lovelace wrote the first program."
    messages = {issue.path: issue.message for issue in result.issues}
    assert set(messages) == {
        "mixed/binary.txt",
        "mixed/broken.zip",
        "mixed/bundle.zip/inner/blank.txt",
        "mixed/z-copy.md",
        "mixed/empty.txt",
        "mixed/huge.txt",
        "mixed/scan.pdf",
        "mixed/undecodable.txt",
        str(tmp_path / "missing.txt"),
    }
    assert "duplicate of mixed/good.txt" in messages["mixed/z-copy.md"]
    assert "too large" in messages["mixed/huge.txt"]
    assert "empty" in messages["mixed/empty.txt"] and "empty" in messages["mixed/bundle.zip/inner/blank.txt"]
    assert "binary" in messages["mixed/binary.txt"] and "binary" in messages["mixed/undecodable.txt"]
    assert result.scopes == ["mixed/"]


def test_normalised_text_hashes_the_same_across_newline_styles() -> None:
    assert normalise_text("a  \r\nb\r\n\r\n") == normalise_text("a\nb\n") == "a\nb"
