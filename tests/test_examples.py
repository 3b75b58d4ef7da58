"""The examples run on a plain install: no pytest, no network, nothing from tests/ but the demo graph builder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Runs the example as `python examples/...` would, with pytest made unimportable (a plain install lacks it).
WITHOUT_PYTEST = (
    "import runpy, sys; sys.modules['pytest'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def test_agent_framework_example_runs_scripted_without_pytest(tmp_path: Path) -> None:
    prefixes = ("DRIFTLENS_", "NEO4J_", "OPENAI_", "AZURE_OPENAI_", "OAI_", "REDIS_URL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    example = REPO / "examples" / "agent_framework_provider.py"
    run = subprocess.run(
        [sys.executable, "-c", WITHOUT_PYTEST, str(example), "--scripted", "--demo", "Who funds the Orion probe?"],
        cwd=tmp_path,  # no .env there
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "> Who funds the Orion probe?" in run.stdout
    assert "(scripted reply; the model was sent" in run.stdout
