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
ctx = session.context() if health.ok else None
if ctx is not None:
    status.scope(ctx)

if not status.empty_graph(health):
    # The selected project's counts; the whole graph's only when searches read it whole (a graph of another tool).
    counts = status.project_counts(engine, ctx.project) if ctx is not None and ctx.scoped else health.counts
    columns = st.columns(len(counts) or 1)
    for column, (label, count) in zip(columns, counts.items(), strict=False):
        column.metric(label.strip("_"), f"{count:,}")
    if counts is not health.counts:
        st.caption("The whole graph: " + ", ".join(f"{k.strip('_')} {n:,}" for k, n in health.counts.items()))

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
