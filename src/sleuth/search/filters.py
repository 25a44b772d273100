"""Result filters: path glob, language, kind, and file category (code, docs, tests)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache

from ..chunking.base import KINDS, TEST_MODULES, quickcheck, rust_test_function
from ..errors import QueryError
from ..languages import DOC_LANGUAGES, known_languages, language_named
from ..store.definitions import DefinitionRow
from ..store.meta import ChunkRow

_TEST_PATH = re.compile(
    # (a test project or source set named for what it tests: jvmTest/, UnitTests/,
    # Newtonsoft.Json.Tests/, AutoMapper.IntegrationTests/)
    # (Lua's testes/, gcc's testsuite/, JSONTestSuite's copies; TypeScript's type tests in
    # test-d/, test-dts/, __typetest__/)
    r"(^|/)(tests?|Tests|__tests__|spec|specs|regress|test_?utils?|testFixtures|testes"
    r"|(\w+[-_])?test[-_]?suites?|test-d(?:ts)?|__typetests?__|[A-Za-z0-9_.]*[a-z.]Tests?)/"
    # a tree's own integration_test/, e2e-tests/ (deeper, rails' generators/integration_test/
    # is code that writes tests); a top-level testing/ (pytest's), where a deeper one is
    # a package of helpers for tests (pinia's packages/testing/, rails' lib/rails/testing/)
    r"|^[a-z0-9]+[_-]tests?/|^testing/"
    # (not lib/test_functions.bash; under lib/ a test_api.rb is code that helps tests)
    r"|^(?!(?:.*/)?lib/)(?:.*/)?test_[^/]*\.(py|c|cc|cpp|rb|lua|dart|php)$"
    r"|_test\.[^/]+$|\.(test|spec)\.[^/]+$|(^|/)[^/]*Tests?\.[^/]+$|_spec\.[^/]+$"
    # a file named test or tests (Django's app/tests.py, hiredis' test.c, pytest's
    # conftest.py), but not in a source folder: lib/plug/test.ex and vitest's
    # src/runtime/runners/test.ts are code that runs tests
    r"|^(?!(?:.*/)?(?:lib|src)/)(?:.*/)?(?:tests?|conftest)\.[^/]+$"
)


#: Folders of documentation: HTML there is a documentation site (often generated API
#: docs that repeat every doc comment), not a template of the application.
_DOCS_FOLDER = re.compile(r"(^|/)(docs?|documentation|site|apidocs?|api-docs|javadoc)/", re.I)


@lru_cache(maxsize=65_536)
def category_of(path: str, language: str) -> str:
    """``tests``, ``docs`` or ``code`` by path and language."""
    if _TEST_PATH.search(path):
        return "tests"
    if language in DOC_LANGUAGES or (language == "html" and _DOCS_FOLDER.search(path)):
        return "docs"
    if language == "go" and (path == "doc.go" or path.endswith("/doc.go")):
        return "docs"  # by Go's convention, a package's documentation in comments
    return "code"


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


def _inline_test(language: str, kind: str, parent: str, symbol: str, text: str) -> bool:
    """Whether a chunk of a source file is test code: the path does not say so when the
    tests live beside the code they test (Rust's ``#[test]`` functions and ``mod tests``,
    Zig's ``test "name" { }`` blocks, Haskell's QuickCheck properties)."""
    if kind == "test":  # Zig's test blocks are chunks of their own kind
        return True
    if language == "rust":
        return _rust_inline_test(kind, parent, symbol, text)
    if language == "haskell":
        return quickcheck(symbol)
    return False


@lru_cache(maxsize=65_536)
def _rust_inline_test(kind: str, parent: str, symbol: str, text: str) -> bool:
    """Rust's part of ``_inline_test``, cached: it reads the function's text."""
    if parent.split("::")[0] in TEST_MODULES or parent.rsplit("::", 1)[-1] in TEST_MODULES:
        return True
    if kind == "module" and symbol in TEST_MODULES:
        return True
    return kind == "function" and rust_test_function(text)


#: Wildcards (``*``, ``?``) a path glob may hold: a glob costs time in proportion to
#: them for every path it is tried on.
MAX_GLOB_WILDCARDS = 24


@dataclass(frozen=True)
class Filters:
    path: str | None = None
    language: str | None = None
    kind: str | None = None
    category: str | None = None

    def __post_init__(self) -> None:
        """Values that can match nothing are refused, so a typo is not taken for an
        answer that nothing matches."""
        if self.path and sum(map(self.path.count, "*?")) > MAX_GLOB_WILDCARDS:
            raise QueryError(
                f"the path glob holds more than {MAX_GLOB_WILDCARDS} wildcards (* and ?)"
            )
        if self.language and self.language.lower() not in known_languages():
            meant = language_named(self.language)
            hint = f": did you mean {meant}?" if meant else " (see --help for the list)"
            raise QueryError(f"unknown language {self.language[:40]!r}{hint}")
        if self.kind and self.kind.lower() not in KINDS:
            raise QueryError(f"unknown kind {self.kind[:40]!r}: one of {', '.join(sorted(KINDS))}")

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
    """Shell-style glob where ``**`` crosses folders and ``**/`` may stand for no folder
    at all (``src/**/x.py`` matches ``src/x.py``); a bare folder name matches below it.

    Only ``fnmatchcase`` matches: its patterns cannot backtrack without end, so a glob
    written to be slow (``**/**/**/..``, ``*a*a*a..b``) costs no more than a plain one."""
    if fnmatchcase(path, pattern):
        return True
    if pattern.endswith("/"):
        return path.startswith(pattern)
    if "/" not in pattern and "*" not in pattern:
        return pattern in path.split("/")
    if "**/" in pattern and any(fnmatchcase(path, form) for form in _without_folders(pattern)):
        return True
    return path.startswith(pattern.rstrip("/") + "/")


#: A glob with more ``**/`` than this tries them all present or all absent, not each
#: combination (2 ** n patterns).
MAX_FOLDER_STARS = 4
_FOLDER_STARS = re.compile(r"(?:\*\*/)+")


@lru_cache(maxsize=256)
def _without_folders(pattern: str) -> tuple[str, ...]:
    """``pattern`` with each ``**/`` kept or dropped (runs of them count as one)."""
    parts = _FOLDER_STARS.split(pattern)
    stars = len(parts) - 1
    if stars > MAX_FOLDER_STARS:
        return ("**/".join(parts), "".join(parts))
    forms = []
    for mask in range(1 << stars):
        form = parts[0]
        for at, part in enumerate(parts[1:]):
            form += ("**/" if mask >> at & 1 else "") + part
        forms.append(form)
    return tuple(forms)
