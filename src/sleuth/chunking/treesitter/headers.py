"""Class and module headers read from a file's lines: where a unit's header starts
and stops, one cut short mid-edit, and the same header written whole again."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

import tree_sitter

from .lines import ATTRIBUTE, CLOSES, enclosing_units, margin_of, next_level, opens, units_holding
from .nodes import is_missing_node

#: The kinds and header words of units whose functions are no methods.
MODULE_WORDS = frozenset({"module", "defmodule", "namespace"})


#: A class or module's header line (after its modifiers), and the name it gives
#: (Rust's impl: the type).
HEADER_NAME = re.compile(
    r"^\s*(?:[\w@()\[\]]+\s+)*?(class|struct|interface|enum|trait|object|protocol|extension"
    r"|module|record|namespace|actor|defmodule|impl(?:\s*<[^>]*>)?(?:\s+[\w:<>, ]+?\s+for)?)"
    r"\s+(?!(?:class|struct|interface|object)\b)(`[^`]+`|[A-Za-z_][\w.]*)"
)


#: The words a class or module's header line starts with, and its modifiers.
_HEADER_WORDS = (
    *("class", "struct", "interface", "enum", "trait", "object", "protocol", "extension"),
    *("module", "record", "namespace", "actor", "defmodule", "impl", "union"),
    *("public", "private", "protected", "internal", "fileprivate", "static", "final"),
    *("abstract", "sealed", "open", "data", "inner", "partial", "export", "default"),
    *("pub", "unsafe", "readonly"),
)


#: A header cut short before its name (``public clas``, ``enum class``, C++'s
#: ``namespac``), or Zig's ``const Builde`` (``= struct {`` cut off): its words, the
#: last maybe cut, and nothing after them; Zig's name as ``const``.
HEADER_CUT = re.compile(
    r"^\s*(?:(?:(?:{words})\s+)*(?:{cuts})|(?:pub\s+)?const\s+(?P<const>[A-Za-z_]\w*)"
    r"(?:\s*=\s*[a-z]*)?)\s*$".format(
        words="|".join(_HEADER_WORDS),
        cuts="|".join(sorted({w[:n] for w in _HEADER_WORDS for n in range(1, len(w) + 1)})),
    )
)


def header_line(line: str) -> bool:
    """Whether a line is a class or module's header, whole or cut short."""
    return bool(HEADER_NAME.search(line) or HEADER_CUT.match(line))


def headers_at(lines: list[str], indents: list[int | None], row: int) -> list[tuple[int, int]]:
    """The units whose header may hold the first error at ``row``: those holding it,
    the one opening on one of the two lines above (a C++ namespace whose members are
    not indented), and the unit below when the row is an attribute of it (Swift's
    ``@Suite("..")`` above a struct whose header broke, where the grammar gives up)."""
    units = units_holding(lines, indents, row)
    above = itertools.islice((i for i in range(row - 1, -1, -1) if indents[i] is not None), 2)
    for i in above:  # (a namespace not indenting, with a macro line below it)
        if header_line(lines[i]) and (unit := unit_opening_at(lines, indents, i)) is not None:
            units.append(unit)
            break
    if ATTRIBUTE.match(lines[row].lstrip()):
        below = next(
            (
                i
                for i in range(row + 1, len(lines))
                if indents[i] is not None and not ATTRIBUTE.match(lines[i].lstrip())
            ),
            None,
        )
        if below is not None and (opening := unit_opening_at(lines, indents, below)) is not None:
            units.append(opening)
    return units


def header_rows(
    lines: list[str], indents: list[int | None], start: int, end: int
) -> tuple[int, int, int | None] | None:
    """The header of the unit of rows [start, end) that holds members, as rows
    [start, stop) and the row of its closing line, the first after them at its
    indentation that only closes (None without one, as in Python): its first line,
    and the lines at its indentation that go on with it before the first member
    (Kotlin's ``) : Closeable {`` after the constructor's parameters). None for a
    unit without members."""
    level = indents[start]
    if level is None or next_level(indents, level, range(start + 1, end)) is None:
        return None
    stop = start + 1
    at_level = [i for i in range(start + 1, end) if indents[i] == level]
    if at_level and not opens(lines[at_level[0]]) and not CLOSES.match(lines[at_level[0]]):
        stop = at_level[0] + 1  # (rows deeper than the first line come before it)
        # and its supertypes may go on below it, to the brace (``) : Plan,`` over
        # ``  Carrier {``)
        brace = (i for i in range(stop - 1, min(end, stop + 3)) if lines[i].rstrip().endswith("{"))
        stop = next(brace, stop - 1) + 1
    # its closing line: the first at its indentation that closes (the unit may run on,
    # in a namespace that does not indent its contents)
    closing = next((i for i in at_level if i >= stop and CLOSES.match(lines[i])), None)
    return start, stop, closing


