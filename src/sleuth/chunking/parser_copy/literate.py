"""Literate Haskell (``.lhs``): the code blocks of a file of prose, for the parser.

A literate file is Markdown (or LaTeX) whose code sits in fenced blocks (```` ```haskell
````, ``~~~ {.haskell}``, ``\\begin{code}``) or on bird-track lines (``> ``). Read as
Haskell, the prose was one parse error over the whole file and its definitions were
lost. The parser's copy keeps the code and blanks the rest (same length, same lines).
The path is not seen here, so the file is recognised by its content, and a plain
Haskell file (a ``module`` or ``import`` line outside any block) is left as it is.
"""

from __future__ import annotations

import re

#: Any sign of a literate file: a Haskell fence, ``\begin{code}``, a bird track.
_MARK = re.compile(r"(?m)^(?:(?:```|~~~)[ \t]*\{?[ \t]*\.?haskell\b|\\begin\{code\}|>(?: |$))")
_OPEN = re.compile(r"(?:```|~~~)[ \t]*\{?[ \t]*\.?haskell\b.*|\\begin\{code\}[ \t]*")
_CLOSE = re.compile(r"(?:```|~~~)[ \t]*|\\end\{code\}[ \t]*")
#: A line of plain Haskell found outside the blocks: then the file is not literate.
_MODULE_LINE = re.compile(
    r"(?m)^(?:module|import(?:[ \t]+qualified)?)[ \t]+[A-Z][\w.]*(?:[ \t(]|$)"
)


def literate_haskell(text: str) -> str:
    """The code of a literate Haskell file, every other line blanked; other text as it
    is. Fences without a language are illustrations the compiler skips: blanked too."""
    if _MARK.search(text) is None:
        return text
    lines = text.split("\n")
    fenced = any(_OPEN.fullmatch(line) for line in lines)
    if not fenced and not any(line.startswith("> ") or line == ">" for line in lines):
        return text
    out: list[str] = []
    prose: list[str] = []
    inside = False
    for line in lines:
        if fenced:
            fence = (_CLOSE if inside else _OPEN).fullmatch(line) is not None
            inside = inside != fence
            keep = inside and not fence
        else:
            keep = line.startswith(">")
            line = " " + line[1:] if keep else line
        out.append(line if keep else " " * len(line))
        if not keep:
            prose.append(line)
    if _MODULE_LINE.search("\n".join(prose)):
        return text
    return "\n".join(out)
