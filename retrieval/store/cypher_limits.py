"""Rewrites that bound what a read written by a person or a model can cost the server.

Why rewrite instead of trusting a memory cap: FalkorDB's per-query memory capacity stops a query that grows,
but `range(1, 2000000000)` asks for its whole 32 GB list in one allocation, which aborts the server before the
cap is checked. Bounding the range's end to one element past what the cap allows keeps the allocation small
enough to succeed, so the cap then stops the query with its own error, and no result the cap allows changes.
Row limits go into the query (a subquery with LIMIT) so the server stops producing rows, rather than the client
receiving every row and dropping most of them.
"""

from __future__ import annotations

import re

#: `range(` as the function, also spelled as a quoted name (`` `range`( ``), which calls the same function.
_RANGE = re.compile(r"(?<![\w.$`])(?:range|`range`)\s*\(", re.IGNORECASE)
_STANDALONE_CALL = re.compile(r"^\s*CALL\s+[A-Za-z_][\w.]*\s*\(", re.IGNORECASE)
_YIELD = re.compile(r"\bYIELD\b", re.IGNORECASE)
_RETURN = re.compile(r"\bRETURN\b", re.IGNORECASE)
_PREFIX = re.compile(r"^\s*(EXPLAIN|PROFILE)\b", re.IGNORECASE)
_OPEN, _CLOSE = "([{", ")]}"


def bounded(cypher: str, limit: int) -> str:
    """`cypher` returning at most `limit` rows, the limit applied by the database.

    A standalone procedure call (no YIELD) cannot sit in a subquery; it is returned as it is and stays bounded by
    the query timeout and the memory cap. Nor is a query without RETURN or YIELD (it has no rows to bound): wrapped,
    a write would fail as a syntax error on Neo4j instead of being refused as a write.
    """
    body = cypher.strip().rstrip(";").strip()
    code = _code_only(body)
    returns_rows = _RETURN.search(code) or _YIELD.search(code)
    if _PREFIX.match(body) or (_STANDALONE_CALL.match(body) and not _YIELD.search(code)) or not returns_rows:
        return cypher
    return f"CALL {{\n{body}\n}}\nRETURN * LIMIT {int(limit)}"


def bound_ranges(cypher: str, max_elements: int) -> str:
    """Every `range(start, end[, step])` outside strings and comments, with at most `max_elements` elements."""
    if "range" not in cypher.lower():
        return cypher
    out: list[str] = []
    pos = 0
    code = _code_only(cypher)
    for match in _RANGE.finditer(code):
        if match.start() < pos:
            continue  # inside a range already rewritten (its arguments are rewritten recursively)
        close = _closing(code, match.end() - 1)
        if close is None:
            break  # unbalanced: the database reports the syntax error
        args = [bound_ranges(a, max_elements) for a in _split_args(cypher, code, match.end(), close)]
        out.append(cypher[pos : match.start()])
        out.append(_bounded_range(args, max_elements) if len(args) in (2, 3) else cypher[match.start() : close + 1])
        pos = close + 1
    out.append(cypher[pos:])
    return "".join(out)


def _bounded_range(args: list[str], m: int) -> str:
    start, end = f"({args[0].strip()})", f"({args[1].strip()})"
    if len(args) == 2:
        return f"range({start}, CASE WHEN {end} - {start} > {m} THEN {start} + {m} ELSE {end} END)"
    step = f"({args[2].strip()})"
    capped = f"{start} + {step} * {m}"
    return (
        f"range({start}, CASE WHEN {step} > 0 AND {end} - {start} > {step} * {m} THEN {capped} "
        f"WHEN {step} < 0 AND {end} - {start} < {step} * {m} THEN {capped} ELSE {end} END, {step})"
    )


def _code_only(cypher: str) -> str:
    """`cypher` with the insides of strings, quoted names and comments blanked out (same length, same offsets).

    A quoted name that is `range` stays: it names the function as well as the bare word does.
    """
    chars = list(cypher)
    i, n = 0, len(cypher)
    while i < n:
        c = cypher[i]
        if c in "'\"`":
            j = i + 1
            while j < n and cypher[j] != c:
                j += 2 if cypher[j] == "\\" and c != "`" else 1
            if not (c == "`" and cypher[i + 1 : j].lower() == "range"):
                chars[i + 1 : min(j, n)] = " " * (min(j, n) - i - 1)
            i = j + 1
        elif cypher.startswith("//", i):
            j = cypher.find("\n", i)
            j = n if j < 0 else j
            chars[i:j] = " " * (j - i)
            i = j
        elif cypher.startswith("/*", i):
            j = cypher.find("*/", i + 2)
            j = n if j < 0 else j + 2
            chars[i:j] = " " * (j - i)
            i = j
        else:
            i += 1
    return "".join(chars)


def _closing(code: str, open_at: int) -> int | None:
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] in _OPEN:
            depth += 1
        elif code[i] in _CLOSE:
            depth -= 1
            if depth == 0:
                return i
    return None


def _split_args(cypher: str, code: str, start: int, close: int) -> list[str]:
    args, depth, begin = [], 0, start
    for i in range(start, close):
        if code[i] in _OPEN:
            depth += 1
        elif code[i] in _CLOSE:
            depth -= 1
        elif code[i] == "," and depth == 0:
            args.append(cypher[begin:i])
            begin = i + 1
    args.append(cypher[begin:close])
    return args
