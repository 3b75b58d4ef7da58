"""Untrusted text that tries every Markdown way of loading something: shared by the unit and browser tests.

Each variant points at its own address on `HOST` (a reserved name nobody answers for), so a failure names the
construct that got through. The first three are the tilde runs an earlier `inert` let through as images.
"""

from __future__ import annotations

HOST = "evil.example"


def url(name: str) -> str:
    return f"https://{HOST}/{name}.png"


VARIANTS: dict[str, str] = {
    "tilde-run": f"x ~~~ ![t]({url('tilde-run')}) ~~~",
    "tilde-glued": f"text ~~~![t]({url('tilde-glued')})~~~",
    "indented-tildes": f"    ~~~\n![t]({url('indented-tildes')})\n    ~~~",
    "image": f"Marley ![x]({url('image')}) owed money.",
    "linked-image": f"[![t]({url('linked-image')})](https://{HOST}/go) and [a link](https://{HOST}/link)",
    "reference-image": f"![a][r] and [b][r]\n\n[r]: {url('reference-image')}",
    "raw-html": f'<img src="{url("raw-html")}"> <iframe src="{url("raw-html-frame")}"></iframe>',
    "autolinks": f"<{url('autolink')}>, {url('bare')}, www.{HOST}/www.png and mail@{HOST}",
    "code": f"```\n![c]({url('in-fence')})\n```\n~~~\n![c]({url('in-tildes')})\n~~~\n    ![c]({url('indented')})\n"
    f"then `![s]({url('in-span')})` and ![o]({url('after-code')})",
    "nested": f"- > ![t]({url('nested-quote')})\n  1. item ![u]({url('nested-list')})\n> - ![v]({url('quote-list')})",
    "entities": f"&#33;[t]({url('entity-bang')}) !&#91;t&#93;({url('entity-bracket')}) "
    f"&lt;img src={url('entity-lt')}&gt;",
}
