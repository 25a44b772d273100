"""What a search returns: the stable shapes behind `--json` (schema in README)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(slots=True)
class Result:
    path: str
    start_line: int
    end_line: int
    symbol: str
    kind: str
    language: str
    score: float
    preview: str
    parent: str = ""
    signature: str = ""

    def to_dict(self) -> dict:
        # by hand: dataclasses.asdict deep-copies every field, a tenth of a search's time
        return {name: getattr(self, name) for name in _RESULT_FIELDS}


_RESULT_FIELDS = tuple(f.name for f in fields(Result))


@dataclass(slots=True)
class SearchResponse:
    query: str
    mode: str  # the mode actually used: hybrid | lexical | semantic
    results: list[Result] = field(default_factory=list)
    #: Why the list is empty, when it is ("empty index", "all filtered out", ...).
    reason: str = ""
    #: Things the user should know: lexical fallback, partial vectors, refreshed files.
    notices: list[str] = field(default_factory=list)
    query_class: str = ""
    embedded_fraction: float = 0.0
    #: Whose vectors ranked the answer: [] (lexical), ["static"], ["deep"] or both.
    vectors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "mode": self.mode,
            "query_class": self.query_class,
            "embedded_fraction": round(self.embedded_fraction, 4),
            "vectors": list(self.vectors),
            "reason": self.reason,
            "notices": list(self.notices),
            "results": [r.to_dict() for r in self.results],
        }
