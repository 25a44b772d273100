"""Query classes steer fusion: identifiers lean on BM25, plain words on vectors."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..languages import EXTENSIONS
from ..tokens import identifiers_in, query_terms

#: A query asks for test code when tests are its object ("tests for retry", "unit tests",
#: "where is parse tested"), not when it is about testing ("how test files are run" in a
#: test runner's repository, where every query says "test").
_TEST_WORDS = re.compile(
    r"\b(tests?|specs?)\s+(for|of|on|covering|that|which)\b|\b(unit|integration|e2e|"
    r"regression|end-to-end)[ -]tests?\b|\btest (cases?|coverage)\b|\btested\b"
    r"|\bfixtures?\b|^\s*(tests|specs)\b|\b(tests|specs)\s*$",
    re.I,
)
_DOC_WORDS = re.compile(r"\b(docs?|documentation|readme|guide|tutorial|adrs?|changelog)\b", re.I)
#: A file written as on disk: a name with its extension (``keylog.h``, ``index.d.ts``),
#: perhaps with folders (``fastapi/utils.py``); the extension must be a known one.
_FILE_NAME = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-][\w.-]*\.([a-z0-9+]+))(?![\w/-])")


@dataclass(frozen=True)
class QueryPlan:
    text: str
    terms: list[str]
    kind: str  # identifier | natural | mixed
    identifiers: list[str]
    lexical_weight: float
    semantic_weight: float
    wants_tests: bool
    wants_docs: bool
    #: files the query names as written on disk (``keylog.h``)
    file_names: tuple[str, ...] = ()

    @property
    def exact_names(self) -> frozenset[str]:
        """The names as written: ``Command`` is not ``command``."""
        names = set(self.identifiers)
        if self.kind == "identifier":
            names.update(self.text.split())
        return frozenset(names)

    @property
    def symbol_names(self) -> set[str]:
        """Lowercased names the query may be asking the definition of."""
        names = {n.lower() for n in self.identifiers}
        if self.kind == "identifier":
            names.update(t.lower() for t in self.text.split())
        return names


#: (lexical, semantic) weights by class. Weighted min-max fusion; see docs/architecture.md.
WEIGHTS = {"identifier": (0.6, 0.4), "mixed": (0.4, 0.6), "natural": (0.4, 0.6)}


def classify(query: str) -> QueryPlan:
    text = " ".join(query.split())
    words = text.split(" ")
    identifiers = identifiers_in(text)
    if len(words) == 1 and re.fullmatch(r"[^\W\d][\w.:$-]*", words[0]):
        kind = "identifier"
        identifiers = identifiers or [words[0].strip(".:")]
    elif identifiers:
        kind = "mixed"
    else:
        kind = "natural"
    lexical, semantic = WEIGHTS[kind]
    return QueryPlan(
        text,
        query_terms(text),
        kind,
        identifiers,
        lexical,
        semantic,
        bool(_TEST_WORDS.search(text)),
        bool(_DOC_WORDS.search(text)),
        named_files(text),
    )


#: A query naming more files than this is a list, not a pointer: the first ones count.
MAX_NAMED_FILES = 8


def named_files(text: str) -> tuple[str, ...]:
    """File names with a source extension written in the query, as written, in order."""
    matches = _FILE_NAME.finditer(text)
    found = (m.group(1) for m in matches if f".{m.group(2)}" in EXTENSIONS)
    return tuple(dict.fromkeys(found))[:MAX_NAMED_FILES]
