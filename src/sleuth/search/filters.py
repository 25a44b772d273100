"""Result filters: path glob, language, kind, and file category (code, docs, tests)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache

from ..languages import DOC_LANGUAGES

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


@dataclass(frozen=True)
class Filters:
    path: str | None = None
    language: str | None = None
    kind: str | None = None
    category: str | None = None

    def active(self) -> bool:
        return any((self.path, self.language, self.kind, self.category))

    def accepts(self, path: str, language: str, kind: str) -> bool:
        if self.path and not _glob(path, self.path):
            return False
        if self.language and language != self.language.lower():
            return False
        if self.kind and kind != self.kind.lower():
            return False
        return not (self.category and category_of(path, language) != self.category)


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
