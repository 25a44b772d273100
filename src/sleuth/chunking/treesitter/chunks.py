"""Syntax-aware chunks: definitions become chunks, with size bounds.

One generic algorithm over a per-language table of definition node types:
definitions that fit become one chunk; bigger ones with nested definitions are
opened (members become chunks, the rest of the body forms header chunks); bigger ones
without are split at statement boundaries. Code between definitions forms ``block``
chunks. Tiny neighbours with the same parent are then merged.
"""

from __future__ import annotations

import bisect
import re
import time
from dataclasses import dataclass, field, replace

import tree_sitter

from ... import config
from ...languages import parse
from ...tokens import last_part
from ..base import (
    FUNCTION_KINDS,
    Chunk,
    Definition,
    quickcheck,
    rust_test_function,
    signature_of,
)
from ..parser_copy import parser_source
from . import repair  # (``repair.REPAIRS`` read at each call: a benchmark sets it to 0)
from .definitions import (
    CLASS_KINDS,
    DECLARED_ONLY,
    DEFINITIONS,
    RESERVED_IN,
    STATEMENT_WORDS,
    WRAPPERS,
    candidate_nodes,
    overload_stub,
)
from .forms import (
    DEFINED_BY,
    go_receiver,
    go_type_specs,
    haskell_constructors,
    haskell_names,
    leads,
    named_values,
    reexports,
)
from .lines import SINGLE_QUOTED_SPAN, bracket_nesting
from .nodes import declared_name, end_row, has_ancestor, name_of, node_key, node_text
from .repair import damage, isolated, members_of, placed, worth_reading_again
from .suites import (
    C_TEST_MACROS,
    MEMBER_LISTS,
    TEST_CALL_HANDLERS,
    TEST_CALL_NODES,
    catch_test_name,
    is_test,
    symbol_names,
    test_name,
)


@dataclass(slots=True)
class _Span:
    """A piece of the file to emit as a chunk: its rows (0-based, inclusive), what names
    it and its parent. A namespace around one type (``_wrapped_type``) also gives the row
    its name is defined on and the parent to show; joining goes by ``parent``. In
    ``_Chunker._merge`` a span grows by the tiny neighbours joined to it; ``tail``: it is
    the last piece of a definition cut in pieces."""

    start: int
    end: int
    kind: str
    name: str
    parent: str
    names: list[str]
    named_at: int | None = None
    shown: str | None = None
    tail: bool = False


@dataclass
class _Def:
    kind: str
    name: str
    start: int  # 0-based rows, inclusive
    end: int
    body: tree_sitter.Node
    children: list[_Def] = field(default_factory=list)
    #: The parent a definition names itself, outside any container: Go's receiver type.
    owner: str = ""


