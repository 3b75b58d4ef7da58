"""Tuning: measure retrieval settings against questions the analyst labelled, and apply the best one.

The page only collects choices and draws results; sets, the grid run and its statistics are `retrieval.tuning`'s.
"""

from __future__ import annotations

import json
import queue
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pandas as pd
import streamlit as st

from components import session, tuning_charts
from components.network import short
from components.untrusted import inert
from retrieval.errors import DriftLensError
from retrieval.store import project_knobs
from retrieval.tuning.grid import GridRun, run_grid
from retrieval.tuning.question_sets import QuestionSet, read_set, to_rows
from retrieval.tuning.report import METRIC_NAMES, METRICS, summarise
from retrieval.tuning.set_store import Owner, QuestionSetStore

#: Grid choices offered on the page: axis -> (label, values, default selection).
AXES: dict[str, tuple[str, list[Any], list[Any]]] = {
    "alpha": ("Alpha (vector weight)", [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], [0.3, 0.5, 0.7]),
    "max_hops": ("Max hops", [0, 1, 2, 3], [0, 1, 2]),
    "top_k": ("Top-k (Recall@k's k)", [2, 5, 10, 20], [5, 10]),
    "fusion": ("Fusion", ["linear", "rrf"], ["linear"]),
}
#: Page axis -> the sidebar's session key ("apply" writes these).
SIDEBAR = {"alpha": "tune_alpha", "max_hops": "tune_max_hops", "top_k": "tune_top_k", "fusion": "tune_fusion"}


def owner() -> Owner:
    return Owner(session.project(), session.engine().settings.user)


def import_file(upload: Any, name: str) -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / Path(upload.name).name
        path.write_bytes(upload.getvalue())
        data = read_set(path)
    sets.save(owner(), QuestionSet(name, data.questions, data.passages, unit=data.unit))
    st.success(f"Imported {len(data.questions)} questions as {name!r}.")


def run(question_set: QuestionSet, grid: dict[str, list[Any]]) -> GridRun:
    """The grid in a worker thread; the script thread draws its progress, so the page shows it moving."""
    ctx, base = session.context(), session.params()
    inbox: queue.Queue[tuple[int, int, str]] = queue.Queue()
    bar = st.progress(0.0, text="embedding the questions…")
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="driftlens-tune") as pool:
        future = pool.submit(run_grid, ctx, question_set, grid, base=base, on_progress=lambda *tick: inbox.put(tick))
        while not (future.done() and inbox.empty()):
            try:
                done, total, what = inbox.get(timeout=0.1)
            except queue.Empty:
                continue
            bar.progress(done / max(total, 1), text=f"{done}/{total} · {what}")
        result = future.result()
    bar.empty()
    return result


def apply(setting: dict[str, Any]) -> None:
    """A button callback: runs before the sidebar is drawn, so its sliders show the new values."""
    for axis, value in setting.items():
        if axis in SIDEBAR:
            st.session_state[SIDEBAR[axis]] = value


engine = session.engine()
sets = QuestionSetStore(engine.store)
st.title("Tuning")
st.caption(
    "Label evidence on the Ask page (thumbs, then save to a set), or import a question set in the evaluation "
    "harness's JSONL (HotpotQA or MuSiQue shape). Then measure a grid of settings against it."
)
try:
    saved = sets.names(owner())
except DriftLensError as exc:
    session.show_error(exc)
    st.stop()

with st.expander("Import or export a question set", expanded=not saved):
    upload = st.file_uploader("JSONL question set", type=["jsonl", "json"], key="tune_upload")
    new_name = st.text_input("Save as", value=Path(upload.name).stem if upload else "", key="tune_import_name")
    if upload and new_name and st.button("Import", key="tune_import"):
        try:
            import_file(upload, new_name)
            saved = sets.names(owner())
        except (DriftLensError, ValueError, KeyError) as exc:
            st.error(f"Could not read {inert(upload.name)}: {inert(str(exc))}")

