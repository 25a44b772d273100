"""A file read by its lines, for where the grammar fails: units by indentation,
brackets each line opens, strings a line leaves open."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

import numpy as np
import tree_sitter


def margin_of(line: str) -> int:
    """A line's indentation, whatever it holds (a tab as four)."""
    head = line[: len(line) - len(line.lstrip())]
    return len(head) + 3 * head.count("\t")


#: A line that only closes a unit: brackets (and a separator), or ``end``.
CLOSES = re.compile(r"\s*(?:[)\]}]+[;,]?|end)\s*(?:(?://|#).*)?$")


#: A line of attributes or annotations: ``@Test``, ``@app.get("/")``, ``[Fact]``,
#: ``#[derive(Debug)]``, or a C++ template's parameters.
ATTRIBUTE = re.compile(r"@[A-Za-z_]|\[[A-Z]|#!?\[|template\s*<")


def units_holding(lines: list[str], indents: list[int | None], row: int) -> list[tuple[int, int]]:
    """The units holding ``row``, outermost first (``enclosing_units``), after the line itself
    when it says nothing of the nesting (a preprocessor line, an attribute)."""
    units = [(start, end) for start, end, _ in enclosing_units(lines, indents, row)]
    return [(row, row + 1), *units] if indents[row] is None and lines[row].strip() else units


def indent_of(line: str) -> int | None:
    """A line's indentation (a tab as four); None for a blank line, or one that says
    nothing of the nesting: a comment or a preprocessor line (``#if`` at the margin
    inside a C# class)."""
    stripped = line.lstrip()
    if not stripped or stripped.startswith(("#", "//")):
        return None
    return margin_of(line)


#: A switch's label on its own line (``case .some(let x):``, ``default:``).
LABEL = re.compile(r"(?:case\b.*|default\s*):\s*(?://.*)?$")


def bracket_deltas_per_row(
    tree: tree_sitter.Tree, count: int, interpolations: bool = False
) -> list[int]:
    """Per row, the brackets its tokens open less those they close (a bracket the
    grammar had to assume is no token of the file); with ``interpolations``, a
    string's interpolation opens one too. Found by a query: the walk runs in C."""
    deltas = [0] * count
    query = _bracket_query(tree.language, interpolations)
    if query is None:
        return deltas
    for node in tree_sitter.QueryCursor(query).captures(tree.root_node).get("b", []):
        if not node.is_missing and node.start_point.row < count:
            deltas[node.start_point.row] += _BRACKETS.get(node.type, 1)
    return deltas


def bracket_nesting(source: bytes) -> int:
    """How deep the file's brackets nest, counted over its bytes (brackets in strings
    and comments too: an upper bound for the tree's depth in brackets)."""
    steps = _BRACKET_STEPS[np.frombuffer(source, dtype=np.uint8)]
    return int(np.cumsum(steps, dtype=np.int32).max(initial=0))


#: +1 for each opening bracket's byte, -1 for each closing one's.
_BRACKET_STEPS = np.zeros(256, dtype=np.int32)
_BRACKET_STEPS[list(b"([{")] = 1
_BRACKET_STEPS[list(b")]}")] = -1


@cache
def _bracket_query(grammar: tree_sitter.Language, interpolations: bool) -> tree_sitter.Query | None:
    """A query for the grammar's bracket tokens (those it has)."""
    kinds = [*_BRACKETS, *(_INTERPOLATIONS if interpolations else ())]
    tokens = [token for token in kinds if grammar.id_for_node_kind(token, False)]
    if not tokens:
        return None
    quoted = (token.replace("\\", "\\\\") for token in tokens)  # (a query string's escapes)
    try:
        return tree_sitter.Query(grammar, "[" + " ".join(f'"{t}"' for t in quoted) + "] @b")
    except (tree_sitter.QueryError, ValueError, NameError):
        return None


_BRACKETS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


#: The tokens that open a string's interpolation (Swift's ``\(``, ``${``, ``#{``,
#: shell's ``$(``), closed by a plain bracket.
_INTERPOLATIONS = ("\\(", "${", "#{", "$(")


def open_string(lines: list[str], after: int, single: str | None = None) -> list[int]:
    """The first line from ``after`` on that opens a string it does not close: an odd
    number of double quotes, none of them tripled; and with ``single`` (the language)
    the first that leaves a single-quoted string open, and in Ruby and Elixir the first
    that leaves a bracketed literal open (``%w(``, ``%r{``, ``~r/``). In a language
    whose strings span lines, the grammar reads on from there with every later string
    turned inside out, and reports the error wherever that stops fitting, or at the
    class around it."""
    leaves_open = [_leaves_double_open]
    if single is not None:
        leaves_open.append(lambda line: _leaves_single_open(line, single))
    if single in _PERCENT_LITERAL:
        leaves_open.append(lambda line: _leaves_literal_open(line, _PERCENT_LITERAL[single]))
    rows = range(after, len(lines))
    found = (next((i for i in rows if open_(lines[i])), None) for open_ in leaves_open)
    return sorted({i for i in found if i is not None})


