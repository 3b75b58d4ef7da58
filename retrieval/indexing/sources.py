"""Load stage: turn paths (files, folders, .zip archives, PDFs) into text documents.

Why a message per file instead of an exception: an analyst drops a folder of mixed files; one
empty, binary or oversized file must not cost them the other hundred. Each problem becomes a
`LoadIssue` the CLI and the app list next to the counts.
"""

from __future__ import annotations

import functools
import hashlib
import io
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".text"})
PDF_SUFFIX = ".pdf"
SUPPORTED = TEXT_SUFFIXES | {PDF_SUFFIX, ".zip"}
#: Larger single documents are refused: ~1.5M words would take most of an hour to embed on 2 cores.
MAX_DOCUMENT_BYTES = 5 * 1024 * 1024
#: Encodings tried in order; latin-1 (and BOM-less UTF-16) are absent because they "decode" any binary file.
_ENCODINGS = ("utf-8-sig", "cp1252")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


@dataclass(frozen=True)
class SourceDocument:
    """One loaded document; `path` is relative to the folder/archive it came from (stable across clones)."""

    path: str
    title: str
    text: str
    content_hash: str


@dataclass(frozen=True)
class LoadIssue:
    path: str
    message: str


@dataclass
class LoadResult:
    documents: list[SourceDocument] = field(default_factory=list)
    issues: list[LoadIssue] = field(default_factory=list)
    #: Path prefixes fully enumerated by this run: a stored document under one of them and not seen was deleted.
    scopes: list[str] = field(default_factory=list)


def normalise_text(text: str) -> str:
    """Same content, same hash: unify newlines and Unicode forms and trim trailing blanks."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def decode(data: bytes) -> str | None:
    """Text of a file, or None when it looks binary or in no encoding we can read."""
    utf16 = data.startswith(_UTF16_BOMS)
    if b"\x00" in data[:8192] and not utf16:
        return None
    for encoding in ("utf-16",) if utf16 else _ENCODINGS:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        controls = sum(1 for ch in text[:8192] if unicodedata.category(ch) == "Cc" and ch not in "\n\r\t\f")
        if controls <= max(2, len(text[:8192]) // 200):
            return text
    return None


def _pdf_text(data: bytes) -> str:
    from pypdf import PdfReader  # imported here: only PDFs need it

    reader = PdfReader(io.BytesIO(data))
    return "\n\n".join(page.extract_text() or "" for page in reader.pages)


def _title(path: str) -> str:
    return PurePosixPath(path).stem.replace("_", " ").strip() or path


def _too_large(path: str, size: int) -> LoadIssue:
    limit = MAX_DOCUMENT_BYTES // (1024 * 1024)
    return LoadIssue(path, f"too large ({size / 1048576:.1f} MB > {limit} MB); split it into smaller files")


def _read(path: str, data: bytes) -> SourceDocument | LoadIssue:
    if PurePosixPath(path).suffix.lower() == PDF_SUFFIX:
        try:
            text: str | None = _pdf_text(data)
        except Exception as exc:  # pypdf raises many types for damaged files
            return LoadIssue(path, f"unreadable PDF ({type(exc).__name__}: {exc})")
    else:
        text = decode(data)
        if text is None:
            return LoadIssue(path, "binary or undecodable (not UTF-8/UTF-16/cp1252 text); skipped")
    text = normalise_text(text or "")
    if not text:
        return LoadIssue(path, "empty (no text); skipped")
    return SourceDocument(path=path, title=_title(path), text=text, content_hash=content_hash(text))


Reader = Callable[[], bytes]


def _zip_entries(archive: Path, prefix: str) -> Iterator[tuple[str, int, Reader] | LoadIssue]:
    try:
        with zipfile.ZipFile(archive) as zf:
            members = [
                info
                for info in sorted(zf.infolist(), key=lambda i: i.filename)
                if not info.is_dir() and PurePosixPath(info.filename).suffix.lower() in TEXT_SUFFIXES | {PDF_SUFFIX}
            ]
            for info in members:
                yield f"{prefix}/{info.filename}", info.file_size, functools.partial(zf.read, info)
    except (zipfile.BadZipFile, OSError) as exc:
        yield LoadIssue(prefix, f"unreadable zip archive ({type(exc).__name__}: {exc})")


def _entries(root: Path) -> Iterator[tuple[str, int, Reader] | LoadIssue]:
    """(relative path, size, reader) for every candidate file, so oversized files are refused unread."""
    if root.is_dir():
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED)
        named = [(f, f"{root.name}/{f.relative_to(root).as_posix()}") for f in files]
        named = [(f, rel) for f, rel in named if not any(part.startswith(".") for part in rel.split("/"))]
    else:
        named = [(root, root.name)]
    for file, rel in named:
        if file.suffix.lower() == ".zip":
            yield from _zip_entries(file, rel)
        else:
            yield rel, file.stat().st_size, file.read_bytes


def load(paths: list[Path]) -> LoadResult:
    """Read every supported file under `paths`; duplicates (same normalised text) are reported, not indexed."""
    result = LoadResult()
    by_hash: dict[str, str] = {}
    for root in paths:
        if not root.exists():
            result.issues.append(LoadIssue(str(root), "does not exist"))
            continue
        if root.is_dir():
            result.scopes.append(f"{root.name}/")
        elif root.suffix.lower() not in SUPPORTED:
            result.issues.append(LoadIssue(root.name, f"unsupported file type '{root.suffix}'"))
            continue
        for entry in _entries(root):
            if isinstance(entry, LoadIssue):
                result.issues.append(entry)
                continue
            rel, size, read = entry
            loaded = _too_large(rel, size) if size > MAX_DOCUMENT_BYTES else _read(rel, read())
            if isinstance(loaded, LoadIssue):
                result.issues.append(loaded)
            elif loaded.content_hash in by_hash:
                result.issues.append(LoadIssue(rel, f"duplicate of {by_hash[loaded.content_hash]}; skipped"))
            else:
                by_hash[loaded.content_hash] = rel
                result.documents.append(loaded)
    return result