def flat_header(
    lines: list[str], start: int, bracket_deltas: Callable[[], list[int]]
) -> tuple[int, int, int | None] | None:
    """The header of a unit whose members are not indented (a C++ namespace) whose
    brace was cut off with its name: its first line, and its closing line, the first at
    its indentation where the brackets after it close one more than they opened
    (``bracket_deltas``: per row, of the parse)."""
    if not header_line(lines[start]) or "{" in lines[start]:
        return None
    margin, depth = margin_of(lines[start]), 0
    deltas = bracket_deltas()
    for row in range(start + 1, len(lines)):
        depth += deltas[row]
        if depth < 0:
            closes = margin_of(lines[row]) == margin and CLOSES.match(lines[row])
            return (start, start + 1, row) if closes else None
    return None


def _closed(node: tree_sitter.Node) -> bool:
    """Whether a node ends on a token of the file, not on one the grammar assumed."""
    while node.child_count:
        node = node.children[-1]
    return not node.is_missing


def rebraced(line: str, below: str | None) -> tuple[str, str | None] | None:
    """A class's header line written whole, as long as it was: its modifiers, keyword
    and name, then its opening brace (``export class TestRunner imp`` -> ``export class
    TestRunner   {``), without the modifiers where they leave no room; where neither
    leaves room, the brace takes the first column of the line ``below`` (the first
    member's, indented: ``class Ch`` over ``{ public:``). The two lines, the second
    None when unchanged; None when the line names no class or nothing has room."""
    named = HEADER_NAME.search(line)
    if named is None:
        return None
    size = len(line.encode("utf-8"))
    indent = line[: len(line) - len(line.lstrip())]
    # with its modifiers, else without them (``export class V`` -> ``class V  {``)
    for prefix in (named.group(0), f"{indent}{named.group(1)} {named.group(2)}"):
        room = size - len(prefix.encode("utf-8")) - 1
        if room >= 1:
            return prefix + " " * room + "{", None
    if below is None or below[:1] not in (" ", "\t"):
        return None
    prefix = named.group(0)
    return prefix + " " * (size - len(prefix.encode("utf-8"))), "{" + below[1:]


def header_read(
    root: tree_sitter.Node, lines: list[str], header: tuple[int, int, int | None], end: int
) -> bool:
    """Whether the grammar read a unit's header (rows [first, stop), its closing line,
    the unit's end) whole: a node other than an error starts on its first line and
    goes on to its closing line or last row (Rust's ``impl Sign`` cut short reads on
    to the first ``;``), and no error starts on its lines or the line after (a Python
    class header without its colon)."""
    first, stop, closing = header
    last = end - 1 if closing is None else closing
    line = lines[first]
    column = len(line.encode("utf-8")) - len(line.lstrip().encode("utf-8"))
    node: tree_sitter.Node | None = root.descendant_for_point_range(
        (first, column), (first, column + 1)
    )
    while node is not None and node.parent is not None and node.start_point.row == first:
        if node.type != "ERROR" and (
            node.end_point.row >= last or (node.end_point.row >= stop and _closed(node))
        ):
            stack = [node]
            while stack:
                at = stack.pop()
                if (
                    at.type == "ERROR" or is_missing_node(at)
                ) and first <= at.start_point.row <= stop:
                    return False
                stack.extend(
                    child
                    for child in at.children
                    if (child.has_error or child.is_missing)
                    and child.start_point.row <= stop
                    and child.end_point.row >= first
                )
            return True
        node = node.parent
    return False


def unit_opening_at(
    lines: list[str], indents: list[int | None], row: int
) -> tuple[int, int] | None:
    """The outermost unit whose first line is ``row``, if one is."""
    return next(
        ((start, end) for start, end, _ in enclosing_units(lines, indents, row) if start == row),
        None,
    )


def member_units(
    lines: list[str], indents: list[int | None], start: int, end: int
) -> list[tuple[int, int]]:
    """The units at the next indentation inside the unit of rows [start, end), as rows
    [start, end) each: a class's methods, a function's statements."""
    level = indents[start]
    deeper = None if level is None else next_level(indents, level, range(start + 1, end))
    if deeper is None:
        return []
    members: list[tuple[int, int]] = []
    opened = None
    for i in range(start + 1, end):
        indent = indents[i]
        if indent is None or indent > deeper or (indent == deeper and not opens(lines[i])):
            continue  # inside a member, or going on with it (its closing brace)
        if opened is not None:
            members.append((opened, i))
            opened = None
        if indent == deeper:
            opened = i
    if opened is not None:
        members.append((opened, end))
    return [headed(lines, indents, *member) for member in members]


def headed(lines: list[str], indents: list[int | None], start: int, end: int) -> tuple[int, int]:
    """Rows [start, end) of a unit widened to the attributes right above its first line
    (``@Test``, ``[Fact]``, ``#[test]``), which the grammar reads as part of it, and so
    narrowed by those of the unit after it: a method blanked without its attribute
    leaves the attribute to the next method."""
    last = attributes_start(lines, indents, end)
    return attributes_start(lines, indents, start), last if last > start else end


def attributes_start(lines: list[str], indents: list[int | None], row: int) -> int:
    """The first of the attribute lines right above ``row``, at its indentation."""
    if row >= len(lines):
        return row
    while (
        row > 0
        and indents[row - 1] in (indents[row], None)
        and ATTRIBUTE.match(lines[row - 1].lstrip())
    ):
        row -= 1
    return row
