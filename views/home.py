"""Home: where the graph lives, whether it is healthy, what it holds, and whether an LLM is configured."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import session, status
from retrieval.store import Health

engine = session.engine()
health: Health = st.session_state["health"]

st.title("DriftLens")
st.caption("Ask a knowledge graph, and see why the answer is what it is.")
st.subheader("Backend")
st.markdown(f"**{health.backend}** · `{health.uri}` · {'healthy' if health.ok else 'unavailable'}")
if health.message:
    st.caption(health.message)
if health.ok:
    status.scope(session.context())

if not status.empty_graph(health):
    columns = st.columns(len(health.counts) or 1)
    for column, (label, count) in zip(columns, health.counts.items(), strict=False):
        column.metric(label.strip("_"), f"{count:,}")

st.subheader("Indexes")
if health.indexes:
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "name": i.name,
                    "kind": i.kind,
                    "label": i.label,
                    "properties": ", ".join(i.properties),
                    "state": i.state,
                    "dimension": i.dimension,
                }
                for i in health.indexes
            ]
        ),
        hide_index=True,
        width="stretch",
    )
else:
    st.caption("No indexes yet: indexing creates them.")

st.subheader("Language model")
status.llm_state(engine)
