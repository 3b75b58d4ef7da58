"""`pip install .` gives a working DriftLens: the wheel holds the package, its tokenizer and the `driftlens` command,
and declares the same pinned dependencies as requirements.txt; the image exposes the port API_PORT sets.

The wheel is built from a copy of the files a source checkout ships, so the build leaves nothing in the worktree.
"""

from __future__ import annotations

import email
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from retrieval.config import Settings

REPO = Path(__file__).resolve().parents[1]


def _requirements(lines: list[str]) -> set[str]:
    """Requirement lines in one spelling (name, pin and marker normalised), comments and blank lines left out."""
    return {str(Requirement(line)) for line in lines if line.strip() and not line.lstrip().startswith("#")}


def test_pyproject_declares_the_pins_of_requirements_txt() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = _requirements((REPO / "requirements.txt").read_text(encoding="utf-8").splitlines())
    assert _requirements(project["dependencies"]) == pinned
    assert all(len(Requirement(r).specifier) == 1 and str(Requirement(r).specifier).startswith("==") for r in pinned)


def test_python_dotenv_is_pinned_because_the_settings_import_it() -> None:
    assert "from dotenv import" in (REPO / "retrieval" / "config" / "settings.py").read_text(encoding="utf-8")
    names = {Requirement(r).name for r in _requirements((REPO / "requirements.txt").read_text().splitlines())}
    assert "python-dotenv" in names


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `pip install .` would install, built offline by the pinned backend from a copy of the checkout."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "retrieval", source / "retrieval", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(out), "."],
        cwd=source,
        check=True,
        timeout=300,
    )
    (built,) = out.glob("driftlens-*.whl")
    return built


def test_wheel_holds_the_package_its_assets_and_nothing_else(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names if not n.startswith("driftlens-")}
    assert tops == {"retrieval"}  # no app, views, tests or benchmarks
    shipped = {n for n in names if n.startswith("retrieval/")}
    in_checkout = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "retrieval").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert in_checkout - shipped == set()  # every module and the tokenizer (embed.TOKENIZER_PATH) ship
    assert "retrieval/assets/minilm/tokenizer.json" in shipped


def test_wheel_metadata_declares_the_pins_and_the_command(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    info = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = email.message_from_bytes(archive.read(info))
    pinned = _requirements((REPO / "requirements.txt").read_text(encoding="utf-8").splitlines())
    assert _requirements(metadata.get_all("Requires-Dist") or []) == pinned
    entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert re.search(r"^driftlens = retrieval\.cli:main$", entry_points, re.M), entry_points


def test_installed_driftlens_command_runs(wheel: Path, tmp_path: Path) -> None:
    """The console script pip writes starts the CLI from the installed copy (dependencies: this virtualenv's)."""
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
    )
    script = target / "bin" / "driftlens"
    assert script.is_file()
    shown = subprocess.run(
        [sys.executable, str(script), "--help"],
        cwd=tmp_path,  # not the checkout: `retrieval` must come from the install
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "reembed" in shown.stdout and "serve" in shown.stdout


def test_dockerfile_exposes_the_port_api_port_sets() -> None:
    """The image's API port is one build argument, the settings' default, handed to the service as API_PORT."""
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    runtime = text[text.index("AS runtime") :]
    arg = re.search(r"^ARG API_PORT=(\d+)$", runtime, re.M)
    assert arg and int(arg[1]) == Settings.model_fields["api_port"].default
    assert re.search(r"^\s*API_PORT=\$\{API_PORT\}", runtime, re.M)  # ENV: the running service reads it
    exposed = re.search(r"^EXPOSE (.+)$", runtime, re.M)
    assert exposed and "${API_PORT}" in exposed[1].split()
    entrypoint = (REPO / "docker" / "entrypoint.sh").read_text(encoding="utf-8")
    assert '--port "${API_PORT' in entrypoint
