"""What the grammar reads: a copy of the file with constructs it cannot parse blanked.

Each rewrite keeps every offset (same length, same line breaks), so nodes map back to the
file's own lines; chunk text always comes from the file itself.
"""

from __future__ import annotations

from collections.abc import Callable

from .c_family import C_STRING, CATCH_MACROS, CATCH_TEST, rewrite_c
from .csharp import rewrite_csharp
from .haskell import rewrite_haskell
from .kotlin import rewrite_kotlin
from .rust import rewrite_rust
from .shell import rewrite_bash
from .swift import rewrite_swift

__all__ = ["CATCH_MACROS", "CATCH_TEST", "C_STRING", "parser_source"]

PARSE_REWRITES: dict[str, Callable[[str], str]] = {
    "bash": rewrite_bash,
    "haskell": rewrite_haskell,
    "csharp": rewrite_csharp,
    "kotlin": rewrite_kotlin,
    "rust": rewrite_rust,
    "c": rewrite_c,
    "cpp": rewrite_c,
    "swift": rewrite_swift,
}


def parser_source(language: str, text: str) -> bytes:
    """The bytes the parser reads: the file, with its language's quirks rewritten."""
    rewrite = PARSE_REWRITES.get(language)
    return (rewrite(text) if rewrite is not None else text).encode("utf-8")
