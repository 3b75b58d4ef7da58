"""Reusable Streamlit rendering: sidebar, answers, graph views, charts, live progress."""
