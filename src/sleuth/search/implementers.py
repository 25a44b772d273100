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

if TYPE_CHECKING:
    from ..store.meta import MetaStore

#: How deep embedded interfaces are followed (``Router`` embeds ``Routes`` ..).
EMBED_DEPTH = 3
#: A line of an interface's body that declares a method: ``Find(rctx *Context) string``.
_METHOD = re.compile(r"([A-Za-z_]\w*)\s*\(")
#: A line that embeds another interface: ``Routes``, ``http.Handler``, ``*Base``.
_EMBEDDED = re.compile(r"\*?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)")
#: The methods of the interface every Go type may embed.
_BUILTIN: dict[str, dict[str, int | None]] = {"error": {"Error": 0}}


def go_implementers(meta: MetaStore, name: str) -> list[int]:
    """Chunk ids of the Go types' declarations (or, for a type declared elsewhere, its
    first method) that define every method of the Go interface ``name`` with as many
    parameters; empty when the tree declares no such interface or it lists no method
    (a type constraint)."""
    methods = _method_set(meta, last_part(name), EMBED_DEPTH)
    if not methods:
        return []
    owners: dict[str, dict[str, int]] = {}
    for row, chunk_id in meta.definitions_in(methods, ["method"], "go"):
        head = re.search(rf"\b{re.escape(row.name)}\s*\(", row.signature)
        arity = _arity(row.signature[head.end() :]) if head else None
        if arity is None or methods[row.name] is None or arity == methods[row.name]:
            owners.setdefault(row.parent, {}).setdefault(row.name, chunk_id)
    complete = {owner: found for owner, found in owners.items() if found.keys() >= methods.keys()}
    declared = {
        row.name: chunk_id for row, chunk_id in meta.definitions_in(complete, ["type"], "go")
    }
    return [declared.get(owner, min(found.values())) for owner, found in complete.items()]


def _method_set(meta: MetaStore, name: str, depth: int) -> dict[str, int | None]:
    """The methods an interface named ``name`` asks for, each with its number of
    parameters (None when unknown), with those of the interfaces it embeds (an embedded
    one the tree does not declare adds none of its own)."""
    if name in _BUILTIN:
        return dict(_BUILTIN[name])
    methods: dict[str, int | None] = {}
    for row, _ in meta.definitions_in([name], ["type"], "go"):
        text = _declaration_text(meta, row.path, row.start_line, row.end_line)
        body = interface_body(text, name)
        if body is None:
            continue
        for line, rest in _body_lines(body):
            method = _METHOD.match(line)
            embedded = _EMBEDDED.fullmatch(line)
            if method:
                methods[method.group(1)] = _arity(rest[method.end() :])
            elif embedded and depth > 0 and embedded.group(1) != name:
                methods.update(_method_set(meta, embedded.group(1), depth - 1))
            elif line.startswith("~") or "|" in line:
                return {}  # ``~int | ~string``: a constraint, no method satisfies
    return methods


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


def _arity(params: str) -> int | None:
    """How many parameters a list opened just before ``params`` holds (``a, b string``
    counts two), or None when it does not close."""
    depth, commas, seen = 0, 0, ""
    for char in params:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return 0 if not seen.strip() else commas + 1 - seen.rstrip().endswith(",")
            depth -= 1
        elif char == "," and depth == 0:
            commas += 1
        seen += char
    return None
