"""Structured queries: filters written inside the query text, for people and agents alike.

``symbol:Config kind:class lang:python path:src/** retry backoff`` means: definitions
named ``Config`` that are classes, in Python files under ``src/``, ranked by "retry
backoff". Only the keys below are read as filters, and only as ``key:value`` with a
non-empty value, so ``Rails::Engine``, ``Picker:find`` or ``std::vector`` stay words.
A value with spaces can be quoted: ``path:"my docs/**"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import QueryError

#: Accepted spellings of each filter key.
KEYS = {
    "symbol": "symbol",
    "sym": "symbol",
    "kind": "kind",
    "lang": "language",
    "language": "language",
    "path": "path",
    "file": "path",
    "type": "category",
}
CATEGORIES = ("code", "docs", "tests")

_FILTER = re.compile(r'(?<!\S)([A-Za-z]+):(?:"([^"]+)"|([^\s:"][^\s"]*))(?!\S)')


@dataclass(frozen=True)
class ParsedQuery:
    """The free words of a query and the filters written beside them."""

    text: str
    symbol: str | None = None
    kind: str | None = None
    language: str | None = None
    path: str | None = None
    category: str | None = None

    @property
    def search_text(self) -> str:
        """What the ranker reads: the free words, else the symbol name (without globs)."""
        if self.text:
            return self.text
        return (self.symbol or "").replace("*", " ").replace("?", " ").strip()

    def with_options(self, **options: str | None) -> ParsedQuery:
        """Add filters given outside the query (CLI flags, tool arguments).

        The same filter given twice with different values is an error rather than a
        silent choice.
        """
        changes = {}
        for name, value in options.items():
            if value is None or value == "":
                continue
            current = getattr(self, name)
            if current is not None and current.lower() != str(value).lower():
                raise QueryError(f"conflicting {name} filters: {current!r} and {value!r}")
            changes[name] = value
        return _checked(replace(self, **changes)) if changes else self


def parse_query(raw: str) -> ParsedQuery:
    """Split ``raw`` into free words and ``key:value`` filters (see the module doc)."""
    found: dict[str, str] = {}

    def take(match: re.Match[str]) -> str:
        key = KEYS.get(match.group(1).lower())
        if key is None:
            return match.group(0)
        value = match.group(2) or match.group(3)
        if key in found and found[key] != value:
            raise QueryError(f"{match.group(1)}: is given twice ({found[key]!r}, {value!r})")
        found[key] = value
        return " "

    text = " ".join(_FILTER.sub(take, raw).split())
    bare = text.rstrip(":")
    if text.endswith(":") and " " not in text and bare.lower() in KEYS:
        raise QueryError(f"{text} needs a value: {bare}:VALUE (see `sleuth search --help`)")
    return _checked(ParsedQuery(text, **found))


def _checked(query: ParsedQuery) -> ParsedQuery:
    if query.category is not None and query.category.lower() not in CATEGORIES:
        raise QueryError(f"type: must be one of {', '.join(CATEGORIES)}, not {query.category!r}")
    lowered = {
        name: getattr(query, name).lower()
        for name in ("kind", "language", "category")
        if getattr(query, name)
    }
    return replace(query, **lowered) if lowered else query
