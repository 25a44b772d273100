"""Result filters: path glob, language, kind, and file category (code, docs, tests)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache

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
_TEST_MODULES = frozenset({"tests", "test"})


def chunk_category(row: ChunkRow) -> str:
    """``category_of`` for one chunk: tests written inside source files count as tests."""
    category = category_of(row.path, row.language)
    if category == "code" and _inline_test(
        row.language, row.kind, row.parent, row.symbol, row.text
    ):
        return "tests"
    return category


def definition_category(row: DefinitionRow) -> str:
    """``chunk_category`` for a definition: members of Rust's ``mod tests`` are tests."""
    category = category_of(row.path, row.language or "")
    if category == "code" and _inline_test(row.language or "", row.kind, row.parent, row.name, ""):
        return "tests"
    return category


@lru_cache(maxsize=65_536)
def _inline_test(language: str, kind: str, parent: str, symbol: str, text: str) -> bool:
    """Whether a chunk of a source file is test code: the path does not say so when the
    tests live beside the code they test."""
    if kind == "test":  # Zig's test blocks are chunks of their own kind
        return True
    if language == "rust":
        if parent.split("::")[0] in _TEST_MODULES or parent.rsplit("::", 1)[-1] in _TEST_MODULES:
            return True
        if kind == "module" and symbol in _TEST_MODULES:
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

    def accepts(self, path: str, language: str, kind: str, check_category: bool = True) -> bool:
        if self.path and not _glob(path, self.path):
            return False
        if self.language and language != self.language.lower():
            return False
        if self.kind and kind != self.kind.lower():
            return False
        return not (
            check_category and self.category and category_of(path, language) != self.category
        )

    def accepts_chunk(self, row: ChunkRow) -> bool:
        """``accepts`` for a chunk, whose category may differ from its file's (Rust's
        ``mod tests``)."""
        if not self.accepts(row.path, row.language, row.kind, check_category=False):
            return False
        return not (self.category and chunk_category(row) != self.category)


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
