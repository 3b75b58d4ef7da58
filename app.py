"""DriftLens: Streamlit entry point. One cached Engine, a shared sidebar, st.navigation over the pages.

Start-up problems become one message each: invalid settings (ConfigError), a graph database that
cannot be reached (StoreUnavailable names its URI), a graph built with another embedder. The pages
then only deal with a working engine.
"""

from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

from components import session, sidebar
from retrieval.engine import Engine
from retrieval.errors import ConfigError, DriftLensError, StoreUnavailable
from retrieval.telemetry.logs import configure_logging

ROOT = Path(__file__).parent
FAVICON = ROOT / "static" / "favicon.png"

HOME = st.Page(str(ROOT / "views" / "home.py"), title="Home", default=True, url_path="start")
PAGES = [
    HOME,
    # `/home` is the name a user types for Home; the default page itself lives at `/` only.
    st.Page(lambda: st.switch_page(HOME), title="Home", url_path="home", visibility="hidden"),
    st.Page(str(ROOT / "views" / "ask.py"), title="Ask", url_path="ask"),
    st.Page(str(ROOT / "views" / "drift_trace.py"), title="DRIFT trace", url_path="drift"),
    st.Page(str(ROOT / "views" / "graph_explorer.py"), title="Graph explorer", url_path="explorer"),
    st.Page(str(ROOT / "views" / "memory.py"), title="Memory", url_path="memory"),
    st.Page(str(ROOT / "views" / "index.py"), title="Index", url_path="index"),
    st.Page(str(ROOT / "views" / "documents.py"), title="Documents", url_path="documents"),
    st.Page(str(ROOT / "views" / "tuning.py"), title="Tuning", url_path="tuning"),
]


def _open_engine() -> Engine:
    """Open the graph with each step on the page: a large embedded graph rebuilds its indexes for minutes."""
    started = time.perf_counter()
    with st.status("Opening the graph…", expanded=True) as box:

        def step(message: str) -> None:
            box.update(label=f"Opening the graph: {message}…")
            box.write(message)

        try:
            engine = session.engine(step)
        except Exception:
            box.update(label="Opening the graph failed", state="error")
            raise
        box.update(label=f"Graph opened in {time.perf_counter() - started:.1f} s", state="complete", expanded=False)
    return engine


def main() -> None:
    configure_logging()  # the same JSON lines, request ids aside, as the HTTP service writes
    st.set_page_config(page_title="DriftLens", page_icon=str(FAVICON), layout="wide")
    navigation = st.navigation(PAGES)
    try:
        engine = session.engine() if session.engine_open() else _open_engine()
        health = engine.health()
    except ConfigError as exc:
        st.error(f"DriftLens cannot start: {exc}")
        st.stop()
    except StoreUnavailable as exc:
        # Every run asks again (Engine.health reconnects), so the banner goes as soon as the database is back.
        st.error(f"Backend down: {exc}")
        st.button("Retry now", help="DriftLens reconnects on every page load; this reloads the page.")
        st.stop()
    except DriftLensError as exc:
        session.show_error(exc)
        st.stop()
    session.keep_state()
    sidebar.render(engine, health)
    st.session_state["health"] = health
    navigation.run()


# Streamlit runs this script as `__main__`; a process the app spawns (the extraction process) imports it again as
# `__mp_main__`, and must not open the graph and draw pages there.
if __name__ == "__main__":
    main()
