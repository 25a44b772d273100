"""Whether a chunk defines a name the query asks for, and how: named for it, or
holding its first line (a small definition merged into its neighbour's chunk, a
function's inner function).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from ...store.definitions import DefinitionSpan
from ...store.meta import ChunkRow
from ...tokens import bare_name, short_name
from ..filters import category_of

#: Chunk kinds that declare a type (prior ``type_name``; a subtype question's name is
#: one) or something called (``function_name``).
TYPE_KINDS = frozenset({"class", "struct", "interface", "enum", "trait", "type", "module"})

CALLABLE_KINDS = frozenset({"function", "method", "macro"})


def symbols_hold_any(row: ChunkRow, names: set[str]) -> bool:
    """Whether a lower-cased name asked for is in the text of a chunk's symbols (its own
    and those merged into it, owner-qualified): a quick test, since a name can only be a
    symbol's short name if it is in that text."""
    held = f"{row.symbol} {row.symbols}".lower()
    return any(name in held for name in names)


def _spans_named(name: str, definitions: dict[str, list[DefinitionSpan]]) -> list[DefinitionSpan]:
    """The definitions of exactly ``name``, case and all (``Index``, not ``index``)."""
    return [s for spans in definitions.values() for s in spans if short_name(s.name) == name]


def defined_only_in_tests(name: str, definitions: dict[str, list[DefinitionSpan]]) -> bool:
    """Whether the definitions of exactly ``name`` (case and all) are all in test files."""
    paths = [span.path for span in _spans_named(name, definitions)]
    return bool(paths) and all(category_of(path, "") == "tests" for path in paths)


def kinds_named(name: str, definitions: dict[str, list[DefinitionSpan]]) -> frozenset[str]:
    """Which of "type" and "callable" the definitions of exactly this name are."""
    kinds = set()
    for span in _spans_named(name, definitions):
        if span.kind in TYPE_KINDS:
            kinds.add("type")
        elif span.kind in CALLABLE_KINDS:
            kinds.add("callable")
    return frozenset(kinds)


@lru_cache(maxsize=65_536)
def _short_names(symbols: str) -> tuple[str, ...]:
    return tuple(short_name(name) for name in symbols.split())


def kind_defined(row: ChunkRow, name: str, names: set[str], definitions: dict) -> str:
    """The kind of the definition of exactly ``name`` the chunk is, or holds the first
    line of when another names it (a function's inner function, a small definition
    merged into its neighbour's chunk); "" when there is none."""
    if short_name(row.symbol) == name:
        return row.kind
    spans = _starting_in(row, names, definitions)
    return next((span.kind for span in spans if short_name(span.name) == name), "")


def exact_case(
    row: ChunkRow, exact: frozenset[str], names: set[str], definitions: dict, defines: int
) -> bool:
    """Whether the chunk defines a name as the query writes it: by its symbols, or, for
    a function's inner function (which does not name the chunk holding it), by the
    definition that starts inside it."""
    if short_name(row.symbol) in exact or not exact.isdisjoint(_short_names(row.symbols)):
        return True
    if defines != HOLDS_START:
        return False
    return any(short_name(span.name) in exact for span in _starting_in(row, names, definitions))


def holds_inner(row: ChunkRow, names: set[str], definitions: dict) -> bool:
    """Whether an asked-for definition lies wholly inside the chunk while none of the
    chunk's own symbols is that name: a function's inner function. (A namespace or a
    class cut in pieces starts in a chunk but ends beyond it.)"""
    symbol = bare_name(row.symbol.lower())
    own = {symbol, short_name(symbol), *(n.lower() for n in _short_names(row.symbols))}
    if not own.isdisjoint(names):
        return False
    return any(span.end_line <= row.end_line for span in _starting_in(row, names, definitions))


def _starting_in(row: ChunkRow, names: set[str], definitions: dict) -> Iterator[DefinitionSpan]:
    """The asked-for definitions whose first line is in the chunk."""
    for name in names:
        for span in definitions.get(name, ()):
            if span.path == row.path and row.start_line <= span.start_line <= row.end_line:
                yield span


def asked_definition_in(row: ChunkRow, names: set[str], definitions: dict) -> DefinitionSpan | None:
    """The first definition the query asks for that starts in the chunk, when the chunk
    is named for something else: a small function merged into its neighbour's chunk is
    then shown under its own name. A function's inner function is not one of the
    chunk's symbols: the chunk stays the outer function's. A chunk named for nothing (a
    block of module-level values) is shown under the value asked for."""
    if not row.symbol:
        return min(_starting_in(row, names, definitions), default=None)
    symbol = bare_name(row.symbol.lower())
    asked = names | {short_name(name) for name in names}
    if symbol in asked or short_name(symbol) in asked:
        return None
    own = {name.lower() for name in row.symbols.split()}
    own.update(name.lower() for name in _short_names(row.symbols))
    for span in sorted(_starting_in(row, names, definitions)):
        if span.name.lower() in own or short_name(span.name).lower() in own:
            return span
    return None


NAMED_FOR = 1  # the chunk is named for the definition (one piece of a long one)

HOLDS_START = 2  # the chunk holds the definition's first line


def paths_defining(names: set[str], definitions: dict) -> frozenset[str]:
    """The files holding a definition the query asks for (``how_defined`` looks no further
    for the others)."""
    return frozenset(span.path for name in names for span in definitions.get(name, ()))


def how_defined(
    row: ChunkRow, names: set[str], definitions: dict, span_paths: frozenset[str]
) -> int:
    """Whether the chunk defines a name the query asks for: 0, ``NAMED_FOR`` or
    ``HOLDS_START``. An ``impl`` block (Rust's ``impl Router``, Haskell's ``instance``,
    Elixir's ``defimpl``) is named for its type but does not define it: only the methods
    inside it count. ``span_paths``: ``paths_defining`` of the query's definitions."""
    if row.path in span_paths and any(True for _ in _starting_in(row, names, definitions)):
        return HOLDS_START
    symbol = bare_name(row.symbol.lower())
    # qualified definitions answer for their last part: defmodule Phoenix.Router, Router
    if row.kind != "impl" and (symbol in names or short_name(symbol) in names):
        return NAMED_FOR
    return 0
