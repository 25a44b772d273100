"""Does a question about uses ("where is X called", "raised", "imported", "set", "who
implements X") find the code that uses X that way? (not a test)

Samples names defined exactly once in each index (by their short name, five letters or
more) and asks ``Index.search`` where each is used, in the wordings of the use asked for
(``--kind``):
- ``call``: functions and methods (in Ruby, Elixir, Haskell and shell, calls without
  brackets count: ``uses.use_matcher`` by the chunk's language);
- ``raise``: types named ``..Error``, ``..Exception``, ``..Failure`` or ``..Fault``;
- ``catch``: the types of ``raise``, asked for their handlers ("where is X caught",
  "who catches X", "handlers of X");
- ``import``: types, functions and constants;
- ``assign``: fields set on an object (``self.x =``, ``this.x =``), sampled from the code
  (fields are not definitions);
- ``extend``: types (classes, interfaces, traits, protocols), asked for what derives
  from them ("subclasses of X", "who implements X", "classes that extend X");
- ``tested``: the functions of ``call``, asked for their tests ("where is X tested",
  "tests for X", "which tests cover X"); the key is the test chunks that call X;
- ``used``: types (classes, structs, interfaces, traits, enums) asked where they are
  used ("where is X used", "usages of X", "who uses X"); the key is the code chunks that
  name X (comments and docstrings aside);
- ``construct``: the types of ``used``, asked where they are created ("where is X
  created", "who creates X", "instances of X"); the key is the chunks that make one
  (``new X(``, ``X(``, ``X{..}``, ``X::new(``, by the chunk's language);
- ``documented``: the names of ``import`` and ``call``, asked for their documentation
  ("where is X documented", "docs for X", "which docs mention X"); the key is the
  documentation chunks that name X.
No annotations: the answer key is every chunk, other than the definition's own, whose code
lines (comments and triple-quoted strings aside) hold that use of the name as written
(``sleuth.search.uses.use_matcher``). That is the same rule the ranking uses to tell the
use asked for from a mention, so what this measures is the rest: whether those chunks
reach the candidates at all, whether the definition or a mere mention comes before them,
and whether source code comes before tests.

Per tree and in total:
- ``first_use``: the first result holds the use asked for;
- ``precision``: such chunks among the first min(10, their number) results;
- ``source_first``: of the names used so in source code and in tests or docs, the first
  result is in source code;
- ``definition_before``: the definition comes before every use.

The indexes must exist (``sleuth index``); nothing is indexed.

    python bench/uses_lookup.py /tmp/trees --per-index 30
    python bench/uses_lookup.py ~/.cache/sleuth-bench/repos --kind raise --out raise.json
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common import emit, indexed_trees

from sleuth import Index
from sleuth.languages import DOC_LANGUAGES, GRAMMARS
from sleuth.search.filters import category_of
from sleuth.search.implementers import structural_implementers
from sleuth.search.uses import use_matcher, use_text
from sleuth.store.meta import MetaStore
from sleuth.tokens import short_name

CODE_LANGUAGES = frozenset(GRAMMARS) - DOC_LANGUAGES
WORDINGS = {
    "call": ("where is {} called", "who calls {}", "usages of {}"),
    "raise": ("where is {} raised", "who throws {}", "where is {} thrown"),
    "catch": ("where is {} caught", "who catches {}", "handlers of {}"),
    "import": ("where is {} imported", "who imports {}", "imports of {}"),
    "assign": ("where is {} set", "who assigns {}", "assignments to {}"),
    "extend": ("subclasses of {}", "who implements {}", "classes that extend {}"),
    "used": ("where is {} used", "usages of {}", "who uses {}"),
    "construct": ("where is {} created", "who creates {}", "instances of {}"),
    "tested": ("where is {} tested", "tests for {}", "which tests cover {}"),
    "documented": ("where is {} documented", "docs for {}", "which docs mention {}"),
}
_ERROR_NAME = re.compile(r"(Error|Exception|Failure|Fault)$")
_FIELD_SET = re.compile(r"\b(?:self|this)\s*(?:\.|->)\s*([A-Za-z_]\w{4,})\s*=(?![=>])")


@dataclass(frozen=True)
class Span:
    path: str
    start: int
    end: int
    category: str  # code, tests or docs

    def overlaps(self, path: str, start: int, end: int) -> bool:
        return self.path == path and self.start <= end and start <= self.end


def _unique_definitions(con: sqlite3.Connection, keep: Callable[[str, str, str], bool]):
    """(short name, path, first line) of the definitions whose short name is defined once
    in the tree and that ``keep(name, language, kind)`` accepts."""
    rows = con.execute(
        "SELECT d.name, f.path, d.start_line, f.language, d.kind FROM definitions d"
        " JOIN files f ON f.id = d.file_id"
    ).fetchall()
    by_name: dict[str, list] = defaultdict(list)
    for name, path, line, language, kind in rows:
        by_name[short_name(name)].append((path, line, language, kind))
    return [
        (name, found[0][0], found[0][1])
        for name, found in sorted(by_name.items())
        if len(found) == 1
        and len(name) >= 5
        and name.isidentifier()
        and keep(name, found[0][2], found[0][3])
    ]


def _fields(con: sqlite3.Connection) -> list[tuple[str, str, int]]:
    """Fields set on an object somewhere in the code, with no definition to skip."""
    names: set[str] = set()
    for language, text in con.execute(
        "SELECT f.language, c.text FROM chunks c JOIN files f ON f.id = c.file_id"
    ):
        if language in CODE_LANGUAGES:
            names.update(_FIELD_SET.findall(text))
    return [(name, "", 0) for name in sorted(names)]


NAMES: dict[str, Callable[[sqlite3.Connection], list[tuple[str, str, int]]]] = {
    "call": lambda con: _unique_definitions(
        con,
        lambda _, language, kind: language in CODE_LANGUAGES and kind in ("function", "method"),
    ),
    "raise": lambda con: _unique_definitions(
        con, lambda name, language, _: language in CODE_LANGUAGES and bool(_ERROR_NAME.search(name))
    ),
    "import": lambda con: _unique_definitions(
        con,
        lambda _, language, kind: (
            language in CODE_LANGUAGES
            and kind
            in ("class", "struct", "interface", "trait", "type", "enum", "function", "constant")
        ),
    ),
    "assign": _fields,
    "catch": lambda con: NAMES["raise"](con),
    "tested": lambda con: NAMES["call"](con),
    "documented": lambda con: NAMES["import"](con) + NAMES["call"](con),
    "used": lambda con: _unique_definitions(
        con,
        lambda _, language, kind: (
            language in CODE_LANGUAGES
            and kind in ("class", "struct", "interface", "trait", "type", "enum")
        ),
    ),
    "construct": lambda con: NAMES["used"](con),
    "extend": lambda con: _unique_definitions(
        con,
        lambda _, language, kind: (
            language in CODE_LANGUAGES
            and kind in ("class", "struct", "interface", "trait", "type", "protocol", "module")
        ),
    ),
}


def _matcher(
    matchers: dict[str, Callable[[str], bool]], name: str, rule: str, language: str
) -> Callable[[str], bool]:
    if language not in matchers:
        matchers[language] = use_matcher(name, rule, 0, language)
    return matchers[language]


def _users(
    con: sqlite3.Connection, meta: MetaStore, name: str, path: str, line: int, kind: str
) -> list[Span]:
    """The chunks that use ``name`` as ``kind`` asks, but for the one defining it (for
    ``extend``, with the types that satisfy it by their methods: a Go interface's, a
    Python Protocol's)."""
    rule = {"tested": "call", "documented": "doc", "used": "mention"}.get(kind, kind)
    matchers: dict[str, Callable[[str], bool]] = {}
    rows = con.execute(
        "SELECT f.path, f.language, c.start_line, c.end_line, c.text FROM chunks c"
        " JOIN files f ON f.id = c.file_id WHERE instr(c.text, ?) > 0",
        (name,),
    ).fetchall()
    users = [
        Span(where, start, end, category_of(where, language))
        for where, language, start, end, text in rows
        if not (where == path and start <= line <= end)
        and _matcher(matchers, name, rule, language)(use_text(text, rule))
    ]
    if kind == "extend":
        implementers = list(structural_implementers(meta, name))
        marks = ",".join("?" * len(implementers))
        users += [
            Span(where, start, end, category_of(where, language))
            for where, language, start, end in con.execute(
                "SELECT f.path, f.language, c.start_line, c.end_line FROM chunks c"
                f" JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
                implementers,
            )
            if not any(u.overlaps(where, start, end) for u in users)
        ]
    place = {"tested": "tests", "documented": "docs"}.get(kind)
    return [u for u in users if u.category == place] if place else users


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders holding indexed trees")
    parser.add_argument("--per-index", type=int, default=30, help="names asked per tree")
    parser.add_argument("--mode", default="hybrid", choices=("hybrid", "lexical", "semantic"))
    parser.add_argument("--kind", default="call", choices=tuple(WORDINGS), help="the use asked for")
    parser.add_argument("--min-uses", type=int, default=2)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    totals: dict[str, float] = defaultdict(float)
    trees: dict[str, dict] = {}
    for root in indexed_trees(args.folders):
        con = sqlite3.connect(root / ".sleuth" / "meta.db")
        meta = MetaStore(root / ".sleuth" / "meta.db")
        asked: list[tuple[str, str, int, list[Span]]] = []
        names = NAMES[args.kind](con)
        rng.shuffle(names)
        for name, path, line in names:
            users = _users(con, meta, name, path, line, args.kind)
            if len(users) >= args.min_uses:
                asked.append((name, path, line, users))
            if len(asked) == args.per_index:
                break
        con.close()
        meta.close()
        if not asked:
            continue
        tree: dict[str, float] = defaultdict(float)
        misses: list[list] = []
        index = Index(root)
        try:
            for number, (name, path, line, users) in enumerate(asked):
                wordings = WORDINGS[args.kind]
                query = wordings[number % len(wordings)].format(name)
                results = index.search(query, k=10, mode=args.mode).results
                hits = [
                    next((c for c in users if c.overlaps(r.path, r.start_line, r.end_line)), None)
                    for r in results
                ]
                depth = min(10, len(users))
                tree["asked"] += 1
                tree["first_use"] += bool(hits and hits[0])
                tree["precision"] += sum(1 for hit in hits[:depth] if hit) / depth
                if len({c.category for c in users}) > 1 and any(
                    c.category == "code" for c in users
                ):
                    tree["mixed"] += 1
                    tree["source_first"] += bool(hits and hits[0] and hits[0].category == "code")
                first_hit = next((i for i, hit in enumerate(hits) if hit), len(hits))
                tree["definition_before"] += any(
                    r.path == path and r.start_line <= line <= r.end_line
                    for r in results[:first_hit]
                )
                if not (hits and hits[0]):
                    top = results[0] if results else None
                    misses.append([query, f"{top.path}:{top.start_line}" if top else ""])
        finally:
            index.close()
        for key, value in tree.items():
            totals[key] += value
        trees[root.name] = _shares(tree) | {"misses": misses[:4]}
    emit({"mode": args.mode, "kind": args.kind, "total": _shares(totals), "trees": trees}, args.out)


def _shares(counts: dict[str, float]) -> dict[str, float]:
    asked = counts["asked"] or 1
    return {
        "asked": int(counts["asked"]),
        "first_use": round(counts["first_use"] / asked, 3),
        "precision": round(counts["precision"] / asked, 3),
        "definition_before": round(counts["definition_before"] / asked, 3),
        "mixed": int(counts["mixed"]),
        "source_first": round(counts["source_first"] / (counts["mixed"] or 1), 3),
    }


if __name__ == "__main__":
    main()
