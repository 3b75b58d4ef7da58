"""What a folder walk leaves out: paths its `.gitignore` files ignore, and vendored or generated folders.

Why pathspec's `GitIgnoreSpec`: git's matching rules (anchoring, `**`, directory-only patterns, negation and
the "a re-included file inside an excluded folder stays excluded" rule) are subtle, and pathspec follows
git's own behaviour and is well kept. Each `.gitignore` applies to its own folder and below, a deeper
file's verdict winning, as in git. Vendored folders are skipped even without a `.gitignore`: a repository
that commits `node_modules/` or `vendor/` wants its own code searched, not its dependencies'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pathspec

#: Folder names holding third-party or generated code (dependencies, virtual environments, build output).
VENDORED = frozenset(
    {"node_modules", "bower_components", "vendor", "third_party", "site-packages", "__pycache__", "venv", "dist"}
)
GITIGNORE = ".gitignore"


@dataclass
class IgnoreRules:
    """The `.gitignore` files met so far in one walk, by the folder (relative to the root) they govern."""

    root: Path
    specs: list[tuple[str, pathspec.GitIgnoreSpec]] = field(default_factory=list)

    def enter(self, folder: Path) -> None:
        """Read `folder/.gitignore`, if any; call for each folder before asking about its entries."""
        file = folder / GITIGNORE
        if not file.is_file():
            return
        try:
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        base = folder.relative_to(self.root).as_posix()
        self.specs.append(("" if base == "." else f"{base}/", pathspec.GitIgnoreSpec.from_lines(lines)))

    def ignored(self, path: Path, *, is_dir: bool) -> bool:
        """Whether git would ignore `path` (under the root), or it is a vendored folder."""
        if is_dir and path.name in VENDORED:
            return True
        rel = path.relative_to(self.root).as_posix() + ("/" if is_dir else "")
        verdict = False
        for base, spec in self.specs:  # shallow to deep: a deeper .gitignore overrides
            if not rel.startswith(base):
                continue
            result = spec.check_file(rel[len(base) :])
            if result.include is not None:
                verdict = result.include
        return verdict
