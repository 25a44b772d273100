"""Same-length edits of a text: what every rewrite of the parser's copy is made of."""

from __future__ import annotations

import re


def spaces(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def blank(text: str) -> str:
    """``text`` as spaces, its line breaks kept."""
    return re.sub(r"[^\n]", " ", text)


def blank_group(match: re.Match[str]) -> str:
    """The match with its first group blanked, line breaks kept."""
    start, end = match.start(1) - match.start(0), match.end(1) - match.start(0)
    whole = match.group(0)
    return whole[:start] + blank(whole[start:end]) + whole[end:]


def renamed(match: re.Match[str]) -> str:
    """A keyword used as a name, its last letter in capitals (``wherE``, ``geT``): a name
    of the same length the grammar does not take for the keyword."""
    return match.group(0)[:-1] + match.group(0)[-1].upper()


def blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the (ordered, disjoint) spans blanked, their line breaks kept."""
    if not spans:
        return text
    parts, at = [], 0
    for start, end in spans:
        parts += [text[at:start], blank(text[start:end])]
        at = end
    return "".join([*parts, text[at:]])
