"""C, C++ and C# conditional groups the grammar cannot read, reduced to one configuration.

tree-sitter's C grammars understand ``#if`` .. ``#endif`` between statements whose
branches are each whole. Real code also puts them inside a statement (``x =`` /
``if(a)`` / a parameter list, then ``#ifdef``) or gives each branch its own opening
line of a shared block (``#ifdef A`` / ``if(a && b) {`` / ``#else`` / ``if(a) {`` /
``#endif``); the grammar then loses the whole function. C# code does the same between
a signature and its ``=>`` body, or a class's name and its base list. For such a group the parser's
copy keeps only the first branch, as one configuration would compile, with its
directive lines and the other branches blanked. Every offset is kept.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

_OPENING = re.compile(r"(?m)^[ \t]*#[ \t]*if")
_CONDITIONAL = re.compile(r"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")
_DIRECTIVE = re.compile(r"[ \t]*#")
_INITIALIZER = re.compile(r"[=,(]\s*\{$")
#: Only a short branch is judged by its braces: the unreadable patterns are a line or
#: two each (``if(a && b) {`` against ``if(a) {``), while a file-wide ``#ifdef USE_X``
#: holds nested groups whose branches the count cannot pair exactly.
_SMALL_BRANCH = 30
_STRINGS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


@dataclass
class _Group:
    start: int  # the #if line
    first_end: int  # the line closing the first branch (#elif, #else or #endif)
    end: int  # the #endif line (the last line when unclosed)


@dataclass
class _Lines:
    """Each line classified once: its code (no comments), or the directive it belongs to."""

    code: list[str]
    conditional: list[str | None]  # #if / #else / ... word, on the directive's first line
    directive: list[bool]  # any preprocessor line, continuations included
    continuation: list[bool]  # a directive's line after a backslash


def one_configuration(text: str) -> str:
    """``text`` with the conditional groups the grammar cannot read reduced to their
    first branch (same length, same line breaks)."""
    if _OPENING.search(text) is None:
        return text
    lines = text.split("\n")
    read = _classify(lines)
    groups = _groups(read)
    if not groups:
        return text
    blank = _blanked(read, groups)
    if not blank:
        return text
    for number in blank:
        lines[number] = " " * len(lines[number])
    return "\n".join(lines)


def _classify(lines: list[str]) -> _Lines:
    count = len(lines)
    read = _Lines([""] * count, [None] * count, [False] * count, [False] * count)
    in_comment = continued = False
    for number, line in enumerate(lines):
        if continued:
            read.directive[number] = read.continuation[number] = True
            continued = line.endswith("\\")
            continue
        if not in_comment and _DIRECTIVE.match(line):
            read.directive[number] = True
            match = _CONDITIONAL.match(line)
            read.conditional[number] = match.group(1) if match else None
            continued = line.endswith("\\")
            continue
        if in_comment or "/" in line:
            read.code[number], in_comment = _code_of(line, in_comment)
        else:
            read.code[number] = line.strip()
    return read


def _groups(read: _Lines) -> dict[int, _Group]:
    """Every conditional group, by the line of its ``#if``."""
    groups: dict[int, _Group] = {}
    open_groups: list[_Group] = []
    for number, word in enumerate(read.conditional):
        if word is None:
            continue
        if word.startswith("if"):
            open_groups.append(_Group(number, -1, -1))
            continue
        if not open_groups:
            continue
        group = open_groups[-1]
        if group.first_end < 0:
            group.first_end = number
        if word == "endif":
            group.end = number
            groups[group.start] = open_groups.pop()
    last = len(read.code) - 1
    for group in open_groups:  # unclosed: to the end of the file
        group.first_end = last if group.first_end < 0 else group.first_end
        group.end = last
        groups[group.start] = group
    return groups


