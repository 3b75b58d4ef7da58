"""Web links named in a document: anywhere in prose and Markdown, only in comments and docstrings in code.

Why only there in code: a URL in a string literal is data the program uses (an endpoint, a test fixture),
while a link in a comment or a document is a reference a reader follows. URLs are stored as text and never
fetched (DriftLens makes no outbound calls but to its configured services).
"""

from __future__ import annotations

import re

_URL = re.compile(r"https?://[^\s<>\"'`()\[\]{}|\\^]+", re.IGNORECASE)
_TRAILING = ".,;:!?*_~"
#: A generated file can hold thousands of links; the first ones say what it refers to.
MAX_LINKS = 200


def urls(text: str) -> list[str]:
    """Distinct http(s) URLs in order of first appearance, without the punctuation that ends a sentence."""
    seen: dict[str, None] = {}
    for match in _URL.finditer(text):
        url = match.group(0).rstrip(_TRAILING)
        if len(url) > len("https://"):
            seen.setdefault(url, None)
        if len(seen) >= MAX_LINKS:
            break
    return list(seen)
