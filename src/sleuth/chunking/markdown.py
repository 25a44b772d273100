"""Markdown by headings: one chunk per section, titled by its heading path."""

from __future__ import annotations

import tree_sitter

from .. import config
from ..languages import parse
from .base import Chunk
from .windows import window_chunks


def _heading_text(section: tree_sitter.Node) -> str:
    for child in section.named_children:
        if child.type in ("atx_heading", "setext_heading"):
            inline = next(
                (c for c in child.named_children if c.type in ("inline", "paragraph")), None
            )
            raw = (inline or child).text or b""
            return raw.decode("utf-8", errors="replace").strip().strip("#").strip()
    return ""


def markdown_chunks(parser: tree_sitter.Parser, text: str) -> list[Chunk]:
    """Each section's own lines (up to its first subsection) become chunks.

    The heading path ("Install > From source") goes into ``parent`` so that the
    embedded text carries where the section sits in the document.
    """
    lines = text.split("\n")
    tree = parse(parser, text.encode("utf-8"))
    chunks: list[Chunk] = []
    # (node, heading path, the row its chunk starts at: a heading above it may join it)
    stack: list[tuple[tree_sitter.Node, list[str], int]] = [
        (tree.root_node, [], tree.root_node.start_point.row)
    ]
    while stack:
        node, titles, start = stack.pop()
        subsections = [c for c in node.named_children if c.type == "section"]
        title = _heading_text(node) if node.type == "section" else ""
        path = [*titles, title] if title else titles
        own_end = subsections[0].start_point.row - 1 if subsections else node.end_point.row - 1
        if node.type == "document" and not subsections:
            own_end = len(lines) - 1
        own = lines[start : own_end + 1]
        # a heading with nothing of its own but subsections titles the first of them:
        # alone, its line matched every question about its part and answered none
        heading_only = (
            title
            and subsections
            and all(not line.strip() or line.lstrip().startswith("#") for line in own)
        )
        if "".join(own).strip() and not heading_only:
            parent = " > ".join(path[:-1]) if title else ""
            kind = "section" if title else "block"
            size = config.CHUNK_MAX_LINES
            for chunk in window_chunks(
                own, start + 1, size=size, overlap=0, kind=kind, symbol=title, parent=parent
            ):
                chunk.signature = title
                chunk.symbols = [title] if title else []
                chunks.append(chunk)
        for sub in reversed(subsections):
            joined = heading_only and sub is subsections[0]
            stack.append((sub, path, start if joined else sub.start_point.row))
    chunks.sort(key=lambda c: c.start_line)
    return chunks
