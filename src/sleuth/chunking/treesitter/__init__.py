"""Syntax-aware chunking with tree-sitter grammars.

- ``chunks``: the walk that makes a file's chunks and definitions, and the choice
  between a first and a second reading;
- ``definitions``, ``forms``, ``suites``, ``nodes``: what a definition is in each
  language, how it is named, which are tests;
- ``repair``, ``headers``, ``lines``: the second reading of a file mid-edit, which
  blanks its broken units.
"""

from .chunks import treesitter_chunks
from .suites import catch_test_name

__all__ = ["catch_test_name", "treesitter_chunks"]
