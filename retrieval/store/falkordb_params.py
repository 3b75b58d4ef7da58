"""Query parameters for FalkorDB, written as the `CYPHER name=value ...` header it reads them from.

Why not the client's own encoder: FalkorDB takes parameters as Cypher text, and the client turns every float of a
384-d vector into text through a recursive Python call with type checks: 2,000 chunk rows took ~0.5 s to encode
against ~0.1 s for the server to store them, so bulk loads ran at ~2k chunks/s, bound by this encoding alone.
Here a list of floats is joined in one C-level pass, and a float32 numpy vector is written with 9 significant
digits, which is exactly what float32 holds (the stored vector is float32 either way, `vecf32`).
Every other value is written as the client writes it, so the text the server parses is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from typing import Any

import numpy as np
from falkordb.helpers import quote_string, stringify_param_value

#: Significant digits that round-trip any float32 (FLT_DECIMAL_DIG); `#` keeps the decimal point, so -0.0 is written
#: "-0.00000000", a float, where ".9g" wrote "-0", which Cypher reads as the integer 0 (tests/test_vector_rows.py).
FLOAT32_DIGITS = "#.9g"
_NUMBERS = {float, int}


def header(params: Mapping[str, Any] | None) -> str:
    """`CYPHER `a`=1 `b`=[...] ` to put before a query; empty without parameters."""
    if not params:
        return ""
    return "CYPHER " + "".join(f"{_key(name)}={encode(value)} " for name, value in params.items())


def encoded_batches(cypher: str, rows: Sequence[Mapping[str, Any]], batch_size: int) -> Iterator[str]:
    """`cypher` with each batch of `rows` as its `$rows`, the next batch encoded while the caller runs this one.

    Why: encoding a batch (Python, this process) and storing it (the server's process) took about as long as each
    other on a bulk load; on two cores they overlap. One batch ahead bounds the memory held.
    """
    starts = range(0, len(rows), batch_size)

    def encoded(start: int) -> str:
        return header({"rows": list(rows[start : start + batch_size])}) + cypher

    with ThreadPoolExecutor(1, thread_name_prefix="falkordb-encode") as encoder:
        ahead = encoder.submit(encoded, starts[0]) if starts else None
        for following in [*starts[1:], None]:
            if ahead is None:
                return
            text = ahead.result()
            ahead = encoder.submit(encoded, following) if following is not None else None
            yield text


def query_vector(vector: Sequence[float]) -> np.ndarray:
    """A query vector as float32, the precision `vecf32` keeps on the server anyway.

    Why: a float32 written as a Python float takes ~17 digits, as float32 9, so the text the server parses per
    vector shrinks from ~8 to ~5 KB and encodes in half the time; the vector the server compares is the same.
    """
    return np.asarray(vector, dtype=np.float32).reshape(-1)


#: The client's text for the plain types a row holds most, looked up by exact type before the checks below. Why:
#: a bulk write encodes ~800k values (MuSiQue's 1,890 passages), and each went through four `isinstance` tests,
#: one of them against the `Mapping` ABC, before reaching the client's own; the text is the same
#: (tests/test_falkordb_params.py).
_PLAIN: dict[type, Callable[[Any], str]] = {str: quote_string, int: str, float: repr, type(None): lambda _none: "null"}


def encode(value: Any) -> str:
    """One parameter value as Cypher text."""
    plain = _PLAIN.get(type(value))
    if plain is not None:
        return plain(value)
    if type(value) is dict:
        return _map(value)
    if isinstance(value, np.ndarray):
        if value.dtype == np.float32 and value.ndim == 1:
            return "[" + ",".join(map(format, value.tolist(), repeat(FLOAT32_DIGITS))) + "]"
        return encode(value.tolist())
    if isinstance(value, (list, tuple)):
        if value and set(map(type, value)) <= _NUMBERS:  # repr is what the client writes for these
            return "[" + ",".join(map(repr, value)) + "]"
        return "[" + ",".join(map(encode, value)) + "]"
    if isinstance(value, Mapping):
        return _map(value)
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return encode(value.item())
    return str(stringify_param_value(value))


def _map(value: Mapping[Any, Any]) -> str:
    return "{" + ",".join(f"{_key(k)}:{encode(v)}" for k, v in value.items()) + "}"


def _key(name: object) -> str:
    """A parameter or map key in backticks; the client refuses the same names (the server cannot escape them)."""
    key = name.decode() if isinstance(name, bytes) else str(name)
    if not key or "`" in key:
        raise ValueError(f"not a valid Cypher parameter or map key: {key!r}")
    return f"`{key}`"
