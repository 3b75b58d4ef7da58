"""Load stage: turn paths (files, folders, .zip archives, PDFs) into text documents.

Why a message per file instead of an exception: an analyst drops a folder of mixed files; one
empty, binary, oversized, damaged or encrypted file must not cost them the other hundred. Each problem
becomes a `LoadIssue` the CLI and the app list next to the counts. Why streaming with caps: a zip
header's sizes can be forged, so every file is read through a cap (document, archive, run; settings)
and never more than one cap's worth is held in memory.
"""

from __future__ import annotations

import hashlib
import io
import unicodedata
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from retrieval.indexing import languages
from retrieval.indexing.entries import PDF_SUFFIX, SUPPORTED, Entry, LoadIssue, entries

if TYPE_CHECKING:
    from retrieval.config import Settings

#: Encodings tried in order; latin-1 (and BOM-less UTF-16) are absent because they "decode" any binary file.
_ENCODINGS = ("utf-8-sig", "cp1252")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: What reading a damaged or forged file can raise (zip members: BadZipFile for a bad CRC, EOFError and
#: zlib.error for cut or corrupt data, NotImplementedError for an unsupported compression method).
_READ_ERRORS = (OSError, EOFError, RuntimeError, ValueError, NotImplementedError, zipfile.BadZipFile, zlib.error)
_MB = 1024 * 1024


@dataclass(frozen=True)
class SourceDocument:
    """One loaded document; `path` is relative to the folder/archive it came from (stable across clones)."""

    path: str
    title: str
    text: str
    content_hash: str


@dataclass
class LoadResult:
    documents: list[SourceDocument] = field(default_factory=list)
    issues: list[LoadIssue] = field(default_factory=list)
    #: Path prefixes fully enumerated by this run: a stored document under one of them and not seen was deleted.
    scopes: list[str] = field(default_factory=list)
    #: Where each document came from: the folder, file or archive given, by document path.
    roots: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadLimits:
    """Byte caps on what one run reads, measured on the bytes actually read (never on declared sizes);
    the defaults and their reasons are the `max_*_bytes` settings."""

    document_bytes: int
    archive_bytes: int
    run_bytes: int
    follow_links: bool

    @classmethod
    def of(cls, settings: Settings) -> LoadLimits:
        return cls(
            settings.max_document_bytes,
            settings.max_archive_bytes,
            settings.max_run_bytes,
            settings.index_follow_links,
        )


#: Called with each file's path as the load stage finishes with it (progress for the UI and the CLI).
FileDone = Callable[[str], None]


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


def _too_large(path: str, size: int, limit: int) -> LoadIssue:
    return LoadIssue(path, f"too large ({size / _MB:.1f} MB > {limit / _MB:g} MB); split it into smaller files")


def _read(path: str, data: bytes) -> SourceDocument | LoadIssue:
    if languages.kind(path) == "config" and len(data) > languages.MAX_CONFIG_BYTES:
        limit = languages.MAX_CONFIG_BYTES // 1024
        return LoadIssue(path, f"a data file, not configuration (over {limit} kB); skipped", keeps_stored=False)
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


class _Budget:
    """Bytes still allowed in this run and in each archive: forged headers cannot raise them."""

    def __init__(self, limits: LoadLimits) -> None:
        self.limits = limits
        self.run_left = limits.run_bytes
        self.archive_left: dict[str, int] = {}

    def cap(self, entry: Entry) -> tuple[int, str]:
        """The tightest cap on this entry and its name."""
        caps = [(self.limits.document_bytes, "document"), (self.run_left, "run")]
        if entry.archive is not None:
            caps.append((self.archive_left.setdefault(entry.archive, self.limits.archive_bytes), "archive"))
        return min(caps)

    def spend(self, entry: Entry, n: int) -> None:
        self.run_left -= n
        if entry.archive is not None:
            self.archive_left[entry.archive] -= n

    def refusal(self, entry: Entry, size: int, which: str) -> LoadIssue:
        if which == "document":
            return _too_large(entry.path, size, self.limits.document_bytes)
        if which == "archive":
            limit, setting = self.limits.archive_bytes, "DRIFTLENS_MAX_ARCHIVE_BYTES"
            what = f"the archive {entry.archive} expands past its size cap"
        else:
            limit, setting = self.limits.run_bytes, "DRIFTLENS_MAX_RUN_BYTES"
            what = "this run reached its total size cap; index the rest in another run"
        return LoadIssue(entry.path, f"skipped: {what} ({limit / _MB:g} MB, {setting})")


def _load_entry(entry: Entry, budget: _Budget) -> SourceDocument | LoadIssue:
    """Stream at most one cap's worth of bytes; damaged, forged or unreadable input becomes an issue."""
    cap, which = budget.cap(entry)
    if entry.size > cap:  # declared too large: refused unread
        return budget.refusal(entry, entry.size, which)
    try:
        with entry.open() as stream:
            data = stream.read(cap + 1)
    except _READ_ERRORS as exc:
        return LoadIssue(entry.path, _unreadable(exc))
    budget.spend(entry, len(data))
    if len(data) > cap:  # the header understated the size
        return budget.refusal(entry, len(data), which)
    return _read(entry.path, data)


def _unreadable(exc: BaseException) -> str:
    if isinstance(exc, zipfile.BadZipFile) and "CRC" in str(exc):
        return "damaged archive member (bad CRC-32: its content does not match its header); skipped"
    return f"unreadable ({type(exc).__name__}: {exc}); skipped"


def count_candidates(paths: list[Path], limits: LoadLimits) -> int:
    """How many files `load` will go through (the load stage's total): a listing pass, nothing is read."""
    readable = [root for root in paths if root.is_dir() or (root.exists() and root.suffix.lower() in SUPPORTED)]
    return sum(1 for root in readable for _ in entries(root, follow_links=limits.follow_links))


def load(paths: list[Path], limits: LoadLimits, on_file: FileDone | None = None) -> LoadResult:
    """Read every supported file under `paths`; duplicates (same normalised text) are reported, not indexed."""
    budget = _Budget(limits)
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
        for entry in entries(root, follow_links=limits.follow_links):
            loaded = entry if isinstance(entry, LoadIssue) else _load_entry(entry, budget)
            if isinstance(loaded, LoadIssue):
                result.issues.append(loaded)
            elif loaded.content_hash in by_hash:
                result.issues.append(LoadIssue(loaded.path, f"duplicate of {by_hash[loaded.content_hash]}; skipped"))
            else:
                by_hash[loaded.content_hash] = loaded.path
                result.documents.append(loaded)
                result.roots[loaded.path] = str(root.resolve())
            if on_file is not None:
                on_file(entry.path)
    return result
