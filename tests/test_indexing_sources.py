"""Bad input: each bad file gets one message and the rest of the run goes on.

The bad archives are real zip files written by `zipfile` and then damaged the way the fault probe did: a
CRC that does not match, the encryption flag set, sizes in both headers forged.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

from retrieval.indexing.sources import LoadLimits, load, normalise_text
from tests.conftest import make_settings

MB = 1024 * 1024


def _limits(tmp: Path, **overrides: object) -> LoadLimits:
    return LoadLimits.of(make_settings(tmp, **overrides))


def test_bad_files_get_a_message_each_and_good_files_load(tmp_path: Path) -> None:
    limits = _limits(tmp_path)
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.txt").write_text("Ada Lovelace wrote the first program.\r\n", encoding="utf-8")
    (folder / "z-copy.md").write_text("Ada Lovelace wrote the first program.\n", encoding="utf-8")
    (folder / "empty.txt").write_text("  \n\n", encoding="utf-8")
    (folder / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (folder / "undecodable.txt").write_bytes(b"caf\xe9 \x81\x8d\x8f\x90\x9d" * 50)
    (folder / "huge.txt").write_bytes(b"word " * (limits.document_bytes // 5 + 10))
    (folder / "latin.txt").write_bytes("Café Müller in Zürich".encode("cp1252"))
    (folder / "utf16.txt").write_text("Grace Hopper found a moth.", encoding="utf-16")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n")
    with zipfile.ZipFile(folder / "bundle.zip", "w") as zf:
        zf.writestr("inner/notes.md", "Alan Turing asked whether machines can think.")
        zf.writestr("inner/blank.txt", "")
    (folder / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    (folder / "scan.pdf").write_bytes(b"%PDF-1.4 truncated")

    result = load([folder, tmp_path / "missing.txt"], limits)

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


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _forge(path: Path, member: str, *, crc: int | None = None, size: int | None = None, flags: int = 0) -> None:
    """Rewrite one member's local and central headers: CRC-32, uncompressed size, general-purpose flags."""
    raw = bytearray(path.read_bytes())
    name = member.encode()
    for signature, crc_at, size_at in ((b"PK\x03\x04", 14, 22), (b"PK\x01\x02", 16, 24)):
        start = 0
        while (start := raw.find(signature, start)) >= 0:
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if raw[name_at : name_at + len(name)] == name:
                flag_at = start + (6 if signature == b"PK\x03\x04" else 8)
                struct.pack_into("<H", raw, flag_at, struct.unpack_from("<H", raw, flag_at)[0] | flags)
                if crc is not None:
                    struct.pack_into("<I", raw, start + crc_at, crc)
                if size is not None:
                    struct.pack_into("<I", raw, start + size_at, size)
            start += 4
    path.write_bytes(bytes(raw))


def test_damaged_encrypted_and_forged_zip_members_get_a_message_each(tmp_path: Path) -> None:
    good = b"Ada Lovelace wrote the first program."
    bundle = _zip(
        tmp_path / "bundle.zip",
        {
            "a-good.txt": good,
            "bad-crc.txt": b"Grace Hopper found a moth. " * 40,
            "bomb.txt": b"A" * (20 * MB),  # 20 MB expanded, its headers say 1 kB
            "locked.txt": b"secret notes",
            "z-good.md": b"Alan Turing asked whether machines can think.",
        },
    )
    _forge(bundle, "bad-crc.txt", crc=0x12345678)
    _forge(bundle, "bomb.txt", size=1000)
    _forge(bundle, "locked.txt", flags=0x1)

    result = load([bundle], _limits(tmp_path))

    assert [d.path for d in result.documents] == ["bundle.zip/a-good.txt", "bundle.zip/z-good.md"]
    messages = {issue.path: issue.message for issue in result.issues}
    assert set(messages) == {"bundle.zip/bad-crc.txt", "bundle.zip/bomb.txt", "bundle.zip/locked.txt"}
    assert "bad CRC-32" in messages["bundle.zip/bad-crc.txt"]
    assert "bad CRC-32" in messages["bundle.zip/bomb.txt"]  # read only up to its forged size, then refused
    assert "encrypted" in messages["bundle.zip/locked.txt"]


def test_archive_and_run_caps_count_bytes_read_not_declared(tmp_path: Path) -> None:
    text = b"Marie Curie discovered polonium. " * 1000  # 33 kB each
    first = _zip(tmp_path / "first.zip", {f"doc{i}.txt": text + bytes([65 + i]) for i in range(4)})
    _forge(first, "doc1.txt", size=10)  # understated: the cap counts what is read, not what is claimed
    second = _zip(tmp_path / "second.zip", {f"more{i}.txt": text + bytes([97 + i]) for i in range(4)})
    limits = LoadLimits(document_bytes=MB, archive_bytes=70_000, run_bytes=120_000, follow_links=False)

    result = load([first, second], limits)

    assert [d.path for d in result.documents] == ["first.zip/doc0.txt", "first.zip/doc2.txt", "second.zip/more0.txt"]
    messages = {issue.path: issue.message for issue in result.issues}
    assert "bad CRC-32" in messages["first.zip/doc1.txt"]
    assert "first.zip expands past its size cap" in messages["first.zip/doc3.txt"]
    assert "DRIFTLENS_MAX_ARCHIVE_BYTES" in messages["first.zip/doc3.txt"]
    for late in ("second.zip/more1.txt", "second.zip/more2.txt", "second.zip/more3.txt"):
        assert "this run reached its total size cap" in messages[late] and "DRIFTLENS_MAX_RUN_BYTES" in messages[late]


def test_links_out_of_the_indexed_folder_are_skipped_with_a_message(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd.txt").write_text("root:x:0:0:root:/root:/bin/bash", encoding="utf-8")
    (outside / "more").mkdir()
    (outside / "more" / "secret.md").write_text("private notes", encoding="utf-8")
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("Ada Lovelace wrote the first program.", encoding="utf-8")
    (folder / "passwd.txt").symlink_to(outside / "passwd.txt")
    (folder / "more").symlink_to(outside / "more", target_is_directory=True)
    (folder / "sub" / "inside.txt").symlink_to(folder / "notes.txt")  # inside the root: read (a duplicate)
    (folder / "dangling.md").symlink_to(tmp_path / "nowhere.md")

    result = load([folder], _limits(tmp_path))

    assert [d.path for d in result.documents] == ["docs/notes.txt"]
    messages = {issue.path: issue.message for issue in result.issues}
    assert set(messages) == {"docs/passwd.txt", "docs/more", "docs/dangling.md", "docs/sub/inside.txt"}
    assert "outside the indexed folder" in messages["docs/passwd.txt"]
    assert "outside the indexed folder" in messages["docs/more"]
    assert "broken" in messages["docs/dangling.md"]
    assert "duplicate of docs/notes.txt" in messages["docs/sub/inside.txt"]

    followed = load([folder], _limits(tmp_path, index_follow_links=True))
    assert {d.path for d in followed.documents} == {"docs/notes.txt", "docs/passwd.txt", "docs/more/secret.md"}
