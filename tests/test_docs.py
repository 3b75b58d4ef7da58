"""The project's own docs stay true: the configuration reference matches the Settings class, and every document
the code or the README cites exists in the repository."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Where code comments, docstrings and config files may cite documents.
CITING = ["retrieval", "components", "pages", "views", "benchmarks", "examples", "scripts", ".streamlit"]
_CITED_DOC = re.compile(r"\b(docs/[\w./-]+\.md)\b")
_OUTSIDE = re.compile(r"\b(ARCHITECTURE|OFFLINE)\.md\b")


def _config_doc() -> ModuleType:
    spec = importlib.util.spec_from_file_location("config_doc", REPO / "scripts" / "config_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_configuration_reference_is_up_to_date() -> None:
    committed = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == _config_doc().render(), "docs/configuration.md is stale: run python scripts/config_doc.py"


def test_every_setting_needs_a_meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _config_doc()
    documented = module._documented_fields

    def without_meaning_of_project(cls: type) -> list[object]:
        return [d for d in documented(cls) if d.name != "project"]

    monkeypatch.setattr(module, "_documented_fields", without_meaning_of_project)
    with pytest.raises(ValueError, match="without a `#:` comment saying what they mean: project"):
        module.render()


def _sources() -> list[Path]:
    files = [REPO / "app.py", REPO / "README.md", *(REPO / "docs").glob("*.md")]
    for folder in CITING:
        files += [p for p in (REPO / folder).rglob("*") if p.suffix in {".py", ".toml", ".md"} and p.is_file()]
    return [p for p in files if "__pycache__" not in p.parts]


def test_cited_documents_exist_in_the_repository() -> None:
    cited: dict[str, list[str]] = {}
    outside: list[str] = []
    for path in _sources():
        text = path.read_text(encoding="utf-8", errors="replace")
        for doc in _CITED_DOC.findall(text):
            cited.setdefault(doc, []).append(str(path.relative_to(REPO)))
        outside += [f"{path.relative_to(REPO)}: {m}" for m in _OUTSIDE.findall(text)]
    missing = {doc: where for doc, where in cited.items() if not (REPO / doc).is_file()}
    assert not missing, f"cited but not in the repository: {missing}"
    assert not outside, f"documents outside the repository cited: {outside}"
    assert {"docs/architecture.md", "docs/graph-model.md", "docs/configuration.md", "docs/offline.md"} <= set(cited)
