"""Result filters: path glob, language, kind, and file category (code, docs, tests)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache

from ..chunking.base import TEST_MODULES
from ..languages import DOC_LANGUAGES
from ..store.meta import ChunkRow, DefinitionRow

_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs|testing|test_?utils?)/"
    r"|(^|/)test_[^/]*\.(py|c|cc|cpp|rb|lua|dart|php)$"  # not lib/test_functions.bash
    r"|_test\.[^/]+$|\.(test|spec)\.[^/]+$|(^|/)[^/]*Tests?\.[^/]+$|_spec\.[^/]+$"
)


@lru_cache(maxsize=65_536)
def category_of(path: str, language: str) -> str:
    """``tests``, ``docs`` or ``code`` by path and language."""
    if _TEST_PATH.search(path):
        return "tests"
    if language in DOC_LANGUAGES:
        return "docs"
    return "code"


#: Tests written inside source files: Rust's ``#[test]`` functions (``#[tokio::test]``,
#: ``#[rstest]``) and ``mod tests``, Zig's ``test "name" { }`` blocks.
_RUST_TEST_ATTRIBUTE = re.compile(r"^\s*#\[\s*(?:[\w:]+::)?(?:test|rstest|quickcheck)\b", re.M)


def chunk_category(row: ChunkRow) -> str:
    """``category_of`` for one chunk: tests written inside source files count as tests."""
    return _category(row.path, row.language, row.kind, row.parent, row.symbol, row.text)


def definition_category(row: DefinitionRow) -> str:
    """``chunk_category`` for a definition: members of Rust's ``mod tests`` are tests."""
    return _category(row.path, row.language or "", row.kind, row.parent, row.name, "")


def _category(path: str, language: str, kind: str, parent: str, symbol: str, text: str) -> str:
    category = category_of(path, language)
    if category == "code" and _inline_test(language, kind, parent, symbol, text):
        return "tests"
    return category


@lru_cache(maxsize=65_536)
def _inline_test(language: str, kind: str, parent: str, symbol: str, text: str) -> bool:
    """Whether a chunk of a source file is test code: the path does not say so when the
    tests live beside the code they test."""
    if kind == "test":  # Zig's test blocks are chunks of their own kind
        return True
    if language == "rust":
        if parent.split("::")[0] in TEST_MODULES or parent.rsplit("::", 1)[-1] in TEST_MODULES:
            return True
        if kind == "module" and symbol in TEST_MODULES:
            return True
        head = text[: text.find("fn ")] if kind == "function" and "fn " in text else ""
        return _RUST_TEST_ATTRIBUTE.search(head) is not None
    return False


@dataclass(frozen=True)
class Filters:
    path: str | None = None
    language: str | None = None
    kind: str | None = None
    category: str | None = None

    def active(self) -> bool:
        return any((self.path, self.language, self.kind, self.category))

    def accepts(self, path: str, language: str, kind: str, category: str = "") -> bool:
        """``category``: the item's own, when it is not its file's (``chunk_category``)."""
        if self.path and not _glob(path, self.path):
            return False
        if self.language and language != self.language.lower():
            return False
        if self.kind and kind != self.kind.lower():
            return False
        return not (self.category and (category or category_of(path, language)) != self.category)

    def accepts_chunk(self, row: ChunkRow) -> bool:
        """``accepts`` for a chunk, whose category may differ from its file's (Rust's
        ``mod tests``)."""
        category = chunk_category(row) if self.category else ""
        return self.accepts(row.path, row.language, row.kind, category)


def _glob(path: str, pattern: str) -> bool:
    """Shell-style glob where ``**`` crosses folders; a bare folder name matches below it."""
    if fnmatchcase(path, pattern):
        return True
    if pattern.endswith("/"):
        return path.startswith(pattern)
    if "/" not in pattern and "*" not in pattern:
        return pattern in path.split("/")
    regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*")
    regex = regex.replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
    return re.fullmatch(regex, path) is not None or path.startswith(pattern.rstrip("/") + "/")
