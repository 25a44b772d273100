"""Does a question about uses ("where is X called") find the code that calls X? (not a test)

Samples functions and methods defined exactly once in each index (by their short name,
five letters or more, in languages whose calls are written ``name(``), and asks
``Index.search`` where each is called, in one of three wordings. No annotations: the
answer key is every chunk, other than the definition's own, whose code lines (comments
and triple-quoted strings aside) call the name as written (``name(`` after no letter,
digit, ``_`` or ``$``). That is the same rule
the ranking uses to tell a call from a mention, so what this measures is the rest:
whether the callers reach the candidates at all, whether the definition or a mere
mention comes before them, and whether source code that calls the name comes before
tests that do.

Per tree and in total:
- ``first_caller``: the first result calls the name;
- ``precision``: callers among the first min(10, callers) results;
- ``source_first``: of the names called from source code and from tests or docs, the
  first result is a source caller;
- ``definition_before``: the definition comes before every caller.

The indexes must exist (``sleuth index``); nothing is indexed.

    python bench/uses_lookup.py /tmp/trees --per-index 30
    python bench/uses_lookup.py ~/.cache/sleuth-bench/repos --mode lexical --out uses.json
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from common import emit, indexed_trees

from sleuth import Index
from sleuth.languages import GRAMMARS
from sleuth.search.filters import category_of
from sleuth.tokens import short_name

#: Languages whose calls are written ``name(``: every grammar but prose and the
#: languages that call without parentheses (Ruby, Haskell, shell).
CALLING_LANGUAGES = frozenset(GRAMMARS) - {"markdown", "rst", "ruby", "haskell", "bash"}
WORDINGS = ("where is {} called", "who calls {}", "usages of {}")
_COMMENT = re.compile(r"^\s*(?://|#|--|\*|/\*|;)")
_TRIPLE_QUOTED = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')


@dataclass(frozen=True)
class Span:
    path: str
    start: int
    end: int
    category: str  # code, tests or docs

    def overlaps(self, path: str, start: int, end: int) -> bool:
        return self.path == path and self.start <= end and start <= self.end


def _code(text: str) -> str:
    """The text without comment lines and triple-quoted strings (docstrings)."""
    text = _TRIPLE_QUOTED.sub("", text)
    return "\n".join(line for line in text.split("\n") if not _COMMENT.match(line))


def _names(con: sqlite3.Connection) -> list[tuple[str, str, int]]:
    """(short name, path, first line) of functions and methods whose short name is unique
    in the tree, in a language that calls with parentheses."""
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
        and found[0][2] in CALLING_LANGUAGES
        and found[0][3] in ("function", "method")
    ]


def _callers(con: sqlite3.Connection, name: str, path: str, line: int) -> list[Span]:
    """The chunks that call ``name``, but for the one holding its definition."""
    call = re.compile(rf"(?<![\w$]){re.escape(name)}\s*\(")
    rows = con.execute(
        "SELECT f.path, f.language, c.start_line, c.end_line, c.text FROM chunks c"
        " JOIN files f ON f.id = c.file_id WHERE instr(c.text, ?) > 0",
        (name,),
    ).fetchall()
    return [
        Span(where, start, end, category_of(where, language))
        for where, language, start, end, text in rows
        if not (where == path and start <= line <= end) and call.search(_code(text))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders holding indexed trees")
    parser.add_argument("--per-index", type=int, default=30, help="names asked per tree")
    parser.add_argument("--mode", default="hybrid", choices=("hybrid", "lexical", "semantic"))
    parser.add_argument("--min-callers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    totals: dict[str, float] = defaultdict(float)
    trees: dict[str, dict] = {}
    for root in indexed_trees(args.folders):
        con = sqlite3.connect(root / ".sleuth" / "meta.db")
        asked: list[tuple[str, str, int, list[Span]]] = []
        names = _names(con)
        rng.shuffle(names)
        for name, path, line in names:
            callers = _callers(con, name, path, line)
            if len(callers) >= args.min_callers:
                asked.append((name, path, line, callers))
            if len(asked) == args.per_index:
                break
        con.close()
        if not asked:
            continue
        tree: dict[str, float] = defaultdict(float)
        misses: list[list] = []
        index = Index(root)
        try:
            for number, (name, path, line, callers) in enumerate(asked):
                query = WORDINGS[number % len(WORDINGS)].format(name)
                results = index.search(query, k=10, mode=args.mode).results
                hits = [
                    next((c for c in callers if c.overlaps(r.path, r.start_line, r.end_line)), None)
                    for r in results
                ]
                depth = min(10, len(callers))
                tree["asked"] += 1
                tree["first_caller"] += bool(hits and hits[0])
                tree["precision"] += sum(1 for hit in hits[:depth] if hit) / depth
                if len({c.category for c in callers}) > 1 and any(
                    c.category == "code" for c in callers
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
    emit({"mode": args.mode, "total": _shares(totals), "trees": trees}, args.out)


def _shares(counts: dict[str, float]) -> dict[str, float]:
    asked = counts["asked"] or 1
    return {
        "asked": int(counts["asked"]),
        "first_caller": round(counts["first_caller"] / asked, 3),
        "precision": round(counts["precision"] / asked, 3),
        "definition_before": round(counts["definition_before"] / asked, 3),
        "mixed": int(counts["mixed"]),
        "source_first": round(counts["source_first"] / (counts["mixed"] or 1), 3),
    }


if __name__ == "__main__":
    main()
