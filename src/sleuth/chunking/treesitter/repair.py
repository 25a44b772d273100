"""The second reading of a file the grammar could not read whole (a file mid-edit):
its broken units are blanked one at a time until the rest reads cleanly, and the
members of a unit whose header was blanked are given back to it."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import tree_sitter

from ...languages import parse
from ..base import Chunk, Definition
from .definitions import CLASS_KINDS
from .headers import (
    HEADER_CUT,
    HEADER_NAME,
    MODULE_WORDS,
    attributes_start,
    flat_header,
    headed,
    header_line,
    header_read,
    header_rows,
    headers_at,
    member_units,
    rebraced,
    unit_opening_at,
)
from .lines import (
    ATTRIBUTE,
    LABEL,
    bracket_deltas_per_row,
    indent_of,
    margin_of,
    next_level,
    open_string,
    opens,
    units_holding,
)
from .nodes import is_missing_node


def members_of(
    lines: list[str],
    body: tuple[int, int, int],
    chunks: list[Chunk],
    definitions: list[Definition],
    first_reading: list[Definition],
) -> tuple[list[Chunk], list[Definition]]:
    """The chunks and definitions of a unit whose header was blanked (``body``: its
    header's row, and its rows [start, end)) made its members again: the grammar read
    them as free functions. Those at its members' indentation take the name the first
    reading gave the unit (a definition starting on its header or the attribute lines
    above it, not one around it), else the one its header line gives (``class Me``, cut
    mid-name)."""
    header, first, last = body
    top = header
    while top and ATTRIBUTE.match(lines[top - 1].lstrip()):
        top -= 1
    owner, kind = next(
        (
            (d.name, d.kind)
            for d in first_reading
            if top <= d.start_line - 1 <= header < d.end_line and d.kind in CLASS_KINDS | {"module"}
        ),
        (None, None),
    )
    if owner is None and (named := HEADER_NAME.search(lines[header])) is not None:
        owner, kind = named.group(2), named.group(1)
    elif owner is None and (cut := HEADER_CUT.match(lines[header])) and cut.group("const"):
        owner, kind = cut.group("const"), "struct"  # (Zig's ``const Builde``)
    # a module's functions stay functions (Elixir, C++ namespaces), as in a whole file
    method = kind not in MODULE_WORDS
    margin = margin_of(lines[header])
    level = next_level([indent_of(line) for line in lines], margin, range(first, last))
    if owner is None or level is None:
        return chunks, definitions

    # a class just above at the header's indentation that read on into the body, once
    # the header was blanked (Python: the body's indentation goes on with its own)

    def swallowing(d: Definition) -> bool:
        return (
            d.start_line - 1 < top
            and d.end_line - 1 >= first
            and d.kind in CLASS_KINDS
            and margin_of(lines[d.start_line - 1]) == margin
        )

    swallowed = {d.name for d in definitions if swallowing(d)}

    def member(item: Chunk | Definition) -> bool:
        row = item.start_line - 1
        return (
            first <= row < last
            and (not item.parent or item.parent in swallowed)
            and margin_of(lines[row]) == level
        )

    for chunk in chunks:
        if member(chunk):
            chunk.parent = owner
            chunk.kind = "method" if method and chunk.kind == "function" else chunk.kind
    # (the class that read on ends above the header)
    above = next((i + 1 for i in range(top - 1, -1, -1) if lines[i].strip()), top)
    definitions = [
        replace(d, parent=owner, kind="method" if method and d.kind == "function" else d.kind)
        if member(d)
        else replace(d, end_line=above)
        if swallowing(d)
        else d
        for d in definitions
    ]
    return chunks, definitions


def worth_reading_again(tree: tree_sitter.Tree, lines: list[str], single: str | None) -> bool:
    """Whether a parse's errors may have cost definitions: an error holds a good part
    of the file, a bracket had to be assumed, the file's brackets do not balance, the
    first error comes after a line that opens a string it does not close (every later
    string turned inside out), or it is on a class's header, the line after it or an
    attribute line above it (its members read into the error, or as free functions).
    A construct the grammar merely skipped (a macro in C++ or Rust) leaves none of
    these, and costs no second reading."""
    count = len(lines)
    if sum(bracket_deltas_per_row(tree, count)):
        return True
    first = min(_first_error_row(tree.root_node, 0) or 0, count - 1)
    opened = open_string(lines, 0, single)
    above = next((i for i in range(first - 1, -1, -1) if lines[i].strip()), first)
    # (an error on a decorator or attribute line: the header is the line below it)
    below = next((i for i in range(first, count) if not ATTRIBUTE.match(lines[i].lstrip())), first)
    if (opened and first >= opened[0]) or any(header_line(lines[i]) for i in (above, first, below)):
        return True
    least = min(50, max(3, count // 4))
    return any(
        is_missing_node(node) or node.end_point.row - node.start_point.row + 1 >= least
        for node in _error_nodes(tree.root_node, into_errors=True)
    )


def _error_nodes(root: tree_sitter.Node, into_errors: bool) -> Iterator[tree_sitter.Node]:
    """Each error or missing node of a parse (the root too); those inside an error only
    with ``into_errors``."""
    stack = [root]
    while stack:
        node = stack.pop()
        error = node.type == "ERROR"
        if error or is_missing_node(node):
            yield node
            if error and not into_errors:
                continue
        stack.extend(child for child in node.children if child.has_error or child.is_missing)


def placed(
    definitions: list[Definition],
    units: list[tuple[int, int]],
    bodies: Sequence[tuple[int, int, int]] = (),
) -> tuple[int, int, int]:
    """How many definitions start outside the blanked units, how many of those are not
    inside a function (``local``: a method the unit before it took in is local), and
    how many sit in a class or module (a method the grammar read as a free function
    after its class broke has none). Those in the ``bodies`` of units whose header was
    blanked count only there: read free, a Kotlin property is a definition of its
    own, and in its class it is none."""

    def within(d: Definition, spans: Iterable[tuple[int, int]]) -> bool:
        return any(s < d.start_line <= e for s, e in spans)

    outside = [d for d in definitions if not within(d, units)]
    free = [d for d in outside if not within(d, ((s, e) for _, s, e in bodies))]
    return len(free), sum(not d.local for d in free), sum(bool(d.parent) for d in outside)


#: How many broken units a file may have blanked, and how many parses it may take
#: to find them (one per unit tried).
REPAIRS = 8


REPAIR_PARSES = 24


#: How many bytes a file the grammar read whole as one error may have parsed to find
#: them (at least 4 parses): each of its trials reads it all (0.07 s for 150 kB of shell).
REPAIR_FRESH_BYTES = 1_000_000


def isolated(
    parser: tree_sitter.Parser,
    source: bytes,
    tree: tree_sitter.Tree,
    shape: list[str],
    single: str | None = None,
) -> tuple[tree_sitter.Tree, list[tuple[int, int]], list[tuple[int, int, int]]] | None:
    """The parse of ``source`` with its broken units blanked, one at a time in order,
    while each blanking also clears errors outside its unit (``damage``). Suspects at
    each step: the units holding the first error and the sibling before one that opens
    there (``_suspects``: a method that lost its closing brace takes in the next one,
    where the grammar stumbles), the unit before the first line deeper in brackets than
    its indentation says (``_unclosed``), the units holding a line that opens a string
    it does not close (``open_string``). The unit taken is narrowed to the member that
    broke it (``_Blanking.narrowed``), and so is the unit opening at the first error,
    which the grammar may have read as one error. The new parse and the rows
    [start, end) of each unit blanked; None when no blanking helped. Units are found in
    ``shape``, the file's own lines: the parser's copy may have blanked a unit's first
    line (Rust's ``cfg_rt! {``)."""
    blanking = _Blanking(parser, source, tree, shape)
    lines, indents = blanking.shape, blanking.indents
    after = 0  # errors before this row sit in units already blanked or left as they are
    units: list[tuple[int, int]] = []
    bodies: list[tuple[int, int, int]] = []  # (header, rows [start, end)) of headers taken
    headers: dict[tuple[int, int], tuple[int, int, int]] = {}  # their rows -> body
    for _ in range(REPAIRS):
        row = _first_error_row(blanking.tree.root_node, after)
        if row is None:
            break
        best: _Trial | None = None
        suspects = _suspects(lines, indents, row)
        suspects += _unclosed(lines, indents, after, blanking.tree)
        for opened in open_string(lines, after, single):
            suspects += units_holding(lines, indents, opened)
        for start, end in dict.fromkeys(headed(lines, indents, *u) for u in suspects):
            trial = blanking.tried(max(start, after), end)
            if trial is not None and (best is None or trial.rank < best.rank):
                best = trial  # the least damage left, by the fewest lines
        # the member that broke the unit blanked; and the unit opening where the error
        # starts, which the grammar may have read as one error, whose blanking then
        # cleared nothing outside it
        if best is not None:
            best = blanking.narrowed(best.unit, best)
        if (best is None or best.unit[0] != row) and (
            opening := unit_opening_at(lines, indents, row)
        ) is not None:
            found = blanking.narrowed(opening, best, better=True)
            if best is None or (found is not None and found.cost < best.cost):
                best = found
        # a unit whose own header broke (its name cut, its brace gone): its header
        # written whole, or blanked with its closing line, so its members are read
        for start, end in headers_at(lines, indents, row):
            header = header_rows(lines, indents, max(start, after), end)
            flat = header is None and start >= after
            if flat:
                header = flat_header(lines, start, blanking.deltas)
            if (
                header is None
                or not header_line(lines[header[0]])  # (not a function's)
                # (a flat header's members lie after it: the grammar reads on into them)
                or (not flat and header_read(blanking.tree.root_node, lines, header, end))
            ):
                continue
            first, stop, closing = header
            head = max(attributes_start(lines, indents, first), after)  # (with its attributes)
            headers[head, stop] = (first, stop, end if closing is None else closing)
            trial = blanking.header_repaired(head, stop, first, closing)
            # as few errors left as another unit's blanking: only when that one
            # blanked the header or the closing line too, with more (the whole class,
            # or its last member)
            if trial is not None and (
                best is None
                or trial.hurt < best.hurt
                or (
                    trial.hurt == best.hurt
                    and any(
                        at is not None and best.unit[0] <= at < best.unit[1]
                        for at in (first, closing)
                    )
                )
            ):
                best = trial
        if best is None:
            break
        if best.header:
            bodies.append(headers[best.unit])
        blanking.take(best)  # (blanks its rows in ``lines`` too: the same list)
        units.append(best.unit)
        after = best.unit[1]
    return (blanking.tree, units, bodies) if units else None


@dataclass
class _Trial:
    """One unit blanked: the rows [start, end), the new parse and its text's lines, and
    the errors left (``damage``); for a unit's ``header``, the row of its closing line
    blanked too, if it was."""

    unit: tuple[int, int]
    tree: tree_sitter.Tree
    lines: list[str]
    hurt: int
    closing: int | None = None
    header: bool = False

    @property
    def rank(self) -> tuple[int, int]:
        return self.hurt, self.unit[1] - self.unit[0]

    @property
    def cost(self) -> int:
        """Rows lost to the reading: those in error and those blanked."""
        return self.hurt + self.unit[1] - self.unit[0]


class _Blanking:
    """A file's text and parse while its broken units are blanked, counting the parses
    (``REPAIR_PARSES``, and ``REPAIR_FRESH_BYTES`` while the file is one error)."""

    def __init__(
        self, parser: tree_sitter.Parser, source: bytes, tree: tree_sitter.Tree, shape: list[str]
    ):
        self.parser = parser
        self.tree = tree
        self.lines = source.decode("utf-8").split("\n")  # the parser's copy
        self.shape = list(shape)  # the file's own lines, where units are found
        self.indents = [indent_of(line) for line in self.shape]
        # where each row starts, in bytes: blanking keeps every line's length
        self.offsets = list(
            itertools.accumulate((len(line.encode("utf-8")) + 1 for line in self.lines), initial=0)
        )
        self.parses = 0
        self.fresh = max(4, REPAIR_FRESH_BYTES // max(1, len(source)))  # whole parses left
        # trials on this text, by rows, closing row, header and the row written whole
        self.seen: dict[tuple[int, int, int | None, bool, int | None], _Trial | None] = {}
        self._deltas: list[int] | None = None

    def deltas(self) -> list[int]:
        """Per row, the brackets the parse's tokens open less those they close (once
        per parse: the query walks the whole tree)."""
        if self._deltas is None:
            self._deltas = bracket_deltas_per_row(self.tree, len(self.lines))
        return self._deltas

    def tried(
        self,
        first: int,
        last: int,
        closing: int | None = None,
        header: bool = False,
        opener: int | None = None,
    ) -> _Trial | None:
        """The parse with rows [first, last) blanked (and the row ``closing``), when
        that clears errors outside them: blanking a unit clears the errors in it whether
        or not it was the broken one (a macro the grammar skipped). A unit's ``header``
        may instead clear every error: the grammar read its members as free functions,
        and only its header and closing line were in error; its row ``opener`` is then
        written as a whole header (``rebraced``) rather than blanked. None otherwise,
        or past the budget."""
        key = (first, last, closing, header, opener)
        if key in self.seen:  # (halving ends on a unit it has tried)
            return self.seen[key]
        if first >= last or self.parses == REPAIR_PARSES:
            return None
        written = None
        if opener is not None:
            below = self.lines[last] if last < len(self.lines) else None
            if (written := rebraced(self.lines[opener], below)) is None:
                return None
        self.parses += 1
        self.seen[key] = trial = self._blanked(first, last, closing, header, opener, written)
        return trial

    def header_repaired(
        self, first: int, last: int, named: int, closing: int | None
    ) -> _Trial | None:
        """The unit's header, rows [first, last) with its name on row ``named``,
        written whole where its body is in braces (a method read free is no definition
        in JavaScript), else, or if that leaves errors, blanked with its ``closing``
        line: the reading with fewer errors."""
        trial = None
        if closing is not None and self.shape[closing].lstrip().startswith("}"):
            trial = self.tried(first, last, header=True, opener=named)
        if trial is None or trial.hurt:
            blanked = self.tried(first, last, closing, header=True)
            if blanked is not None and (trial is None or blanked.hurt < trial.hurt):
                trial = blanked
        return trial

    def _blanked(
        self,
        first: int,
        last: int,
        closing: int | None,
        header: bool,
        opener: int | None,
        written: tuple[str, str | None] | None,
    ) -> _Trial | None:
        """``tried``, each time it parses; ``written``: the header's line ``opener``
        and the line below it, as ``rebraced`` writes them."""
        spans = [(first, last)] if closing is None else [(first, last), (closing, closing + 1)]
        lines = [
            " " * len(line.encode("utf-8")) if any(a <= i < b for a, b in spans) else line
            for i, line in enumerate(self.lines)
        ]
        if opener is not None and written is not None:
            lines[opener], below = written
            if below is not None:  # (the brace on the first member's line)
                lines[last] = below
                spans = [(first, last + 1)]
        edited = None
        if self.tree.root_node.type == "ERROR":  # (reused, such a root stays one)
            if not self.fresh:
                return None
            self.fresh -= 1  # read from scratch
        else:
            edited = self.tree.copy()  # the parser reads again only around the blanked rows
            for a, b in spans:
                at, end = self.offsets[a], self.offsets[b]
                edited.edit(at, end, end, (a, 0), (b, 0), (b, 0))
        try:
            again = parse(self.parser, "\n".join(lines).encode("utf-8"), old_tree=edited)
        except ValueError:  # too long: the readings so far stand
            self.parses = REPAIR_PARSES
            return None
        hurt = damage(again.root_node)
        if hurt >= damage(self.tree.root_node, skip=spans) and (hurt or not header):
            return None
        return _Trial((first, last), again, lines, hurt, closing, header)

    def narrowed(
        self, unit: tuple[int, int], best: _Trial | None, better: bool = False
    ) -> _Trial | None:
        """The member of ``unit`` whose blanking alone leaves as few errors as ``best``
        (fewer, if ``better``: ``best`` blanks another unit), found by halving (a class
        the grammar read as one error since one method broke), and again within that
        member; ``best`` when no single member does."""
        while True:
            bound = len(self.lines) if best is None else best.hurt - better
            members = member_units(self.shape, self.indents, *unit)
            while len(members) > 1:
                half = members[: len(members) // 2]
                trial = self.tried(half[0][0], half[-1][1])
                if trial is None and self.parses == REPAIR_PARSES:
                    return best
                kept = trial is not None and trial.hurt <= bound
                members = half if kept else members[len(half) :]
            trial = self.tried(*members[0]) if members else None
            if trial is None or trial.hurt > bound:
                return best
            best, unit, better = trial, trial.unit, False

    def take(self, trial: _Trial) -> None:
        """Go on from the text and parse of ``trial``."""
        self.tree, self.lines = trial.tree, trial.lines
        self._deltas = None
        first, last = trial.unit
        self.shape[first:last] = [""] * (last - first)
        if trial.closing is not None:
            self.shape[trial.closing] = ""
        self.seen.clear()


def damage(root: tree_sitter.Node, skip: Sequence[tuple[int, int]] = ()) -> int:
    """How much of a parse is in error: the rows of its outermost errors, and one for
    each token the grammar had to assume (a missing ``}``); rows [start, end) of the
    units in ``skip`` (apart from each other) do not count."""
    total = 0
    for node in _error_nodes(root, into_errors=False):  # (the outermost: rows count once)
        first, last = node.start_point.row, node.end_point.row
        if node.type != "ERROR":  # (missing)
            total += not any(start <= first < end for start, end in skip)
        else:
            overlap = sum(max(0, min(last + 1, end) - max(first, start)) for start, end in skip)
            total += last - first + 1 - overlap
    return total


def _suspects(lines: list[str], indents: list[int | None], row: int) -> list[tuple[int, int]]:
    """Units that may have broken, given the first error at ``row``: each unit that
    holds it, from the top level to the innermost (a statement of a method of a class),
    and the sibling before a unit whose first line the error is on; first of all the
    line itself when it is a preprocessor line (``#ifndef`` around a whole C file that
    broke) or an attribute (``units_holding``)."""
    suspects = []
    for start, end in units_holding(lines, indents, row):
        suspects.append((start, end))
        # the error on its first line, or on its first member's (an impl whose first
        # method is where the grammar gave up on the impl before it)
        opening = start == row or not any(
            indents[i] is not None and opens(lines[i]) for i in range(start + 1, row)
        )
        before = _sibling_before(lines, indents, start) if opening else None
        if before is not None:
            suspects.append((before, start))
    return suspects


def _sibling_before(
    lines: list[str], indents: list[int | None], row: int, low: int = 0
) -> int | None:
    """Where the unit before the one opening at ``row`` opens, at the same indentation;
    None when the parent's own lines (or ``low``) come first."""
    level = indents[row]
    if level is None:
        return None
    for i in range(row - 1, low - 1, -1):
        indent = indents[i]
        if indent is None or indent > level:
            continue
        if indent < level:
            return None
        if opens(lines[i]):
            return i
    return None


def _unclosed(
    lines: list[str], indents: list[int | None], after: int, tree: tree_sitter.Tree
) -> list[tuple[int, int]]:
    """The unit before the first line, from ``after`` on, that sits deeper in brackets
    than the lines at its indentation before it: that unit left a bracket open (its
    closing brace deleted), so the grammar reads the rest of the file inside it and may
    report the error only where the file ends, or at the class around it. Brackets are
    the parse's own tokens, so those in strings, comments and character literals do
    not count, and an interpolation's opening token does (Swift's ``\\(``, closed by ``)``)."""
    deltas = bracket_deltas_per_row(tree, len(lines), interpolations=True)
    depth = 0
    at_indent: dict[int, int] = {}  # indentation -> bracket depth of its lines so far
    for i in range(after, len(lines)):
        indent = indents[i]
        if indent is None:  # (a preprocessor line or an attribute may hold brackets)
            depth += deltas[i]
            continue
        for deeper in [k for k in at_indent if k > indent]:
            del at_indent[deeper]
        # (a closing line sits deeper than its indentation says, and so does a switch's
        # label at the switch's own indentation: Go, Swift, C)
        if opens(lines[i]) and not LABEL.match(lines[i].lstrip()):
            if at_indent.get(indent, depth) < depth:
                before = _sibling_before(lines, indents, i, after)
                return [(before, i)] if before is not None else []
            at_indent.setdefault(indent, depth)
        depth += deltas[i]
    return []


def _first_error_row(root: tree_sitter.Node, after: int) -> int | None:
    """The row of the first error or missing node that starts at ``after`` or later,
    the innermost where errors nest (an error around a whole class starts at the
    class; the one inside it, at the method that broke). A file the grammar read as one
    error with nothing wrong inside (Kotlin after a string left open) gives ``after``."""
    found = after if root.type == "ERROR" else None
    node = root
    while True:
        child = next(
            (
                c
                for c in node.children
                if (c.has_error or c.is_missing) and c.end_point.row >= after
            ),
            None,
        )
        if child is None:
            return found
        if (child.type == "ERROR" or is_missing_node(child)) and child.start_point.row >= after:
            found = child.start_point.row
        node = child
