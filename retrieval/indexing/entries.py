"""Candidate files of an indexing run, listed but not read: folder members and .zip members.

Why listing is apart from reading: what a path claims is decided here and trusted nowhere else. A symbolic
link can point anywhere on the machine (`/etc/passwd` became searchable once), so links that leave the
indexed folder are skipped with a message unless `DRIFTLENS_INDEX_FOLLOW_LINKS` says otherwise; a zip
header's size can be forged, so it is only a hint for refusing early, and the reader (`sources.py`)
streams every member with a cap of its own.
"""

from __future__ import annotations

import contextlib
import functools
import os
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from retrieval.indexing import ignore, languages
from retrieval.indexing.ignore import GITIGNORE, MAX_GITIGNORE_BYTES, IgnoreRules, gitignore_lines
from retrieval.indexing.languages import PDF_SUFFIX

ZIP_SUFFIX = ".zip"
DOCUMENT_SUFFIXES = (
    languages.TEXT_SUFFIXES
    | languages.MARKDOWN_SUFFIXES
    | languages.CONFIG_SUFFIXES
    | set(languages.CODE_LANGUAGES)
    | {PDF_SUFFIX}
)
SUPPORTED = DOCUMENT_SUFFIXES | {ZIP_SUFFIX}
#: General-purpose flag bit 0 of a zip member: the member is encrypted.
_ZIP_ENCRYPTED = 0x1
_ZIP_ERRORS = (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError, NotImplementedError, zlib.error)


@dataclass(frozen=True)
class LoadIssue:
    path: str
    message: str
    #: Whether a stored copy of this path stays in the graph: yes for a file unreadable this time (it may be
    #: fixed), no for a file refused by policy (a link out of the folder that an older run followed).
    keeps_stored: bool = True


@dataclass(frozen=True)
class Entry:
    """One candidate document: `path` relative to what the user gave, `size` as declared (a hint, not a fact)."""

    path: str
    size: int
    open: Callable[[], IO[bytes]]
    #: The archive's path when this is an archive member: its expanded size counts against the archive's cap.
    archive: str | None = None


def entries(root: Path, *, follow_links: bool) -> Iterator[Entry | LoadIssue]:
    """Every candidate under `root` (a folder, a document or a .zip), in path order, with an issue per refusal."""
    if root.is_dir():
        listed = sorted(_folder_files(root, follow_links), key=lambda item: item[1])
    else:
        listed = [(root, root.name)]
    for file, rel in listed:
        if isinstance(file, LoadIssue):
            yield file
        elif file.suffix.lower() == ZIP_SUFFIX:
            yield from _zip_entries(file, rel)
        else:
            yield Entry(rel, file.stat().st_size, _opener(file))


def _opener(file: Path) -> Callable[[], IO[bytes]]:
    return lambda: file.open("rb")


def _folder_files(root: Path, follow_links: bool) -> Iterator[tuple[Path | LoadIssue, str]]:
    """(file, relative path) of supported files; links out of the root become issues unless followed;
    what `.gitignore` files ignore and vendored folders are left out (see `ignore.py`)."""
    real_root = root.resolve()
    visited: set[Path] = set()
    rules = ignore.for_folder(root)
    for here, dirs, files in os.walk(root, followlinks=follow_links):
        folder = Path(here)
        if folder.resolve() in visited:  # followed links can lead back to a folder already walked
            dirs.clear()
            continue
        visited.add(folder.resolve())
        here_rel = folder.relative_to(root).as_posix()
        if GITIGNORE in files:
            with contextlib.suppress(OSError), (folder / GITIGNORE).open("rb") as stream:  # unreadable: ignores nothing
                rules.add(here_rel, gitignore_lines(stream.read(MAX_GITIGNORE_BYTES)))
        dirs[:] = [d for d in dirs if not d.startswith(".") and not rules.ignored(_join(here_rel, d), is_dir=True)]
        for name in [*dirs, *files]:
            path = folder / name
            rel = f"{root.name}/{path.relative_to(root).as_posix()}"
            is_dir = name in dirs
            if name.startswith(".") or not (is_dir or path.suffix.lower() in SUPPORTED):
                continue
            if not is_dir and rules.ignored(_join(here_rel, name), is_dir=False):
                continue
            if path.is_symlink() and not follow_links:
                problem = _link_problem(path, real_root)
                if problem:
                    yield LoadIssue(rel, problem, keeps_stored=False), rel
                    continue
            if not is_dir and path.is_file():
                yield path, rel


def _join(folder: str, name: str) -> str:
    return name if folder == "." else f"{folder}/{name}"


def _link_problem(link: Path, real_root: Path) -> str | None:
    """Why a link is not followed, or None for a link inside the indexed folder (a folder link inside it is not
    walked: its files are indexed where they are)."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return "broken or looping symbolic link; skipped"
    if target.is_relative_to(real_root):
        return None
    return (
        "symbolic link to a path outside the indexed folder; skipped "
        "(set DRIFTLENS_INDEX_FOLLOW_LINKS=true to follow links out of indexed folders)"
    )


def _zip_entries(archive: Path, prefix: str) -> Iterator[Entry | LoadIssue]:
    """Members of a .zip, unread; encrypted members are refused here, damaged ones when the reader meets them."""
    try:
        with zipfile.ZipFile(archive) as zf:
            members = sorted(zf.infolist(), key=lambda i: i.filename)
            rules = _zip_ignore_rules(zf, members)
            for info in members:
                suffix = PurePosixPath(info.filename).suffix.lower()
                if info.is_dir() or suffix not in DOCUMENT_SUFFIXES or rules.ignored(info.filename, is_dir=False):
                    continue
                path = f"{prefix}/{info.filename}"
                if info.flag_bits & _ZIP_ENCRYPTED:
                    yield LoadIssue(path, "encrypted (password-protected) archive member; skipped")
                    continue
                yield Entry(path, info.file_size, functools.partial(zf.open, info), archive=prefix)
    except _ZIP_ERRORS as exc:
        yield LoadIssue(prefix, f"unreadable zip archive ({type(exc).__name__}: {exc})")


def _zip_ignore_rules(zf: zipfile.ZipFile, members: list[zipfile.ZipInfo]) -> IgnoreRules:
    """The archive's own `.gitignore` files, shallow first (a zipped repository keeps its ignored files out too)."""
    rules = IgnoreRules()
    found = [i for i in members if PurePosixPath(i.filename).name == GITIGNORE and not i.flag_bits & _ZIP_ENCRYPTED]
    for info in sorted(found, key=lambda i: i.filename.count("/")):
        try:
            with zf.open(info) as stream:
                rules.add(str(PurePosixPath(info.filename).parent), gitignore_lines(stream.read(MAX_GITIGNORE_BYTES)))
        except _ZIP_ERRORS:
            continue  # a damaged .gitignore ignores nothing
    return rules