@dataclass
class _Blanked:
    """The later branches of the groups kept to their first branch: line ranges that do
    not overlap (a group inside a kept first branch ends before that branch does), looked
    up by bisection so that a file of thousands of groups costs no more per group."""

    starts: list[int] = field(default_factory=list)  # each range's first line, sorted
    ends: list[int] = field(default_factory=list)

    def add(self, group: _Group) -> None:
        at = bisect.bisect(self.starts, group.first_end)
        self.starts.insert(at, group.first_end)
        self.ends.insert(at, group.end)

    def containing(self, number: int) -> int | None:
        """The first line of the range holding line ``number``, if one does."""
        at = bisect.bisect(self.starts, number) - 1
        return self.starts[at] if at >= 0 and number <= self.ends[at] else None


def _blanked(read: _Lines, groups: dict[int, _Group]) -> list[int]:
    """Line numbers to blank: the directives and later branches of unreadable groups."""
    reduced: list[_Group] = []  # groups kept to their first branch, by their #if line
    ranges = _Blanked()
    for start in sorted(groups):
        if ranges.containing(start) is not None:
            continue  # inside a branch already blanked
        group = groups[start]
        if _unreadable(read, groups, group, _code_before(read, start, ranges)):
            reduced.append(group)
            ranges.add(group)
    blank: list[int] = []
    for group in reduced:
        blank.append(group.start)
        number = group.start + 1
        while number < len(read.code) and read.continuation[number]:
            blank.append(number)
            number += 1
        blank.extend(range(group.first_end, group.end + 1))
    return blank


def _code_before(read: _Lines, start: int, ranges: _Blanked) -> str:
    """The last line of code the parser reads before line ``start``."""
    number = start - 1
    while number >= 0:
        if read.code[number] and not read.directive[number]:
            inside = ranges.containing(number)
            if inside is None:
                return read.code[number]
            number = inside
        number -= 1
    return ""


def _unreadable(read: _Lines, groups: dict[int, _Group], group: _Group, last: str) -> bool:
    """Whether the grammar cannot read the group as written: it opens inside a
    statement, or its first branch leaves a block or a statement open."""
    if not _between_statements(last):
        return True
    branch = _first_branch_code(read, groups, group, _SMALL_BRANCH + 1)
    if not branch or len(branch) > _SMALL_BRANCH:
        return False
    braces = sum(code.count("{") - code.count("}") for code in map(_without_strings, branch))
    return braces != 0 or not _between_statements(branch[-1])


def _first_branch_code(
    read: _Lines, groups: dict[int, _Group], group: _Group, most: int
) -> list[str]:
    """The code lines of a group's first branch (``most`` of them at most), nested groups
    read to their first branch too (the parser may see the others; they mirror it)."""
    code: list[str] = []
    number = group.start + 1
    while number < group.first_end and len(code) < most:
        nested = groups.get(number)
        if nested is not None:
            code += _first_branch_code(read, groups, nested, most - len(code))
            number = nested.end + 1
            continue
        if read.code[number] and not read.directive[number]:
            code.append(read.code[number])
        number += 1
    return code


def _between_statements(code: str) -> bool:
    """Whether a line of code ends a statement, a block or a label (an initializer's
    ``= {`` does not)."""
    return not code or code[-1] in ";}:" or (code[-1] == "{" and not _INITIALIZER.search(code))


def _without_strings(code: str) -> str:
    return _STRINGS.sub('""', code) if '"' in code or "'" in code else code


def _code_of(line: str, in_comment: bool) -> tuple[str, bool]:
    """A line's code without its comments (roughly: no string awareness), stripped."""
    out, at = [], 0
    while at < len(line):
        if in_comment:
            end = line.find("*/", at)
            if end < 0:
                return "".join(out).strip(), True
            at, in_comment = end + 2, False
            continue
        start = line.find("/*", at)
        line_comment = line.find("//", at)
        if line_comment >= 0 and (start < 0 or line_comment < start):
            out.append(line[at:line_comment])
            break
        if start < 0:
            out.append(line[at:])
            break
        out.append(line[at:start])
        at, in_comment = start + 2, True
    return "".join(out).strip(), in_comment
