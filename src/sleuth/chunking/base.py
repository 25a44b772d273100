"""The chunk: the unit sleuth stores, ranks and returns."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Names of the modules that hold tests beside the code (Rust's ``mod tests``).
TEST_MODULES = frozenset({"tests", "test"})
#: The attribute of a Rust test function (``#[test]``, ``#[tokio::test]``, ``#[rstest]``).
_RUST_TEST_ATTRIBUTE = re.compile(r"^\s*#\[\s*(?:[\w:]+::)?(?:test|rstest|quickcheck)\b", re.M)
#: Every kind a chunk or a definition can have (``kind:`` and ``--kind`` take these).
KINDS = frozenset(
    {
        "function", "method", "class", "struct", "interface", "enum", "trait", "impl",
        "type", "module", "constant", "macro", "test", "reexport", "overload", "block",
        "section", "window", "adr",
    }
)  # fmt: skip
#: The kinds that are a function's body: what a definition inside one is local to, and
#: the code a question in words leans to within a file.
FUNCTION_KINDS = frozenset({"function", "method", "macro", "test"})


@dataclass(slots=True)
class Chunk:
    """A span of one file. Lines are 1-based and inclusive."""

    start_line: int
    end_line: int
    kind: str  # function, method, class, ..., section, block, window
    text: str
    symbol: str = ""
    parent: str = ""
    signature: str = ""
    #: Every definition name inside the chunk (tiny siblings merged keep all their names).
    symbols: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Definition:
    """A named definition found by the parser, kept whole even when chunks split it."""

    name: str
    kind: str
    parent: str
    start_line: int
    end_line: int
    signature: str
    #: Inside a function's body: found by name, but the chunk holding it does not
    #: answer for it in the symbol field (it is a helper of that function).
    local: bool = False


_PRIVATE_MEMBER = re.compile(r"#[A-Za-z_$][\w$]*(?:<|\s*[(:=])")


def signature_of(text: str, limit: int = 200) -> str:
    """First meaningful line of a definition, trimmed: cheap and language-neutral. A
    line opening with ``#`` is a comment or an attribute, unless it names a private
    member (JavaScript's ``#calculateDelay(..)``, ``#cache = ..``)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and (
            _PRIVATE_MEMBER.match(stripped)
            or not stripped.startswith(("@", "#[", "//", "/*", "*", "#", "--"))
        ):
            return stripped[:limit]
    return text.strip().splitlines()[0][:limit] if text.strip() else ""


def quickcheck(name: str) -> bool:
    """Whether a Haskell binding is a QuickCheck property (``prop_checkUuoc1 = verify
    ..``): a test written beside the code it tests, by the library's convention."""
    return name.startswith("prop_")


def rust_test_function(text: str) -> bool:
    """Whether a Rust function's text has a test attribute (``#[test]``,
    ``#[tokio::test]``) before its ``fn``: a test written beside the code it tests."""
    cut = text.find("fn ")
    return cut >= 0 and _RUST_TEST_ATTRIBUTE.search(text, 0, cut) is not None