if not saved:
    st.info(f"No question sets yet in project {session.project()!r} for user {engine.settings.user!r}.")
    st.stop()

names = [s.name for s in saved]
picked = st.selectbox(
    "Question set",
    names,
    key="tune_set",
    format_func=lambda n: next(f"{s.name} — {s.labelled} labelled of {s.questions}" for s in saved if s.name == n),
)
question_set = sets.load(owner(), picked)
st.download_button(
    "Export as JSONL",
    "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in to_rows(question_set)),
    file_name=f"{picked}.jsonl",
    key="tune_export",
)

columns = st.columns(len(AXES) + 1)
grid: dict[str, list[Any]] = {}
for column, (axis, (title, values, default)) in zip(columns, AXES.items(), strict=False):
    chosen = column.multiselect(title, values, default=default, key=f"tune_grid_{axis}")
    if chosen:
        grid[axis] = sorted(chosen, key=values.index)
metric = columns[-1].selectbox("Pick the best by", METRICS, format_func=METRIC_NAMES.get, key="tune_metric")
size = 1
for values in grid.values():
    size *= len(values)
st.caption(f"{size} settings × {len(question_set.labelled)} labelled questions (plus the current setting).")

if st.button("Run the grid", type="primary", key="tune_run"):
    try:
        st.session_state["tune_result"] = (picked, run(question_set, grid))
    except DriftLensError as exc:
        session.show_error(exc)

result = st.session_state.get("tune_result")
if not result or result[0] != picked:
    st.stop()
summary = summarise(result[1], metric)
rows = summary.rows()
st.markdown(f"**{inert(summary.verdict())}**")
for note in summary.run.notes:
    st.caption(inert(note))
left, right = st.columns(2)
left.button("Apply the best to the sidebar", on_click=apply, args=(summary.best.setting,), key="tune_apply")
if right.button("Save the best as the project's default", key="tune_default"):
    try:
        project_knobs.save(engine.store, engine.settings, session.project(), summary.best.setting)
        st.session_state.pop("project_knobs", None)  # read again: the sidebar's "Reset" now goes to these
        st.success("Saved: new sessions on this project start from these knobs.")
    except DriftLensError as exc:
        session.show_error(exc)

axes = [a for a in grid if len(grid[a]) > 1] or list(grid)
if len(axes) >= 2:
    x, y = st.columns(2)
    x_axis = x.selectbox("Heatmap across", axes, index=0, key="tune_x")
    y_axis = y.selectbox("and", [a for a in axes if a != x_axis], key="tune_y")
    fixed = {a: st.selectbox(f"with {a}", grid[a], key=f"tune_fix_{a}") for a in grid if a not in (x_axis, y_axis)}
    shown = [r for r in rows if all(r.get(a) == v for a, v in fixed.items())]
    st.plotly_chart(tuning_charts.heatmap(shown, x_axis, y_axis, metric), key="tune_heatmap")
st.dataframe(pd.DataFrame(rows), hide_index=True, key="tune_table")

st.subheader("Per question")
labels = {r.label: r for r in summary.run.results}
table = pd.DataFrame(
    {name: r.per_question(metric) for name, r in labels.items()},
).rename(index={q.id: q.text for q in question_set.questions})
st.dataframe(table, key="tune_per_question")
question = st.selectbox("Which settings found which labelled chunks", [q.text for q in question_set.labelled],
                        key="tune_question")  # fmt: skip
chosen_q = next(q for q in question_set.labelled if q.text == question)
for name, r in labels.items():
    found = next((o.found for o in r.outcomes if o.question_id == chosen_q.id), [])
    st.markdown(f"- `{name}`: {len(found)}/{len(chosen_q.gold)} labelled passages found")
    for k in found:  # the passage itself: several of a set's passages often come from one document
        passage = question_set.passages[k]
        st.caption(f"{inert(passage.title)} — “{inert(short(passage.text, 240))}”")
