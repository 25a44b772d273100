"""What a search returns: the stable shapes behind `--json` (schema in README)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from typing import TypedDict


class OtherHit(TypedDict):
    """Another chunk of a result's file that matched, shown as a pointer, not a result."""

    start_line: int
    end_line: int
    symbol: str


#: A pointer's symbol is cut to this many characters in text (a section heading or a
#: test named by its description can run to a line); JSON keeps it whole.
POINTER_SYMBOL_CHARS = 40


def other_hit_text(hit: OtherHit) -> str:
    """``120-145 retry_upload``: lines of the same file, and the symbol when there is one."""
    lines = f"{hit['start_line']}-{hit['end_line']}"
    symbol = hit["symbol"]
    if len(symbol) > POINTER_SYMBOL_CHARS:
        symbol = symbol[: POINTER_SYMBOL_CHARS - 1] + "…"
    return f"{lines} {symbol}" if symbol else lines


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
    #: Further chunks of this file that matched, best first: when the chunk shown is not
    #: the one asked about, the one asked about is often among these (``file_order.further_hits``).
    also: list[OtherHit] = field(default_factory=list)

    def to_dict(self) -> dict:
        # by hand: dataclasses.asdict deep-copies every field, a tenth of a search's time
        return {name: getattr(self, name) for name in _RESULT_FIELDS}


_RESULT_FIELDS = tuple(f.name for f in fields(Result))


def result_of(data: dict) -> Result:
    """A Result from its JSON form; fields this version does not know are dropped (a
    daemon of a newer version may send more: fields are only ever added)."""
    return Result(**known_fields(Result, data))


@cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


def known_fields(cls: type, data: dict, *left_out: str) -> dict:
    """The items of ``data`` (an answer's JSON) that are fields of the dataclass ``cls``,
    but ``left_out``: keys this version does not know are dropped."""
    names = _field_names(cls)
    return {key: value for key, value in data.items() if key in names and key not in left_out}


def percent(fraction: float) -> str:
    """A share as a whole percentage, rounded down: 99.8% built is not "100% built"."""
    return f"{int(fraction * 100)}%"


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
    #: The query as asked, when a mistyped name in it was respelled (``query`` is then
    #: what was searched: ``Depenss`` -> ``Depends``); "" otherwise.
    respelled_from: str = ""

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "mode": self.mode,
            "query_class": self.query_class,
            "embedded_fraction": round(self.embedded_fraction, 4),
            "vectors": list(self.vectors),
            "reason": self.reason,
            "notices": list(self.notices),
            "respelled_from": self.respelled_from,
            "results": [r.to_dict() for r in self.results],
        }
