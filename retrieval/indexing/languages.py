"""What kind of source a path is, decided by its suffix: prose, Markdown, configuration or code in a language.

Why one table: the lister (which files to read), the chunker (along code structure or by paragraphs),
the extractor (named entities only where there is prose) and citations (line ranges for repository
files) all ask the same question, and must get the same answer.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Literal

Kind = Literal["text", "pdf", "markdown", "config", "code"]
Language = Literal["python", "javascript", "typescript", "tsx"]

TEXT_SUFFIXES = frozenset({".txt", ".text"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
CONFIG_SUFFIXES = frozenset({".json", ".yaml", ".yml", ".toml"})
CODE_LANGUAGES: dict[str, Language] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
}
PDF_SUFFIX = ".pdf"
#: JSON/YAML/TOML files larger than this are data (lock files, tokenizers, fixtures), not configuration a
#: reader asks about; chunking one would bury the repository's code under thousands of chunks of it.
MAX_CONFIG_BYTES = 128 * 1024


def _suffix(path: str) -> str:
    return PurePosixPath(path).suffix.lower()


def kind(path: str) -> Kind | None:
    """The source kind of `path`, or None when DriftLens does not read that suffix."""
    suffix = _suffix(path)
    if suffix in TEXT_SUFFIXES:
        return "text"
    if suffix == PDF_SUFFIX:
        return "pdf"
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in CONFIG_SUFFIXES:
        return "config"
    if suffix in CODE_LANGUAGES:
        return "code"
    return None


def language(path: str) -> Language | None:
    """The programming language of a code file (None for anything else)."""
    return CODE_LANGUAGES.get(_suffix(path))


def has_lines(path: str) -> bool:
    """Repository files (code, Markdown, configuration) are cited by `path:start-end`; prose and PDFs by title."""
    return kind(path) in ("markdown", "config", "code")


def has_prose(path: str) -> bool:
    """Named-entity extraction reads prose and Markdown; on code and configuration it would only find noise."""
    return kind(path) in ("text", "pdf", "markdown")
