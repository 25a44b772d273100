"""Split a file into chunks: tree-sitter where a grammar exists, line windows elsewhere."""

from __future__ import annotations

from ..languages import parser_for
from .base import Chunk, Definition
from .markdown import markdown_chunks
from .rst import rst_chunks
from .windows import window_chunks

__all__ = ["Chunk", "Definition", "chunk_text"]


def chunk_text(
    language: str, text: str, grammar: bool = True
) -> tuple[list[Chunk], list[Definition]]:
    """Chunks of one file's text plus the definitions found in it.

    Any parser failure falls back to line windows: a file is never lost for its syntax.
    Without ``grammar``, line windows only (a file whose parse crashed a process).
    """
    parser = parser_for(language) if grammar else None
    if parser is not None:
        # imported here: a search that indexes nothing does not pay for the chunkers
        from .treesitter import treesitter_chunks

        try:
            if language == "markdown":
                return markdown_chunks(parser, text), []
            if language == "rst":
                return rst_chunks(parser, text), []
            return treesitter_chunks(parser, language, text)
        except (ValueError, RecursionError, UnicodeError):
            pass
    return window_chunks(text.split("\n")), []
