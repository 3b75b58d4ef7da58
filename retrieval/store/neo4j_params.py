"""Statement parameters as the Neo4j driver should send them: vectors that never become text on the way.

Why: every driver release up to 6.4 builds its "C: RUN" debug line eagerly, `" ".join(map(repr, fields))`,
before it knows whether debug logging is on. So each statement's parameters are turned into text whether or not
anything logs them: a 384-float query vector costs ~2 ms of `repr` per statement (a numpy array ~10x that, through
numpy's array printer), and a 2,000-row bulk write of vectors ~2 s. A vector wrapped in `Vector` packs into exactly
the same Bolt bytes (it is a list) and prints as one short line. With the driver's Rust packer (`neo4j-rust-ext`,
a runtime dependency) the packing itself is ~100x faster than the pure-Python one, which leaves `repr` as the
largest client-side cost of a search: this module removes it.

A side benefit: should debug logging be on, the parameters' vectors are not written to the log line by line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


class Vector(list[float]):
    """A list of floats whose `repr` does not print its floats (the driver packs it as the list it is)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"


def quiet(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """`params` with every vector (a float list or a numpy array) as a `Vector`; rows of a bulk write included."""
    return {key: _quiet_value(value) for key, value in (params or {}).items()}


def _quiet_value(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return Vector(value.tolist()) if value.ndim == 1 else [_quiet_value(row) for row in value]
    if isinstance(value, list) and not isinstance(value, Vector) and value:
        if isinstance(value[0], float):
            return Vector(value)
        if isinstance(value[0], (Mapping, list, np.ndarray)):
            return [_quiet_value(item) for item in value]
        return value
    if isinstance(value, Mapping):
        return {key: _quiet_value(item) for key, item in value.items()}
    return value
