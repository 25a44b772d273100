"""Swift forms tree-sitter-swift misreads, rewritten in the parser's copy."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

from .edits import spaces

#: Swift's compile-time diagnostics among a type's members (``#warning("Bring back")``):
#: the grammar lost the type around them. They define nothing.
_SWIFT_DIAGNOSTIC = re.compile(
    r"(?m)^[ \t]*#(?:warning|error)[ \t]*\((?:[^()\n]|\([^()\n]*\))*\)[ \t]*$"
)


#: ``()`` alone as a statement (swift-nio's empty case, ``case .closed: ()``), read as
#: ``0 ``: the grammar takes no empty tuple there, nor an empty case.
_SWIFT_UNIT_STATEMENT = re.compile(r"\n([ \t]*+)\(\)(?=[ \t]*+(?://[^\n]*)?(?:\n|$))")
#: ``fallthrough`` alone in an ``#if`` branch, read as ``break`` (same length).
_SWIFT_FALLTHROUGH = re.compile(r"(?m)^([ \t]*)fallthrough(?=[ \t]*$)")
#: ``@Sendable func`` after a statement inside a ``case`` lost the rest of the type.
_SWIFT_SENDABLE_FUNC = re.compile(r"@Sendable(?=[ \t]+func\b)")
_SWIFT_DIRECTIVE = re.compile(r"[ \t]*#(if|elseif|else|endif)\b")


def rewrite_swift(text: str) -> str:
    """Forms the Swift grammar cannot read among a type's members or a switch's cases,
    each of which lost the rest of the type (swift-nio, swift-composable-architecture)."""
    if "#warning" in text or "#error" in text:
        text = _SWIFT_DIAGNOSTIC.sub(spaces, text)
    if "()" in text:
        text = _SWIFT_UNIT_STATEMENT.sub(lambda m: "\n" + m.group(1) + "0 ", "\n" + text)[1:]
    if "@Sendable" in text:
        text = _SWIFT_SENDABLE_FUNC.sub(spaces, text)
    if "#if" in text:
        if "fallthrough" in text:
            text = _SWIFT_FALLTHROUGH.sub(lambda m: m.group(1) + "break      ", text)
        text = _read_swift_groups(text)
    return text


@dataclass
class _Group:
    """An open ``#if`` group, as the scan has read it so far."""

    around_cases: bool  # its first code line is a switch's `case`
    directives: list[int]  # its #if / #elseif / #else / #endif lines
    attributes_only: bool = True  # every code line so far is an attribute
    code_lines: int = 0


def _read_swift_groups(text: str) -> str:
    """The directive lines of ``#if`` groups the grammar cannot read, blanked so that
    every branch is read: groups around ``case`` clauses of a switch, and groups of
    attributes only (``#if X`` / ``@available(..)`` / ``#else`` / ``@available(..)``)."""
    lines = text.split("\n")
    stack: list[_Group] = []
    blanked: set[int] = set()
    for number, line in enumerate(lines):
        found = _SWIFT_DIRECTIVE.match(line) if "#" in line else None
        if found is None:
            code = line.strip()
            if stack and code and not code.startswith("//"):
                stack[-1].code_lines += 1
                stack[-1].attributes_only = stack[-1].attributes_only and code.startswith("@")
            continue
        word = found.group(1)
        if word == "if":
            following = _next_code(lines, number)
            around_cases = following.startswith(("case ", "case\t", "default:", "@unknown"))
            stack.append(_Group(around_cases, [number]))
        elif stack:
            stack[-1].directives.append(number)
            if word == "endif":
                group = stack.pop()
                if group.around_cases or (group.attributes_only and group.code_lines):
                    blanked.update(group.directives)
                elif stack and group.code_lines:  # its code is the outer group's code
                    stack[-1].code_lines += group.code_lines
                    stack[-1].attributes_only = False
    if not blanked:
        return text
    return "\n".join(
        " " * len(line) if number in blanked else line for number, line in enumerate(lines)
    )


def _next_code(lines: list[str], number: int) -> str:
    """The next line of code after line ``number`` (within 20 lines), stripped."""
    for later in islice(lines, number + 1, number + 21):
        code = later.strip()
        if code and not code.startswith("//"):
            return code
    return ""
