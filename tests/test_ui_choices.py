"""The architecture page's reasons for two UI choices stay true of the code: graphs are plotly (no pyvis, no
streamlit-agraph), and every page is a `views/` file that app.py's `st.navigation` runs (no `pages/` folder)."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]


def test_the_architecture_page_gives_both_reasons() -> None:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "Why the graphs are plotly, not pyvis or streamlit-agraph" in page
    assert "Why the pages live in `views/` behind `st.navigation`" in page


def test_graphs_are_drawn_with_plotly_only() -> None:
    lines = (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()
    names = {Requirement(line).name for line in lines if line.strip() and not line.startswith("#")}
    assert "plotly" in names and not names & {"pyvis", "streamlit-agraph"}
    ui_code = [p for folder in ("components", "views") for p in (REPO / folder).glob("*.py")] + [REPO / "app.py"]
    imports = re.compile(r"^\s*(?:from|import) (pyvis|streamlit_agraph)\b", re.M)
    assert not [p.name for p in ui_code if imports.search(p.read_text(encoding="utf-8"))]


def test_every_view_is_a_navigation_page_and_there_is_no_pages_folder() -> None:
    assert not (REPO / "pages").exists()
    app = (REPO / "app.py").read_text(encoding="utf-8")
    assert "st.navigation(PAGES)" in app
    listed = set(re.findall(r'ROOT / "views" / "(\w+\.py)"', app))
    assert listed == {p.name for p in (REPO / "views").glob("*.py")}