class _Chunker:
    def __init__(self, language: str, lines: list[str]) -> None:
        self.language = language
        self.table = DEFINITIONS.get(language, {})
        self.lines = lines
        self.cuts: set[int] = set()
        self._cut_rows: list[int] = []
        self.definitions: list[Definition] = []
        #: (first, last) rows of functions defined inside a function (with their leading
        #: comments): a long function's body is cut around them, not through them
        self._inner_spans: list[tuple[int, int]] = []

    # -- finding definitions -------------------------------------------------------------
    def definition(self, node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
        """(kind, name, node to search for members) when ``node`` is a definition."""
        found = self._definition(node)
        if found is not None and self.language in RESERVED_IN and found[1] in STATEMENT_WORDS:
            return None  # a statement the parser misread (an `else if` cut off by `#if`)
        if found is not None and self.language in ("c", "cpp") and found[1] in C_TEST_MACROS:
            return "test", "", found[2]  # TEST(Suite, Name) { .. }: a test, named below
        return found

    def _definition(self, node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
        if (
            self.language == "haskell"
            and node.type == "function"
            and node.child_by_field_name("arrow") is not None
        ):
            return None  # a function type (A -> B in a synonym or a record), not an equation
        kind = self.table.get(node.type)
        if kind is not None:
            if (
                self.language in ("c", "cpp")
                and kind in ("struct", "enum", "class")
                and node.child_by_field_name("body") is None
            ):
                return None
            if (
                self.language == "scala"
                and node.type == "type_definition"
                and node.child_by_field_name("type") is None
            ):
                return None  # an abstract type member (type F[_]): a parameter, not a definition
            if self.language == "swift" and _swift_extension(node):
                kind = "impl"  # `extension Delegate { .. }` adds to a type defined elsewhere
            declared = declared_name(self.language, node)
            if declared is not None:
                return (kind, declared, node) if declared else None
            if self.language == "go" and node.type == "type_declaration":
                specs = go_type_specs(node)
                if len(specs) != 1:
                    return None  # a group `type ( A ..; B .. )`: each type named below
                return kind, name_of(specs[0]), node
            return kind, name_of(node), node
        if node.type in WRAPPERS:
            for child in node.named_children:
                inner = self.definition(child)
                if inner is not None:
                    return inner[0], inner[1], child
            return None
        handler = DEFINED_BY.get(self.language, {}).get(node.type)
        if handler is None and node.type == TEST_CALL_NODES.get(self.language, ("",))[0]:
            handler = TEST_CALL_HANDLERS[self.language]
        return handler(node) if handler is not None else None

    def find(self, root: tree_sitter.Node) -> list[_Def]:
        """Definitions as a tree, found by a tree-sitter query (the walk runs in C).

        Candidates nest by byte range; members are kept only inside containers (the
        body of a function stays with it and is split at statements when long).
        """
        candidates = candidate_nodes(self.language, root)
        deadline = time.monotonic() + config.CHUNK_WALK_SECONDS
        enclosing: list[int] = []  # end bytes of the candidates around the current one
        top: list[_Def] = []
        # open definitions enclosing the current position: (end byte, def, name, kind)
        stack: list[tuple[int, _Def, str, str]] = []
        consumed: set[tuple[int, int, str]] = set()
        for node in candidates:
            while stack and node.start_byte >= stack[-1][0]:
                stack.pop()
            while enclosing and node.start_byte >= enclosing[-1]:
                enclosing.pop()
            enclosing.append(node.end_byte)
            if len(enclosing) > config.MAX_DEFINITION_NESTING or time.monotonic() > deadline:
                raise ValueError("definitions nested too deep to walk")  # line windows
            if node_key(node) in consumed:
                continue  # the inner definition of a wrapper already taken
            parent_name, parent_kind = (stack[-1][2], stack[-1][3]) if stack else ("", "")
            if parent_kind in FUNCTION_KINDS:
                # a test's own helpers too (ky's `isKyLeaking` in a `test(..)` body), but
                # not the members of its fakes (`{ async fetch(request) { .. } }`)
                if parent_kind != "test" or getattr(node.parent, "type", "") not in MEMBER_LISTS:
                    self._nested(node, stack[-1][1], parent_name, consumed)
                continue
            if self.language == "haskell" and has_ancestor(node, "signature"):
                continue
            if node.type in DECLARED_ONLY:
                # a trait's required method (Rust `fn poll_read(..);`): found by name in
                # the trait's chunks, no chunk of its own (a trait would fall to pieces)
                if parent_kind == "trait" and (name := name_of(node)):
                    self._record(node, node, "method", name, parent_name, local=True)
                continue
            found = self.definition(node)
            if found is None:
                # one-line package values (Go's `var ErrNotFound = errors.New(..)`): found
                # by name in the chunk that holds them, no chunk of their own
                for name, kind, spec in named_values(self.language, node):
                    self._record(spec, spec, kind, name, parent_name, local=True)
                for name, at in reexports(self.language, node):
                    self._record(at, node, "reexport", name, parent_name, local=True)
                continue
            kind, name, inner = found
            suite = kind == "suite"  # a test suite is a test whose members are tests
            kind = "test" if suite else kind
            if kind == "test" and node.type in self.table:
                name = test_name(node)  # a test block by its node type (Zig): as it reads
                if self.language in ("c", "cpp"):
                    name = catch_test_name(self.lines[node.start_point.row]) or name
            _take_inner(consumed, node, inner)
            if kind == "function" and parent_kind in CLASS_KINDS:
                kind = "method"
            definition = _Def(kind, name, self._leading_comment_start(node), end_row(node), inner)
            if self.language == "go" and node.type == "method_declaration":
                definition.owner = parent_name = go_receiver(node)
            (stack[-1][1].children if stack else top).append(definition)
            body = inner.child_by_field_name("body") or inner
            self.cuts.update(c.start_point.row for c in body.named_children)
            if kind == "test":
                # a test block is not the definition of what it tests (Zig: test Parser);
                # a suite's tests are found inside it and name it as their parent
                if suite:
                    stack.append((node.end_byte, definition, name, "suite"))
                else:
                    stack.append((node.end_byte, definition, parent_name, kind))
                continue
            overload = self.language == "python" and overload_stub(node)
            self._record(node, inner, "overload" if overload else kind, name, parent_name)
            if self.language == "haskell" and node.type in ("data_type", "newtype"):
                for constructor, at in haskell_constructors(node):
                    self._record(at, at, "constant", constructor, name, local=True)
            stack.append((node.end_byte, definition, name or parent_name, kind))
        self._sort(top)
        return top

    def _nested(
        self,
        node: tree_sitter.Node,
        enclosing: _Def,
        parent: str,
        consumed: set[tuple[int, int, str]],
    ) -> None:
        """A definition inside a function's body: no chunk of its own (the body stays
        with its function, split at statements when long), but a definition all the
        same, so that it is found by name (redux's ``replaceReducer`` inside
        ``createStore``)."""
        found = self.definition(node)
        if found is None or found[0] in ("test", "suite") or not found[1]:
            return
        kind, name, inner = found
        # the enclosing definition itself, seen again through a part of it (Lua's
        # `local pick = function` holds the assignment `pick = function`)
        # (and JavaScript's `res.send = function send(..)`: the value names itself again)
        same = name == enclosing.name or last_part(enclosing.name) == name
        if same and node.start_point.row == enclosing.body.start_point.row:
            return
        _take_inner(consumed, node, inner)
        self._record(node, inner, kind, name, parent, local=True)
        if INNER_CUTS and kind in ("function", "method") and end_row(node) > node.start_point.row:
            self._inner_spans.append((self._leading_comment_start(node), end_row(node)))

    def _record(
        self,
        node: tree_sitter.Node,
        inner: tree_sitter.Node,
        kind: str,
        name: str,
        parent: str,
        local: bool = False,
    ) -> None:
        # Zig's signature is the declaration (pub const Queue = struct {), not the container
        signature = signature_of(node_text(node if self.language == "zig" else inner))
        start, end = node.start_point.row + 1, end_row(node) + 1
        self.definitions.append(Definition(name, kind, parent, start, end, signature, local))
        if kind == "function" and self.language in ("c", "cpp"):
            for line in self._other_branch_headers(start - 1):
                other = _C_HEADER.match(line)
                if other is not None and other.group(1) != name:
                    self.definitions.append(
                        Definition(other.group(1), kind, parent, start, end, line.strip(), local)
                    )

    def _other_branch_headers(self, row: int) -> list[str]:
        """C/C++: the headers written in a conditional group's other branches in place of
        the one the parser read (jq's ``#ifdef WIN32`` / ``int umain(..) {`` / ``#else``
        / ``int main(..) {`` / ``#endif``): one function under two names."""
        lines = self.lines
        opened = next(
            (at for at in range(row, min(row + 4, len(lines))) if lines[at].rstrip().endswith("{")),
            None,
        )
        if opened is None or opened + 3 >= len(lines):
            return []
        if _ELSE.match(lines[opened + 1]) and _ENDIF.match(lines[opened + 3]):
            return [lines[opened + 2]]
        return []

    def _sort(self, defs: list[_Def]) -> None:
        defs.sort(key=lambda d: d.start)
        for d in defs:
            self._sort(d.children)

    def _leading_comment_start(self, node: tree_sitter.Node) -> int:
        start = node.start_point.row
        sibling = node.prev_named_sibling
        if (
            sibling is not None
            and sibling.type in ("signature", "pattern_synonym")
            and haskell_names(sibling, node)
        ):
            # Haskell: the type signature above an equation is part of its definition
            start = sibling.start_point.row
            sibling = sibling.prev_named_sibling
        if sibling is None and node.parent is not None and node.parent.type == "declarations":
            # Haskell: the doc comment above the first declaration ends the imports node
            imports = node.parent.prev_named_sibling
            sibling = imports.named_children[-1] if imports and imports.named_children else None
        parent = node.parent if self.language == "ruby" else None
        while sibling is None and parent is not None and parent.parent is not None:
            # Ruby: a class's first member opens the body node, and the comments above it
            # are the class node's own children (before the body), not its siblings; a
            # short one opens the member's chunk (a long one, Rails' 300 lines above
            # ``class Engine``, would make the head piece all comment)
            if parent.start_point.row != start or parent.prev_named_sibling is None:
                break
            above = parent.prev_named_sibling
            first = above
            while first.prev_named_sibling is not None and leads(first.prev_named_sibling):
                first = first.prev_named_sibling
            before = first.prev_sibling
            if not leads(above) or start - first.start_point.row > FIRST_MEMBER_COMMENT_LINES:
                break
            if before is not None and end_row(before) == first.start_point.row:
                break  # a comment after code on its line (``class A # :nodoc:``)
            sibling = above
            parent = parent.parent
        while sibling is not None and leads(sibling):
            # A doc comment (/** ... */) belongs to the definition after it even across
            # one blank line, as JSDoc and Javadoc are often written; others must touch.
            gap = 2 if node_text(sibling).startswith("/**") else 1
            if end_row(sibling) < start - gap:
                break
            start = sibling.start_point.row
            sibling = sibling.prev_named_sibling
        return start

    # -- emitting chunks ----------------------------------------------------------------
    def chunks(self, root: tree_sitter.Node) -> list[Chunk]:
        self.cuts.update(c.start_point.row for c in root.named_children)
        self.cuts.update(i for i, line in enumerate(self.lines) if not line.strip())
        out: list[_Span] = []
        top = self.find(root)
        self._cut_rows = sorted(self.cuts)
        self._emit_region(0, len(self.lines) - 1, top, "block", "", "", out)
        out.sort(key=lambda span: span.start)
        return self._merge(out)

    def _emit_region(
        self,
        start: int,
        end: int,
        children: list[_Def],
        kind: str,
        name: str,
        parent: str,
        out: list[_Span],
    ) -> None:
        """Emit children, then the region's uncovered lines as pieces of the region itself."""
        covered = start
        for child in children:
            if child.start > covered:
                self._emit_lines(covered, child.start - 1, kind, name, parent, out)
            self._emit_def(child, name or parent, out)
            covered = max(covered, child.end + 1)
        if covered <= end:
            self._emit_lines(covered, end, kind, name, parent, out)

    def _emit_def(self, d: _Def, parent: str, out: list[_Span]) -> None:
        parent = d.owner or parent
        if d.end - d.start + 1 <= config.CHUNK_MAX_LINES:
            wrapped = _wrapped_type(d)
            if wrapped is not None:
                # a namespace around one type (C#'s `namespace X { class Y { .. } }`,
                # Ruby's `module Sidekiq; class Manager`) is that type's chunk
                # (shown under the namespace; merged with its neighbours as the namespace)
                inner, space = wrapped
                names = symbol_names(inner.kind, inner.name)
                out.append(
                    _Span(d.start, d.end, inner.kind, inner.name, parent, names, inner.start, space)
                )
                return
            names = symbol_names(d.kind, d.name)
            out.append(_Span(d.start, d.end, d.kind, d.name, parent, names))
        elif d.children:
            self._emit_region(d.start, d.end, d.children, d.kind, d.name, parent, out)
        else:
            self._emit_lines(d.start, d.end, d.kind, d.name, parent, out)

    def _emit_lines(
        self, start: int, end: int, kind: str, name: str, parent: str, out: list[_Span]
    ) -> None:
        """Pieces of at most CHUNK_MAX_LINES, cut at statement boundaries where possible."""
        while start <= end and not self.lines[start].strip():
            start += 1
        while end >= start and not self.lines[end].strip():
            end -= 1
        if start > end or _trivial(self.lines[start : end + 1]):
            return
        names = symbol_names(kind, name)
        limit = config.CHUNK_MAX_LINES
        while end - start + 1 > limit:
            # The last statement boundary inside the window, else a hard cut.
            at = bisect.bisect_right(self._cut_rows, start + limit) - 1
            cut = self._cut_outside_inner(start, at)
            if cut is None:
                cut = self._cut_rows[at] if at >= 0 else start + limit
                if cut <= start + config.CHUNK_MIN_LINES:
                    cut = start + limit
            out.append(_Span(start, cut - 1, kind, name, parent, names))
            start = cut
        out.append(_Span(start, end, kind, name, parent, names))

    def _cut_outside_inner(self, start: int, at: int) -> int | None:
        """The last cut row from ``_cut_rows[at]`` down that falls inside no inner
        function and leaves more than CHUNK_MIN_LINES before it: a factory's helpers
        (immer's ``generateArrayPatches`` in ``enablePatches``) then stay whole in one
        piece rather than split at a blank line of theirs."""
        rows, spans = self._cut_rows, self._inner_spans
        while spans and at >= 0 and rows[at] > start + config.CHUNK_MIN_LINES:
            row = rows[at]
            if not any(first < row <= last for first, last in spans):
                return row
            at -= 1
        return None

    def _merge(self, spans: list[_Span]) -> list[Chunk]:
        """Tiny neighbours join (see the rules below)."""
        merged: list[_Span] = []
        before: _Span | None = None
        for span in spans:
            name = span.name
            # the last piece of a long definition cut in pieces: it names no merged chunk
            # that a definition starts in (``parse_frames``' closing lines before ``apply``)
            tail = (
                bool(name)
                and before is not None
                and (before.kind, before.name) == (span.kind, name)
            )
            piece = replace(
                span,
                names=list(span.names),
                named_at=span.start if span.named_at is None else span.named_at,
                shown=span.parent if span.shown is None else span.shown,
                tail=tail,
            )
            before = span
            if merged and self._heading(merged[-1], piece.start, name):
                # a section's heading comment (``## Validations``) titles what follows
                piece.start = merged[-1].start
                merged[-1] = piece
                continue
            if merged:
                prev = merged[-1]
                tiny = (
                    piece.end - piece.start + 1 < config.CHUNK_MIN_LINES
                    or prev.end - prev.start + 1 < config.CHUNK_MIN_LINES
                )
                # siblings, or a container's own lines next to one of its members
                related = (
                    prev.parent == piece.parent
                    or (name and prev.parent == name)
                    or prev.name == piece.parent
                )
                # a test does not join the code it tests: it ranks as a test
                if (
                    tiny
                    and related
                    and self._test_span(prev) == self._test_span(piece)
                    and piece.start - prev.end <= 2
                    and piece.end - prev.start + 1 <= config.CHUNK_MAX_LINES
                ):
                    names = prev.names + [n for n in piece.names if n not in prev.names]
                    if name and (not prev.name or (prev.tail and not tail)):
                        # the joined chunk is named for the newcomer
                        merged[-1] = replace(piece, start=prev.start, names=names)
                    else:
                        prev.end, prev.names = piece.end, names
                    continue
            merged.append(piece)
        chunks = []
        for piece in merged:
            start, end, name = piece.start, piece.end, piece.name
            text = "\n".join(self.lines[start : end + 1])
            signature = (
                signature_of("\n".join(self.lines[piece.named_at : end + 1])) if name else ""
            )
            chunks.append(
                Chunk(
                    start + 1, end + 1, piece.kind, text, name, piece.shown, signature, piece.names
                )
            )
        return chunks

    def _test_span(self, span: _Span) -> bool:
        """Whether a span is test code, which does not join the code beside it: a test
        block, Rust's ``mod tests`` and its members, a Rust function under ``#[test]``
        (whose attributes open its span), a Haskell QuickCheck property."""
        start, end, kind, name, parent = span.start, span.end, span.kind, span.name, span.parent
        if is_test(kind, name, parent) or (self.language == "haskell" and quickcheck(name)):
            return True
        if self.language != "rust" or kind != "function":
            return False
        return rust_test_function("\n".join(self.lines[start : end + 1]))

    def _heading(self, prev: _Span, start: int, name: str) -> bool:
        """Whether ``prev`` is a container's few lines of comment alone, just above the
        definition ``name`` that starts at ``start``: a section heading (``## Validations``,
        ``// MARK: - Helpers``), which as a chunk of its own matched every question about
        its section and answered none."""
        first, last = prev.start, prev.end
        return (
            bool(name)
            and last - first + 1 < config.CHUNK_MIN_LINES
            and 0 < start - last <= 2
            and prev.name != name
            and all(
                not line.strip() or _COMMENT_LINE.match(line)
                for line in self.lines[first : last + 1]
            )
        )


#: Lines of comment above a container's first member that still open its chunk when the
#: grammar makes them the container's own (Ruby).
FIRST_MEMBER_COMMENT_LINES = 20
#: False: a long function's body is cut at any statement or blank line, inner functions
#: or not (the measurement's baseline).
INNER_CUTS = True
#: A C function's header on one line, opening its body: ``int main(int argc, char **argv) {``.
_C_HEADER = re.compile(r"\s*(?:[A-Za-z_][\w:<>,]*[\s*&]+)+([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{\s*$")
_ELSE = re.compile(r"\s*#\s*(?:else|elif)\b")
_ENDIF = re.compile(r"\s*#\s*endif\b")
#: A line that is a comment alone, in any of the grammars' languages.
_COMMENT_LINE = re.compile(r"\s*(?://|/\*|\*|#(?![!\[{]|if|else|elif|end|define|include)|--|;|%)")


def _wrapped_type(container: _Def) -> tuple[_Def, str] | None:
    """The one type a namespace holds, with the namespace's name (the innermost of
    nested ones): the chunk of both is named for the type, as a reader would name it.
    None when the namespace holds other definitions, the type is a small part of it, or
    the namespace is a test module (Rust's ``mod tests``, which stays apart as a test)."""
    space = container
    while space.kind == "module" and len(space.children) == 1:
        if is_test(space.kind, space.name, ""):
            return None
        inner = space.children[0]
        if inner.kind in CLASS_KINDS:
            covers = inner.end - inner.start + 1 >= 0.5 * (container.end - container.start + 1)
            return (inner, space.name) if covers else None
        space = inner
    return None


def _take_inner(
    consumed: set[tuple[int, int, str]], node: tree_sitter.Node, inner: tree_sitter.Node
) -> None:
    """A wrapper's inner node (``export function f``'s function) is its definition's
    node: marked taken, so the walk does not meet it again as a definition of its own."""
    if inner is not node:
        consumed.add(node_key(inner))


def _trivial(lines: list[str]) -> bool:
    """Closing braces and `end` keywords alone are not worth a chunk."""
    content = "".join(line.strip() for line in lines)
    return len(content) <= 3 or content in ("end", "endend", "}end")


def treesitter_chunks(
    parser: tree_sitter.Parser, language: str, text: str
) -> tuple[list[Chunk], list[Definition]]:
    """Chunks and the full list of definitions of one file.

    A grammar that meets a unit it cannot read (a file mid-edit, syntax newer than the
    grammar) may read everything after it as an error, or inside the unit that never
    closed, and the file's later definitions are lost or misplaced. The file is then
    read again with the broken units blanked (``isolated``). That reading is kept when
    it finds more definitions outside the blanked lines, or more of them in place
    rather than inside a unit that never closed (``placed``); the definitions the first
    reading found in the blanked lines are kept too, cut to their unit (the file
    mid-edit still has them). Where the grammar only skipped a construct (a macro in C)
    the first reading had them all, and it stays."""
    source = parser_source(language, text)
    if bracket_nesting(source) > config.MAX_BRACKET_NESTING:
        raise ValueError("brackets nested too deep to parse")  # line windows
    tree = parse(parser, source)
    if _unstructured(tree.root_node):
        raise ValueError("the parse found no structure")  # line windows
    lines = text.split("\n")
    chunker = _Chunker(language, lines)
    chunks = chunker.chunks(tree.root_node)
    definitions = [d for d in chunker.definitions if d.name]
    single = language if language in SINGLE_QUOTED_SPAN else None
    if tree.root_node.has_error and repair.REPAIRS and worth_reading_again(tree, lines, single):
        repaired = isolated(parser, source, tree, lines, single)
        if repaired is not None:
            again, units, bodies = repaired
            chunker = _Chunker(language, lines)
            found = chunker.chunks(again.root_node)
            named = [d for d in chunker.definitions if d.name]
            for body in bodies:  # a unit whose header was blanked
                found, named = members_of(lines, body, found, named, definitions)
            # as many placed: the reading with fewer errors left outside the blanked units
            if (*placed(named, units, bodies), -damage(again.root_node)) > (
                *placed(definitions, units, bodies),
                -damage(tree.root_node, skip=units),
            ):
                # (not one the second reading found too: a class whose header it
                # wrote whole)
                again_found = {(d.name, d.start_line) for d in named}
                kept = [
                    replace(d, end_line=min(d.end_line, end))
                    for d in definitions
                    for start, end in units
                    if start < d.start_line <= end and (d.name, d.start_line) not in again_found
                ]
                chunks = found
                definitions = sorted(named + kept, key=lambda d: d.start_line)
    # a chunk answers for every definition that starts inside it, but a function's inner
    # functions (``local``) do not name the chunk holding them
    named = [d for d in definitions if not d.local]
    for chunk in chunks:
        for d in named:
            if chunk.start_line <= d.start_line <= chunk.end_line and d.name not in chunk.symbols:
                chunk.symbols.append(d.name)
    return chunks, definitions


def _unstructured(root: tree_sitter.Node) -> bool:
    """Whether error recovery left the file as a flat run of bare tokens: more than
    ``config.MAX_BARE_TOP_LEVEL`` top-level pieces, most of them with no children."""
    return (
        root.has_error
        and root.child_count > config.MAX_BARE_TOP_LEVEL
        and root.descendant_count < 2 * root.child_count
    )


def _swift_extension(node: tree_sitter.Node) -> bool:
    """Swift's ``extension T``, which the grammar reads as a class declaration: like a
    Rust ``impl``, it is named for a type it does not define."""
    if node.type != "class_declaration":
        return False
    keyword = node.child_by_field_name("declaration_kind")
    return keyword is not None and keyword.type == "extension"