def _leaves_literal_open(line: str, opener: re.Pattern[str]) -> bool:
    """Whether a bracketed literal (Ruby's ``%w(``, Elixir's ``~r{``) opened on the
    line, outside a comment, is not closed there: its bracket nests, so the literal
    ends at its partner."""
    if line.lstrip().startswith("#"):
        return False
    for found in opener.finditer(line):
        bracket = found.group(1)
        close = _PARTNER.get(bracket, bracket)
        depth, i = 1, found.end()
        while i < len(line) and depth:
            if line[i] == "\\":
                i += 1
            elif line[i] == close:
                depth -= 1
            elif line[i] == bracket and close != bracket:
                depth += 1
            i += 1
        if depth:
            return True
    return False


#: The brackets that close a literal's opening one.
_PARTNER = {"(": ")", "[": "]", "{": "}", "<": ">"}


#: Literals whose content may span lines, by language: Ruby's ``%w(..)``, ``%r{..}``,
#: ``%q[..]``, and Elixir's sigils (``~r/../``, ``~w(..)``, ``~S|..|``).
_PERCENT_LITERAL = {
    "ruby": re.compile(r"(?<![\w)\]}])%[qQwWiIrsx]?([({\[<])"),
    "elixir": re.compile(r"~[a-zA-Z]\w*([({\[<|/])"),
}


def _leaves_double_open(line: str) -> bool:
    """An odd number of double quotes, none of them tripled."""
    return '"' in line and '"""' not in line and len(_QUOTE.findall(line)) % 2 == 1


def _leaves_single_open(line: str, language: str) -> bool:
    """``_leaves_open``, for a line with a single quote and none tripled."""
    return "'" in line and "'''" not in line and _leaves_open(line, language)


#: A double quote that is not escaped.
_QUOTE = re.compile(r'(?<!\\)"')


#: Languages whose single-quoted strings may span lines (shell, Ruby, Elixir's
#: charlists), or whose grammar reads on after one left open (Lua, Python, Kotlin's
#: character literals), with what starts a comment there (the first also after code).
SINGLE_QUOTED_SPAN = {
    "bash": ("#",),
    "elixir": ("#",),
    "kotlin": ("//", "/*", "*"),
    "lua": ("--",),
    "python": ("#",),
    "ruby": ("#",),
}


def _leaves_open(line: str, language: str) -> bool:
    """Whether ``line`` ends inside a single-quoted string: read in order, double-quoted
    text and comments aside (no escapes inside shell's single quotes)."""
    comments = SINGLE_QUOTED_SPAN[language]
    if line.lstrip().startswith(comments):
        return False
    comment = comments[0]
    escapes = language != "bash"
    inside = None  # the quote whose string the reading is in
    i = 0
    while i < len(line):
        char = line[i]
        if inside is None:
            if char == "\\":
                i += 1
            elif char in "'\"":
                inside = char
            elif line.startswith(comment, i) and (i == 0 or line[i - 1] in " \t;"):
                break
        elif char == "\\" and (escapes or inside == '"'):
            i += 1
        elif char == inside:
            inside = None
        i += 1
    return inside == "'"


def enclosing_units(
    lines: list[str], indents: list[int | None], row: int
) -> Iterator[tuple[int, int, int]]:
    """The units holding ``row``, outermost first, as (start, end, indentation): a unit
    opens on a line at its indentation (not a closing bracket, an ``else`` or an
    operator carried over) and ends where the next sibling opens or its parent's lines
    resume; its members are the units at the next indentation inside it."""
    low, high, level = 0, len(lines), 0
    while True:
        start = next(
            (i for i in range(row, low - 1, -1) if indents[i] == level and opens(lines[i])),
            None,
        )
        if start is None:
            return
        end = high
        for i in range(row + 1, high):
            indent = indents[i]
            if indent is not None and (indent < level or (indent == level and opens(lines[i]))):
                end = i
                break
        yield start, end, level
        deeper = next_level(indents, level, range(start + 1, row + 1))
        if deeper is None:
            return
        low, high, level = start + 1, end, deeper


def next_level(indents: list[int | None], level: int, rows: range) -> int | None:
    """The least indentation deeper than ``level`` among ``rows``: their members'."""
    return min(
        (indent for i in rows if (indent := indents[i]) is not None and indent > level),
        default=None,
    )


#: A line that closes or goes on with a unit rather than opens one: a closing bracket,
#: ``end``, a brace on a line of its own (``{`` under a C# method), another branch of
#: the statement above (``else``, ``catch``), an operator carried over.
_GOES_ON = re.compile(
    r"[)\]}{.,&|+*/%=?:<>-]"
    r"|(?:end|fi|done|esac|else|elif|elsif|except|catch|finally|rescue|ensure|then|do"
    r"|where|deriving)\b"
)


def opens(line: str) -> bool:
    """A line that may begin a unit: not one that closes or goes on with one."""
    return _GOES_ON.match(line.lstrip()) is None
