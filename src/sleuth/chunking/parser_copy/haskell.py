"""Haskell forms tree-sitter-haskell misreads (CPP, escaped characters, literate
files), rewritten in the parser's copy."""

from __future__ import annotations

import re
from itertools import islice

from .edits import spaces
from .literate import literate_haskell

#: A C preprocessor conditional line in a Haskell file (``{-# LANGUAGE CPP #-}``).
_HASKELL_CONDITIONAL = re.compile(r"(?m)^#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b.*$")


def rewrite_haskell(text: str) -> str:
    """tree-sitter-haskell reads the first branch of an ``#if`` and skips the others, so
    a function defined only under ``#else`` (a fallback for older compilers) was lost.
    The conditional lines are blanked and every branch is read: in 46 such files of
    aeson, pandoc, xmonad and commonmark-hs none parses worse, and 13 more definitions
    are found. But a branch that continues a declaration (``#else`` then an indented
    ``where`` of an instance head) is an alternative to the first, not more code: both
    read together broke the declaration and lost those after it, so it is blanked. A
    literate file (``.lhs``) keeps only its code (``literate.py``)."""
    text = literate_haskell(text)
    if "'\\" in text:
        text = _HASKELL_ESCAPED_CHAR.sub(_plain_char, text)
    if "#" not in text or _HASKELL_CONDITIONAL.search(text) is None:
        return text
    return _HASKELL_CONDITIONAL.sub(spaces, _blank_continuing_alternatives(text))


#: A character literal with an escape (``'\n'``, ``'\''``, ``'\160'``): the grammar's
#: scanner then took a later name with a prime (``spnl'``) for the start of a literal,
#: and lost the declarations between (pandoc's Markdown reader). Read as ``'x'``.
_HASKELL_ESCAPED_CHAR = re.compile(r"'\\(?:'|[^'\s]{1,8})'")


def _plain_char(match: re.Match[str]) -> str:
    """``'x'`` and spaces; a match that starts with a name's prime is left alone."""
    before = match.string[match.start() - 1] if match.start() else " "
    if before.isalnum() or before in "_'":
        return match.group(0)
    return "'x'" + " " * (len(match.group(0)) - 3)


#: A line that continues a declaration begun before it, not a binding of its own.
_HASKELL_CONTINUATION = re.compile(r"[ \t]+(?:where\b|deriving\b|=(?![=>])|\||::|->|,)")
_HASKELL_CPP_LINE = re.compile(r"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")


def _blank_continuing_alternatives(text: str) -> str:
    """``#else``/``#elif`` branches whose first code line continues a declaration,
    blanked (their directive lines kept, for the blanking after)."""
    lines = text.split("\n")
    blanking: list[bool] = []  # per open #if: is the current branch blanked?
    for number, line in enumerate(lines):
        found = _HASKELL_CPP_LINE.match(line)
        if found is None:
            if any(blanking):
                lines[number] = " " * len(line)
            continue
        word = found.group(1)
        if word.startswith("if"):
            blanking.append(False)
        elif word in ("elif", "else") and blanking:
            rest = islice(lines, number + 1, None)
            following = next((later for later in rest if later.strip()), "")
            blanking[-1] = _HASKELL_CONTINUATION.match(following) is not None
        elif word == "endif" and blanking:
            blanking.pop()
    return "\n".join(lines)
