"""The structure of a source file: its definitions with line ranges, its imports, calls and comments.

Why tree-sitter (with the `tree-sitter-python`, `-javascript` and `-typescript` grammar wheels) rather than
Python's `ast`: one parser and one walk cover Python, JavaScript and TypeScript alike, it parses files that
do not run under the indexing interpreter (newer syntax, Python 2, half-edited files) with error nodes
instead of giving up, and it gives line positions for comments, which `ast` drops.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter as ts

from retrieval.indexing.languages import Language


@dataclass(frozen=True)
class Definition:
    """A named definition; `name` is qualified by its enclosing classes (`Store.query`); lines are 1-based."""

    name: str
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Import:
    """`module` as written (`retrieval.store.base`, `..base`, `./util`); `names` maps local name -> imported name
    (empty for a whole-module import, bound to `alias`)."""

    module: str
    names: tuple[tuple[str, str], ...] = ()
    alias: str = ""


@dataclass(frozen=True)
class Segment:
    """A run of whole lines (0-based, inclusive) that belongs together: one definition, or the code between them."""

    first: int
    last: int
    symbol: str | None
    #: The node, for splitting a segment too long for one chunk along its members.
    node: ts.Node | None = None


@dataclass
class Outline:
    definitions: list[Definition] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    #: Called names as written, up to two parts: `helper`, `store.query`.
    calls: set[str] = field(default_factory=set)
    comments: list[str] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)


@functools.cache
def _parser(language: Language) -> ts.Parser:
    if language == "python":
        import tree_sitter_python as grammar

        return ts.Parser(ts.Language(grammar.language()))
    if language == "javascript":
        import tree_sitter_javascript as js

        return ts.Parser(ts.Language(js.language()))
    import tree_sitter_typescript as typescript

    raw = typescript.language_tsx() if language == "tsx" else typescript.language_typescript()
    return ts.Parser(ts.Language(raw))


#: Node types that define a named thing, and the kind recorded for it.
DEFINITION_KINDS = {
    "function_definition": "function",
    "class_definition": "class",
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "method_definition": "method",
}
#: Wrappers whose inner declaration is the definition (`@decorator def`, `export function`).
_WRAPPERS = ("decorated_definition", "export_statement")
_CLASS_BODIES = ("block", "class_body")
_FUNCTION_VALUES = ("arrow_function", "function_expression", "function")


def _text(node: ts.Node | None) -> str:
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text is not None else ""


def _definition(node: ts.Node) -> tuple[ts.Node, str, str] | None:
    """(declaration node, name, kind) when `node` defines something, unwrapping decorators and exports."""
    if node.type in _WRAPPERS:
        inner = node.child_by_field_name("definition") or node.child_by_field_name("declaration")
        return _definition(inner) if inner is not None else None
    if node.type in DEFINITION_KINDS:
        name = _text(node.child_by_field_name("name"))
        return (node, name, DEFINITION_KINDS[node.type]) if name else None
    if node.type in ("lexical_declaration", "variable_declaration"):  # const handler = () => ...
        for declarator in node.named_children:
            value = declarator.child_by_field_name("value")
            if declarator.type == "variable_declarator" and value is not None and value.type in _FUNCTION_VALUES:
                return node, _text(declarator.child_by_field_name("name")), "function"
    return None


def _last_line(node: ts.Node) -> int:
    """0-based last line of a node (a node ending at column 0 ends on the line before)."""
    row, column = node.end_point
    return max(node.start_point[0], row - 1 if column == 0 else row)


def class_body(declaration: ts.Node) -> ts.Node | None:
    body = declaration.child_by_field_name("body")
    return body if body is not None and body.type in _CLASS_BODIES else None


def segments(parent: ts.Node, prefix: str = "") -> list[Segment]:
    """`parent`'s children as segments: each definition alone (with the comments right above it), the rest in runs."""
    out: list[Segment] = []
    pending: list[ts.Node] = []

    def flush(upto: int) -> None:
        if upto:
            out.append(Segment(pending[0].start_point[0], _last_line(pending[upto - 1]), None))
            del pending[:upto]

    for child in parent.named_children:
        found = _definition(child)
        if found is None:
            pending.append(child)
            continue
        comments, below = len(pending), child.start_point[0]
        while comments and pending[comments - 1].type == "comment" and below - _last_line(pending[comments - 1]) <= 1:
            comments -= 1  # a comment right above (no blank line between) belongs to the definition
            below = pending[comments].start_point[0]
        flush(comments)
        first = pending[0].start_point[0] if pending else child.start_point[0]
        pending.clear()
        out.append(Segment(first, _last_line(child), prefix + found[1], found[0]))
    flush(len(pending))
    return out


