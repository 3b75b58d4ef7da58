"""Which folders a remote face (the app's "folder on this machine", the HTTP API) may index from.

Why here and not in a page: whoever can type a path into the app could otherwise index any file the server
can read (`/etc`, another user's home) and search it. The check is one function over the configured roots
(`DRIFTLENS_INDEX_ROOTS`, default the repository's data/ and the data dir), so every face applies the same
rule. The CLI does not use it: its user already has the shell.
"""

from __future__ import annotations

from pathlib import Path

from retrieval.config import Settings
from retrieval.errors import DriftLensError


class PathNotAllowed(DriftLensError):
    """A path to index lies outside the configured index roots (or does not exist)."""


def allowed_source(settings: Settings, path: str | Path) -> Path:
    """`path` resolved (links and `..` followed), if it exists inside one of the configured index roots."""
    roots = [root.resolve() for root in settings.allowed_index_roots]
    listed = ", ".join(str(root) for root in roots) or "none"
    try:
        resolved = Path(path).expanduser().resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # missing, a link loop, a NUL in the text
        raise PathNotAllowed(f"'{path}' does not exist (folders you can index from: {listed}).") from None
    if not any(resolved.is_relative_to(root) for root in roots):
        raise PathNotAllowed(
            f"'{path}' is outside the folders you can index from ({listed}). Upload the files instead, or add "
            "its folder to DRIFTLENS_INDEX_ROOTS."
        )
    return resolved
