"""What a function calls: the definitions of the names its code calls, in written order.

"what does parse_config call" is not a question BM25 can answer: the callees need not
share a word with the caller. It is a lookup: the caller's definition, the names its
code calls (comments and docstrings aside), and where the tree defines each of them.
Names the tree does not define (a library's, a builtin) are passed over.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..store.definitions import DefinitionSpan
from ..store.meta import ChunkRow, MetaStore
from ..tokens import owner_of, short_name
from .filters import category_of
from .symbols import owned_member_spans
from .uses import code_lines

#: A name followed by its arguments: a call (``parse(``, ``self.load(``, ``Foo::new(``).
_CALLED = re.compile(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*\(")
#: Words written before a parenthesis that are not calls in the languages indexed.
_KEYWORDS = (
    "if elif else for foreach while until unless switch match case when catch except with "
    "return yield await throw raise assert not and or in is new delete sizeof typeof "
    "instanceof function func fn def lambda do super print"
)
_NOT_CALLS = frozenset(_KEYWORDS.split())
#: Callers looked at when several definitions share the name, and callees looked up.
MAX_CALLERS = 3
MAX_CALLEES = 60
_CALLABLE = frozenset({"function", "method", "macro"})


def called_names(text: str, own: str) -> list[str]:
    """The names ``text`` calls, in the order of their first call, without ``own``."""
    seen: dict[str, None] = {}
    for found in _CALLED.finditer(code_lines(text)):
        name = found.group(1)
        if name != own and name.lower() not in _NOT_CALLS:
            seen.setdefault(name, None)
    return list(seen)


def callers(meta: MetaStore, name: str) -> list[DefinitionSpan]:
    """The definitions of ``name`` that can call something, in its very case when any is;
    a name written with its owner (``Index.search``) is that owner's member."""
    spans = meta.find_definitions([name]).get(name.lower(), [])
    if not spans and owner_of(name):
        spans = owned_member_spans(meta, name, MAX_CALLERS)
    spans = [s for s in spans if s.kind in _CALLABLE] or spans
    exact = [s for s in spans if short_name(s.name) == short_name(name)]
    return (exact or spans)[:MAX_CALLERS]


def callees(
    meta: MetaStore, name: str
) -> tuple[list[DefinitionSpan], list[tuple[DefinitionSpan, ChunkRow]]]:
    """(the definitions of ``name`` read, [(a callee's definition, the chunk holding
    it)] in written order)."""
    found = callers(meta, name)
    chunks = _ChunksByFile(meta)
    called: dict[str, None] = {}
    for span in found:
        for row in chunks.overlapping(span.path, span.start_line, span.end_line):
            # only the definition's own lines: a small method shares its class's chunk
            first = max(0, span.start_line - row.start_line)
            own = row.text.split("\n")[first : span.end_line - row.start_line + 1]
            called.update(dict.fromkeys(called_names("\n".join(own), short_name(name))))
    names = list(called)[:MAX_CALLEES]
    defined = meta.find_definitions(names)
    caller_paths = {span.path for span in found}
    out = []
    seen: set[int] = set()  # one entry per chunk: the first callee named in it
    for callee in names:
        spans = defined.get(callee.lower())
        if not spans:
            continue
        best = min(spans, key=lambda s: _preference(s, callee, caller_paths))
        row = next(chunks.overlapping(best.path, best.start_line, best.start_line), None)
        if row is not None and row.id not in seen:
            seen.add(row.id)
            out.append((best, row))
    return found, out


def _preference(span: DefinitionSpan, called: str, caller_paths: set[str]) -> tuple:
    """Which definition of a called name is meant: its very case, the caller's own
    file, a callable, source over tests."""
    return (
        short_name(span.name) != called,
        span.path not in caller_paths,
        span.kind not in _CALLABLE,
        category_of(span.path, "") == "tests",
        span.path,
    )


class _ChunksByFile:
    """The chunks of a file, read once per file."""

    def __init__(self, meta: MetaStore) -> None:
        self.meta = meta
        self.files: dict[str, list[ChunkRow]] = {}

    def overlapping(self, path: str, start: int, end: int) -> Iterator[ChunkRow]:
        rows = self.files.get(path)
        if rows is None:
            rows = self.files[path] = self.meta.chunks_in_file(path)
        return (row for row in rows if row.start_line <= end and start <= row.end_line)
