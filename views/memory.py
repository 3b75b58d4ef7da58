"""Memory: stored conversation memories by scope — filter, search by similarity, timeline, inspect, invalidate
(and undo it), delete."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import session, timeline_chart
from components.untrusted import inert, plain
from retrieval.conversation.memory import SCOPE_KEYS, MemoryRecord, MemoryStore, Scope, by_owner
from retrieval.conversation.thread import threads
from retrieval.errors import DriftLensError

engine = session.engine()
st.title("Memory")
if not engine.settings.memory_enabled:
    st.info("Memory is turned off (DRIFTLENS_MEMORY_ENABLED=false).")
    st.stop()

memory = MemoryStore(engine.store, engine.settings, engine.embedder)
try:
    scopes = memory.scopes()
except DriftLensError as exc:
    session.show_error(exc)
    st.stop()
if not scopes:
    st.info(
        "No memories stored yet. Conversations on the Ask page are stored here, one thread per conversation; "
        "other applications store messages with `retrieval.conversation.memory.MemoryStore.add(scope, messages)`."
    )
    st.stop()

conversations = threads(engine, limit=50)
if conversations:
    with st.expander(f"Your conversations ({len(conversations)}, user {engine.settings.user})", expanded=True):
        for thread in conversations:
            st.page_link(
                "views/ask.py",
                label=f"{plain(thread.title)} · turns: {thread.turns} · {thread.last_timestamp[:16]}",
                query_params={"thread": thread.thread_id},
            )
        st.caption(
            "Invalidate a question below and the next follow-up in its thread no longer draws on it; "
            "its answers stop being recalled as context from earlier."
        )

filters: dict[str, str] = {}
columns = st.columns(len(SCOPE_KEYS))
for column, key in zip(columns, SCOPE_KEYS, strict=True):
    values = sorted({getattr(s, key) for s in scopes if getattr(s, key)})
    picked = column.selectbox(key.replace("_id", ""), ["(any)", *values], key=f"mem_{key}")
    if picked != "(any)":
        filters[key] = picked
if not filters:
    latest = scopes[0]
    filters = {k: getattr(latest, k) for k in SCOPE_KEYS if getattr(latest, k)}
    st.caption("No filter chosen: showing the most recently active scope.")
scope = Scope(**filters)
st.caption("Scope: " + ", ".join(f"{k}={v}" for k, v in filters.items()))

query = st.text_input("Search memories", key="mem_query", placeholder="what the user said about…")
try:
    if query.strip():
        records: list[MemoryRecord] = memory.search(scope, query, k=25)
        st.caption(f"{len(records)} most similar valid memories")
    else:
        page = memory.page(scope, limit=200)
        records = page.items
        st.caption(f"{page.total} memories (newest {len(records)} shown, invalidated ones included)")
    timeline = timeline_chart.points(memory, scope)
except DriftLensError as exc:
    session.show_error(exc)
    st.stop()

if timeline[1]:
    st.plotly_chart(timeline_chart.figure(*timeline), width="stretch")

table = pd.DataFrame(
    [
        {
            "similarity": None if r.score is None else round(r.score, 3),
            "text": r.text[:200],
            "valid": r.valid,
            "role": r.role,
            "timestamp": r.timestamp,
            "thread": r.thread_id,
            "id": r.id,
        }
        for r in records
    ]
)
selection = st.dataframe(
    table, hide_index=True, width="stretch", on_select="rerun", selection_mode="multi-row", key="mem_table"
)
chosen = [records[i] for i in selection.selection.rows] if records else []
if not chosen:
    st.caption("Select rows to inspect, invalidate or delete them.")
    st.stop()

for record in chosen[:5]:
    with st.expander(f"{record.role} · {record.timestamp}", expanded=len(chosen) == 1):
        st.markdown(inert(record.text))
        st.json(record.model_dump(exclude={"text", "payload"}))
owners = by_owner(chosen)  # each memory is changed under its own full scope, never a wider one
reason = st.text_input("Reason for invalidating", key="mem_reason", placeholder="no longer true because…")
left, right = st.columns(2)
# Invalidating keeps the memory (it can be inspected, and search skips it): the safe, primary action.
invalid = [r for r in chosen if not r.valid]
if invalid and left.button(f"Restore {len(invalid)} (undo the invalidation)", key="mem_restore"):
    n = sum(memory.restore(ids, owner) for owner, ids in by_owner(invalid).items())
    st.toast(f"Restored {n} memories")
    st.rerun()
if len(invalid) < len(chosen) and left.button(
    f"Invalidate {len(chosen) - len(invalid)}", type="primary", key="mem_invalidate"
):
    n = sum(memory.invalidate(ids, reason, owner) for owner, ids in owners.items())
    st.toast(f"Invalidated {n} memories")
    st.rerun()
# Deleting cannot be undone, so it asks first, naming what goes.
chosen_ids = sorted(r.id for r in chosen)
if right.button(f"Delete {len(chosen)}…", key="mem_delete"):
    st.session_state["mem_delete_pending"] = chosen_ids
if st.session_state.get("mem_delete_pending") == chosen_ids:
    # A conversation turn goes as a whole: half a turn (a question without its answer) could only show as damaged.
    doomed = memory.whole_messages(chosen)
    more = len(doomed) - len(chosen)
    also = f" ({more} more stored with them: a turn's question and its answers go together)" if more else ""
    st.warning(f"Delete {len(doomed)} memories for good{also}? This cannot be undone; invalidating keeps them.")
    confirm, cancel = st.columns(2)
    if confirm.button(f"Yes, delete {len(doomed)}", key="mem_delete_confirm"):
        n = sum(memory.delete(ids, owner) for owner, ids in by_owner(doomed).items())
        st.session_state.pop("mem_delete_pending", None)
        st.toast(f"Deleted {n} memories")
        st.rerun()
    if cancel.button("Cancel", key="mem_delete_cancel"):
        st.session_state.pop("mem_delete_pending", None)
        st.rerun()
