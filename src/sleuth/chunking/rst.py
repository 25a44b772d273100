"""reStructuredText by headings: one chunk per section, titled by its heading path.

tree-sitter-rst finds the section titles (and so ignores look-alikes inside literal
blocks) but does not nest them: reST has no fixed heading levels, a level is the order in
which each adornment style (underline character, with or without overline) first appears.
"""

from __future__ import annotations

import tree_sitter

from .. import config
from ..languages import parse
from .base import Chunk
from .treesitter.nodes import first_child
from .windows import window_chunks


def _headings(tree: tree_sitter.Tree, lines: list[str]) -> list[tuple[int, str, str]]:
    """(first row, title, adornment style) of every section title, in order."""
    found = []
    for node in tree.root_node.named_children:
        if node.type != "section":
            continue
        title = first_child(node, "title")
        if title is None:
            continue
        text = (title.text or b"").decode("utf-8", errors="replace").strip()
        row = title.start_point.row
        under = lines[row + 1].strip()[:1] if row + 1 < len(lines) else ""
        over = node.start_point.row < row
        found.append((node.start_point.row, text, f"{under}{'^' if over else ''}"))
    return found


def rst_chunks(parser: tree_sitter.Parser, text: str) -> list[Chunk]:
    lines = text.split("\n")
    headings = _headings(parse(parser, text.encode("utf-8")), lines)
    levels: dict[str, int] = {}
    chunks: list[Chunk] = []
    first = headings[0][0] if headings else len(lines)
    if "".join(lines[:first]).strip():
        chunks.extend(window_chunks(lines[:first], 1, size=config.CHUNK_MAX_LINES, overlap=0,
                                    kind="block"))  # fmt: skip
    path: list[str] = []
    carried: int | None = None  # the first row of titles with nothing of their own above
    for position, (start, title, style) in enumerate(headings):
        level = levels.setdefault(style, len(levels))
        path = [*path[:level], title]
        end = headings[position + 1][0] if position + 1 < len(headings) else len(lines)
        own = lines[start:end]
        if not "".join(own).strip():
            continue
        # a title with nothing of its own but a subsection titles that subsection
        # (alone, it matched every question about its part and answered none)
        nested = position + 1 < len(headings) and (
            levels.get(headings[position + 1][2], len(levels)) > level
        )
        if nested and sum(bool(line.strip()) for line in own) <= (3 if "^" in style else 2):
            carried = start if carried is None else carried
            continue
        start, carried = (start if carried is None else carried), None
        for chunk in window_chunks(
            lines[start:end],
            start + 1,
            size=config.CHUNK_MAX_LINES,
            overlap=0,
            kind="section",
            symbol=title,
            parent=" > ".join(path[:-1]),
        ):
            chunk.signature = title
            chunk.symbols = [title]
            chunks.append(chunk)
    return chunks
