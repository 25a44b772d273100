"""Overlapping line windows: the fallback for text without a grammar."""

from __future__ import annotations

from .. import config
from .base import Chunk


def window_chunks(
    lines: list[str],
    first_line: int = 1,
    size: int = config.WINDOW_LINES,
    overlap: int = config.WINDOW_OVERLAP,
    kind: str = "window",
    symbol: str = "",
    parent: str = "",
) -> list[Chunk]:
    """Cut lines into windows of ``size`` lines overlapping by ``overlap``; skip blank ones."""
    chunks: list[Chunk] = []
    step = max(1, size - overlap)
    # a text that ends with a line break splits into one more, empty, "line": not a line
    n = len(lines) - (1 if lines and lines[-1] == "" else 0)
    start = 0
    while start < n:
        end = min(n, start + size)
        body = "\n".join(lines[start:end])
        if body.strip():
            chunks.append(
                Chunk(first_line + start, first_line + end - 1, kind, body, symbol, parent)
            )
        if end >= n:
            break
        start += step
    return chunks
