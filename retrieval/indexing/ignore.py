"""What a walk over a folder or an archive leaves out: paths its `.gitignore` files ignore, and vendored or
generated folders.

Why pathspec's `GitIgnoreSpec`: git's matching rules (anchoring, `**`, directory-only patterns, negation and
the "a re-included file inside an excluded folder stays excluded" rule) are subtle, and pathspec follows
git's own behaviour and is well kept. Each `.gitignore` applies to its own folder and below, a deeper
file's verdict winning, as in git. Vendored folders are skipped even without a `.gitignore`: a repository
that commits `node_modules/` or `vendor/` wants its own code searched, not its dependencies'.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pathspec

#: Folder names holding third-party or generated code (dependencies, virtual environments, build output).
VENDORED = frozenset(
    {"node_modules", "bower_components", "vendor", "third_party", "site-packages", "__pycache__", "venv", "dist"}
)
GITIGNORE = ".gitignore"
#: More than any hand-written .gitignore; a larger one is read up to here.
MAX_GITIGNORE_BYTES = 256 * 1024


@dataclass
class IgnoreRules:
    """The `.gitignore` files met so far in one walk, by the folder they govern (relative to the walk's root)."""

    #: (folder under the root it governs, path from its own folder down to the root, patterns)
    specs: list[tuple[str, str, pathspec.GitIgnoreSpec]] = field(default_factory=list)

    def add(self, folder: str, lines: Iterable[str], *, above: str = "") -> None:
        """The patterns of `folder/.gitignore` (`folder` relative, "" or "." for the root, no trailing slash);
        `above` is the path from a `.gitignore` above the root down to the root (`src/`), "" otherwise."""
        base = "" if folder in ("", ".") else f"{folder.strip('/')}/"
        self.specs.append((base, above, pathspec.GitIgnoreSpec.from_lines(lines)))

    def ignored(self, rel: str, *, is_dir: bool) -> bool:
        """Whether git would ignore `rel` (relative to the root), or it is (or lies in) a vendored folder."""
        parts = PurePosixPath(rel).parts
        if any(part in VENDORED for part in (parts if is_dir else parts[:-1])):
            return True
        rel = rel + "/" if is_dir else rel
        verdict = False
        for base, above, spec in self.specs:  # shallow to deep: a deeper .gitignore overrides
            if rel.startswith(base):
                result = spec.check_file(above + rel[len(base) :])
                if result.include is not None:
                    verdict = result.include
        return verdict


def for_folder(root: Path) -> IgnoreRules:
    """Rules for a walk of `root`, starting with the `.gitignore` files above it up to its repository's top (the
    folder holding `.git`): indexing `repo/src` leaves out what `repo/.gitignore` ignores.

    A `.gitignore` above that ignores `root` itself is passed over (like `git add -f`): the user named that folder,
    and honouring the file would index nothing without a word (a scratch folder under an ignored `cache/`)."""
    rules = IgnoreRules()
    real = root.resolve()
    chain = [real, *real.parents]
    top = next((i for i, folder in enumerate(chain) if (folder / ".git").exists()), None)
    if top is None or top == 0:
        return rules
    for folder in reversed(chain[1 : top + 1]):  # the repository's top first
        file = folder / GITIGNORE
        with contextlib.suppress(OSError), file.open("rb") as stream:
            above = f"{real.relative_to(folder).as_posix()}/"
            lines = gitignore_lines(stream.read(MAX_GITIGNORE_BYTES))
            if not pathspec.GitIgnoreSpec.from_lines(lines).match_file(above):
                rules.add("", lines, above=above)
    return rules


def gitignore_lines(data: bytes) -> list[str]:
    return data[:MAX_GITIGNORE_BYTES].decode("utf-8", errors="replace").splitlines()
