"""FalkorDB's parameter text is the client's own for every value but float vectors (store/falkordb_params.py).
Why it matters: `encode` looks the plain types up by exact type before its other checks, and a string quoted or a
number written otherwise than the client writes it would store another value, or fail to parse."""

from __future__ import annotations

from collections import OrderedDict

import pytest
from falkordb.helpers import stringify_param_value

from retrieval.store.falkordb_params import encode, header

PLAIN = [
    "",
    "plain",
    'a "quoted" name',
    "back\\slash\\",
    '\\"',
    "line\nbreak and ‘curly’ quotes, ünïcode",
    0,
    -17,
    2**70,
    2.5,
    -0.0,
    1e-300,
    float("inf"),
    None,
    True,
    False,
]


@pytest.mark.parametrize("value", PLAIN, ids=repr)
def test_a_plain_value_is_written_as_the_client_writes_it(value: object) -> None:
    assert encode(value) == stringify_param_value(value)


def test_rows_of_nested_values_are_written_as_the_client_writes_them() -> None:
    """An indexing batch's shape: a list of maps holding strings, numbers, None, lists of strings and maps."""
    rows = [
        {"id": f"e{i}", "name": value, "aliases": [str(value), "x"], "n": i, "meta": {"w": i / 3, "none": None}}
        for i, value in enumerate(PLAIN)
    ]
    assert encode(rows) == stringify_param_value(rows)
    assert header({"rows": rows}) == f"CYPHER `rows`={stringify_param_value(rows)} "


def test_a_mapping_that_is_not_a_dict_and_a_subclass_of_str_are_written_as_the_client_writes_them() -> None:
    """Types the exact-type lookup misses take the general path, to the same text."""

    class Name(str):
        pass

    assert encode(OrderedDict(a=1, b="x")) == stringify_param_value({"a": 1, "b": "x"})
    assert encode(Name('say "hi"')) == stringify_param_value('say "hi"')