def _walk(node: ts.Node) -> Iterator[ts.Node]:
    """Every node under `node`, in document order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _definitions(root: ts.Node) -> list[Definition]:
    """Every definition, methods qualified by their class."""
    found: list[Definition] = []

    def visit(node: ts.Node, prefix: str, in_class: bool) -> None:
        for child in node.named_children:
            hit = _definition(child)
            if hit is None:
                visit(child, prefix, in_class)  # definitions under `if TYPE_CHECKING:`, `export {...}`
                continue
            declaration, name, kind = hit
            if in_class and kind == "function":
                kind = "method"
            found.append(Definition(prefix + name, kind, declaration.start_point[0] + 1, _last_line(child) + 1))
            if kind == "class":
                body = class_body(declaration)
                if body is not None:
                    visit(body, f"{prefix}{name}.", True)

    visit(root, "", False)
    return found


def _python_import(node: ts.Node) -> Import | None:
    if node.type == "import_statement":
        name = node.child_by_field_name("name")
        if name is None:
            return None
        if name.type == "aliased_import":
            return Import(_text(name.child_by_field_name("name")), alias=_text(name.child_by_field_name("alias")))
        module = _text(name)
        return Import(module, alias=module.split(".")[0])
    module = _text(node.child_by_field_name("module_name"))
    names = []
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            names.append((_text(child.child_by_field_name("alias")), _text(child.child_by_field_name("name"))))
        else:
            names.append((_text(child), _text(child)))
    return Import(module, tuple(names))


def _js_import(node: ts.Node) -> Import | None:
    source = node.child_by_field_name("source")
    if source is None:
        return None
    module = _text(source).strip("'\"`")
    names: list[tuple[str, str]] = []
    alias = ""
    for child in _walk(node):
        if child.type == "import_specifier":
            name = _text(child.child_by_field_name("name"))
            names.append((_text(child.child_by_field_name("alias")) or name, name))
        elif child.type == "namespace_import":
            alias = _text(child.named_children[0]) if child.named_children else ""
        elif child.type == "import_clause" and child.named_children and child.named_children[0].type == "identifier":
            alias = _text(child.named_children[0])  # default import: the module itself
    return Import(module, tuple(names), alias)


def _callee(node: ts.Node) -> str:
    """`f` or `obj.attr` of a call's function, "" for anything else (calls on call results, subscripts...)."""
    if node.type == "identifier":
        return _text(node)
    if node.type in ("attribute", "member_expression"):
        obj = node.child_by_field_name("object")
        attr = node.child_by_field_name("attribute") or node.child_by_field_name("property")
        if obj is not None and obj.type == "identifier" and attr is not None:
            return f"{_text(obj)}.{_text(attr)}"
    return ""


def _docstring(node: ts.Node) -> str:
    """A Python string statement (module, class or function docstring)."""
    if node.type == "expression_statement" and node.named_children and node.named_children[0].type == "string":
        return _text(node.named_children[0])
    return ""


def parse(language: Language, text: str) -> Outline:
    """The outline of `text`; a file with syntax errors still gets every part tree-sitter recovered."""
    root = _parser(language).parse(text.encode("utf-8")).root_node
    outline = Outline(definitions=_definitions(root), segments=segments(root))
    for node in _walk(root):
        if node.type in ("import_statement", "import_from_statement"):
            found = _python_import(node) if language == "python" else _js_import(node)
            if found is not None and found.module:
                outline.imports.append(found)
        elif node.type in ("call", "call_expression"):
            function = node.child_by_field_name("function")
            callee = _callee(function) if function is not None else ""
            if callee == "require":  # CommonJS: const x = require("./x")
                arguments = node.child_by_field_name("arguments")
                target = arguments.named_children[0] if arguments and arguments.named_children else None
                if target is not None and target.type == "string":
                    outline.imports.append(Import(_text(target).strip("'\"`")))
            elif callee:
                outline.calls.add(callee)
        elif node.type == "comment":
            outline.comments.append(_text(node))
        elif language == "python" and (doc := _docstring(node)):
            outline.comments.append(doc)
    return outline
