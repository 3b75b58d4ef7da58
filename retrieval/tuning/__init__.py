"""Tuning lab: question sets with relevance labels, and a grid of retrieval settings measured against them.

Why in `retrieval`: the Tuning page, the `tune` CLI command and the evaluation harness run the same code,
so a figure on the page is the figure the harness prints for the same settings.
"""
