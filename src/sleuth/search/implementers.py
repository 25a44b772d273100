"""The types that satisfy a Go interface, which never name it.

"who implements Store" finds ``class X implements Store`` by the words of X's head
(``uses._extends``). A Go type implements an interface by having its methods and
never writes the interface's name, so no text search finds it. Here the interface's
method set is read from its declaration (with the interfaces it embeds), and the
answer is every type that defines each of those methods.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..tokens import last_part
from .uses import bracketed

if TYPE_CHECKING:
    from ..store.meta import MetaStore

#: How deep embedded interfaces are followed (``Router`` embeds ``Routes`` ..).
EMBED_DEPTH = 3
#: How many levels of struct embedding pass methods on.
PROMOTION_DEPTH = 2
#: A line of an interface's body that declares a method: ``Find(rctx *Context) string``.
_METHOD = re.compile(r"([A-Za-z_]\w*)\s*\(")
#: A line that embeds another interface or type: ``Routes``, ``http.Handler``, ``*Base``.
_EMBEDDED = re.compile(r"\*?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)")
#: Shape: the parameter types and the result types of a method, each as written less
#: package names (``storage.SeriesRef`` is ``SeriesRef``); None when it is not known.
Shape = tuple[tuple[str, ...], tuple[str, ...]] | None
#: Words that open a type, not a parameter's name (``chan int``, ``func() error``).
_TYPE_WORDS = frozenset({"chan", "func", "map", "struct", "interface"})


#: The methods of the interface every Go type may embed.
_BUILTIN: dict[str, dict[str, Shape]] = {"error": {"Error": ((), ("string",))}}


def structural_implementers(meta: MetaStore, name: str) -> dict[int, str]:
    """Chunk id -> type name, for the types that satisfy ``name`` by their methods
    alone: a Go interface's (``go_implementers``) and a Python Protocol's
    (``python_protocol_implementers``). What the ranking and the uses benchmark count."""
    found = go_implementers(meta, name)
    found.update(python_protocol_implementers(meta, name))
    return found


def go_implementers(meta: MetaStore, name: str) -> dict[int, str]:
    """Chunk id -> type name, for the Go types' declarations (or, for a type declared
    elsewhere, its first method) that define every method of a Go interface named
    ``name`` in its shape (``Shape``: the same parameter and result types), or have it
    from a type they embed; empty when the tree declares no such interface or it lists
    no method (a type constraint). Interfaces of one name in several packages are
    answered each."""
    found: dict[int, str] = {}
    for _, methods in _method_sets(meta, last_part(name), EMBED_DEPTH):
        for chunk_id, owner in _satisfying(meta, methods):
            found.setdefault(chunk_id, owner)
    return found


def python_protocol_implementers(meta: MetaStore, name: str) -> dict[int, str]:
    """Chunk id -> class name, for the Python classes that define every method of a
    ``typing.Protocol`` named ``name`` (by name: a protocol is satisfied by shape, as a
    Go interface is); empty when no Protocol is so named or it declares no method."""
    found: dict[int, str] = {}
    short = last_part(name)
    for row, chunk_id in meta.definitions_in([short], ["class"], "python"):
        head = re.search(
            rf"class\s+{re.escape(short)}\s*(?:\[[^\]]*\])?\s*\(([^)]*)\)",
            meta.texts([chunk_id]).get(chunk_id, ""),
        )
        if head is None or not re.search(r"\bProtocol\b", head.group(1)):
            continue
        methods = {
            member.name
            for member, _ in meta.members_of(short, 200)
            if member.kind == "method"
            and member.path == row.path
            and not member.name.startswith("__")
        }
        if not methods:
            continue
        owners: dict[str, set[str]] = {}
        for member, _ in meta.definitions_in(methods, ["method"], "python"):
            owners.setdefault(member.parent, set()).add(member.name)
        complete = [owner for owner, has in owners.items() if has >= methods and owner != short]
        for cls, chunk_id in meta.definitions_in(complete, ["class"], "python"):
            found.setdefault(chunk_id, cls.name)
    return found


def _satisfying(meta: MetaStore, methods: dict[str, Shape]) -> list[tuple[int, str]]:
    owners: dict[str, dict[str, int]] = {}
    for row, chunk_id in meta.definitions_in(methods, ["method"], "go"):
        head = re.search(rf"\b{re.escape(row.name)}\s*\(", row.signature)
        shape = _shape(row.signature[head.end() :]) if head else None
        if shape is None or methods[row.name] is None or shape == methods[row.name]:
            owners.setdefault(row.parent, {}).setdefault(row.name, chunk_id)
    _promote(meta, owners)
    complete = {owner: found for owner, found in owners.items() if found.keys() >= methods.keys()}
    declared = {
        row.name: chunk_id for row, chunk_id in meta.definitions_in(complete, ["type"], "go")
    }
    return [(declared.get(owner, min(found.values())), owner) for owner, found in complete.items()]


def _promote(meta: MetaStore, owners: dict[str, dict[str, int]]) -> None:
    """Gives the types that embed an owner (``type flushWriter struct { basicWriter }``)
    its methods, as Go promotes them, over ``PROMOTION_DEPTH`` levels."""
    embedders = _embedders(meta)
    frontier = set(owners)
    for _ in range(PROMOTION_DEPTH):
        grown: set[str] = set()
        for inner in sorted(frontier):
            for outer in embedders.get(inner, ()):
                mine = owners.setdefault(outer, {})
                before = len(mine)
                for method, chunk_id in owners[inner].items():
                    mine.setdefault(method, chunk_id)
                if len(mine) > before:
                    grown.add(outer)
        frontier = grown


#: (index file, lexical commit mark) -> embedded type name -> the Go types embedding it.
_EMBEDDERS: dict[str, tuple[str, dict[str, set[str]]]] = {}


def _embedders(meta: MetaStore) -> dict[str, set[str]]:
    """Which Go types embed which, by name, read once per index snapshot (every Go type
    declaration's lines: about 13 ms for 700 files)."""
    mark = meta.get("lexical_commit", "") or ""
    cached = _EMBEDDERS.get(str(meta.path))
    if cached is not None and cached[0] == mark:
        return cached[1]
    embedders: dict[str, set[str]] = {}
    for outer, text in meta.definition_texts("type", "go"):
        if "interface" in text.split("\n", 1)[0]:
            continue  # an interface embeds interfaces, whose methods it only asks for
        for line in text.split("\n")[1:]:
            field = _EMBEDDED.fullmatch(line.split("//", 1)[0].strip())
            if field and field.group(1) != outer:
                embedders.setdefault(field.group(1), set()).add(outer)
    _EMBEDDERS[str(meta.path)] = (mark, embedders)
    return embedders


def _method_sets(
    meta: MetaStore, name: str, depth: int, near: str = ""
) -> list[tuple[str, dict[str, Shape]]]:
    """(path, methods) of each interface named ``name``: the methods it asks for, each
    with its shape, with those of the interfaces it embeds (of an embedded name, the
    one declared in the same folder, else the first; one the tree does not declare adds
    none). Those declared in the folder ``near`` come first."""
    if name in _BUILTIN:
        return [("", dict(_BUILTIN[name]))]
    sets: list[tuple[str, dict[str, Shape]]] = []
    for row, _ in meta.definitions_in([name], ["type"], "go"):
        text = _declaration_text(meta, row.path, row.start_line, row.end_line)
        body = interface_body(text, name)
        if body is None:
            continue
        folder = row.path.rpartition("/")[0]
        methods: dict[str, Shape] | None = {}
        for line, rest in _body_lines(body):
            method = _METHOD.match(line)
            embedded = _EMBEDDED.fullmatch(line)
            if method:
                methods[method.group(1)] = _shape(rest[method.end() :])
            elif embedded and depth > 0 and embedded.group(1) != name:
                inner = _method_sets(meta, embedded.group(1), depth - 1, folder)
                methods.update(inner[0][1] if inner else {})
            elif line.startswith("~") or "|" in line:
                methods = None  # ``~int | ~string``: a constraint, no method satisfies
                break
        if methods:
            sets.append((row.path, methods))
    return sorted(sets, key=lambda found: found[0].rpartition("/")[0] != near)


def _declaration_text(meta: MetaStore, path: str, start: int, end: int) -> str:
    chunks = meta.chunks_in_file(path)
    return "\n".join(c.text for c in chunks if c.start_line <= end and c.end_line >= start)


def interface_body(text: str, name: str) -> str | None:
    """The body of ``type name interface { .. }`` in ``text``, comments left out; None
    when ``text`` declares no interface so named."""
    head = re.search(rf"(?<![\w.]){re.escape(name)}\s*(?:\[[^\]\n]*\])?\s+interface\s*\{{", text)
    if head is None:
        return None
    depth, end = 1, head.end()
    while depth and end < len(text):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        end += 1
    body = re.sub(r"/\*[\s\S]*?\*/", "", text[head.end() : end - 1])
    return re.sub(r"//[^\n]*", "", body)


def _body_lines(body: str) -> list[tuple[str, str]]:
    """Each line of an interface's body, trimmed, with the body from that line on (a
    method's parameters may run over lines)."""
    out, offset = [], 0
    for line in body.split("\n"):
        start = offset + len(line) - len(line.lstrip())
        out.append((line.strip(), body[start:]))
        offset += len(line) + 1
    return out


def _shape(text: str) -> Shape:
    """The shape of a method whose parameter list opens just before ``text`` (its first
    line's results: ``bool``, ``(int, error)``); None when the list does not close."""
    params, rest = bracketed(text)
    if params is None:
        return None
    rest = rest.split("\n", 1)[0].strip()
    if rest.startswith("("):
        results, _ = bracketed(rest[1:])
        if results is None:
            return None
    else:
        results = re.split(r"\{|//", rest, maxsplit=1)[0]
    return _types(params), _types(results)


def _types(items: str) -> tuple[str, ...]:
    """The types of a parameter or result list: ``a, b string, c int`` is (string,
    string, int), ``string, int`` is (string, int)."""
    parts, depth, start = [], 0, 0
    for position, char in enumerate(items + ","):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(items[start:position].strip())
            start = position + 1
    parts = [part for part in parts if part]
    named = any(
        re.match(r"[A-Za-z_]\w*\s+\S", part) and part.split()[0] not in _TYPE_WORDS
        for part in parts
    )
    if not named:
        return tuple(_type_name(part) for part in parts)
    types: list[str] = []
    waiting = 0  # names whose type comes with a later name (``a, b string``)
    for part in parts:
        name_and_type = part.split(None, 1)
        if len(name_and_type) == 1:
            waiting += 1
            continue
        types.extend([_type_name(name_and_type[1])] * (waiting + 1))
        waiting = 0
    return tuple(types)


def _type_name(written: str) -> str:
    """A type as compared: no spaces, no package names, ``interface{}`` as ``any``, a
    function type's own parameter names left out (``func(value string) bool``)."""
    opened = re.match(r"\s*func\s*\(", written)
    shape = _shape(written[opened.end() :]) if opened else None
    if shape is not None:
        return f"func({','.join(shape[0])})({','.join(shape[1])})"
    compact = re.sub(r"\s+", "", written)
    compact = re.sub(r"\b[A-Za-z_]\w*\.(?=[A-Za-z_])", "", compact)
    return compact.replace("interface{}", "any")
