"""Does a bare name find its definition first, in any indexed tree? (not a test)

Samples names defined exactly once in each index (by their short name: ``setup`` for
Lua's ``M.setup``; five letters or more; modules, impl blocks, tests and re-exports
left out), asks ``Index.search`` for each name as written, and counts how often the
first result is the chunk holding that definition. No annotations: the definitions
table is the answer key, so trees nobody annotated (the benchmark's other repositories,
any checkout) can be measured, per language. The indexes must exist (``sleuth
index``); nothing is indexed.

With ``--by-kind N``, up to N names are asked per tree for each kind of definition and
each case style of the name (``low``, ``Cap``, ``UPPER``; a leading ``_`` aside), and
the counts are by that pair instead of by language: a kind the ranking neglects (a
macro, a constant written in CamelCase) shows up even where it is rare.

    python bench/definition_lookup.py ~/.cache/sleuth-bench/repos --per-index 40
    python bench/definition_lookup.py ~/.cache/sleuth-bench/test --out lookup.json
    python bench/definition_lookup.py ~/.cache/sleuth-bench/repos --by-kind 15
"""

from __future__ import annotations

import argparse
import random
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

from common import emit, indexed_trees

from sleuth import Index
from sleuth.tokens import short_name


def _unique_names(root: Path) -> list[tuple[str, str, str, int, str]]:
    """(path, language, name, first line, kind) of definitions whose short name is
    unique."""
    con = sqlite3.connect(root / ".sleuth" / "meta.db")
    rows = con.execute(
        "SELECT f.path, f.language, d.name, d.start_line, d.kind FROM definitions d"
        " JOIN files f ON f.id = d.file_id"
        " WHERE d.kind NOT IN ('module', 'impl', 'test', 'reexport')"
    ).fetchall()
    con.close()
    by_name: dict[str, list] = defaultdict(list)
    for row in rows:
        by_name[short_name(row[2]).lower()].append(row)
    return [
        found[0]
        for key, found in sorted(by_name.items())
        if len(found) == 1 and len(key) >= 5 and key.isidentifier()
    ]


def _case(name: str) -> str:
    bare = name.lstrip("_")
    if bare.isupper():
        return "UPPER"
    return "Cap" if bare[:1].isupper() else "low"


def _samples(names: list, per_index: int, by_kind: int, rng: random.Random) -> list:
    """The names to ask in one tree, with the key they are counted under."""
    if not by_kind:
        return [(row, row[1]) for row in rng.sample(names, min(per_index, len(names)))]
    groups: dict[str, list] = defaultdict(list)
    for row in names:
        groups[f"{row[4]}/{_case(short_name(row[2]))}"].append(row)
    return [
        (row, key)
        for key, rows in sorted(groups.items())
        for row in rng.sample(rows, min(by_kind, len(rows)))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders holding indexed trees")
    parser.add_argument("--per-index", type=int, default=40, help="names asked per tree")
    parser.add_argument("--by-kind", type=int, default=0, help="names per kind and case")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    first, asked = Counter(), Counter()
    misses: dict[str, list[list[str]]] = defaultdict(list)
    roots = indexed_trees(args.folders)
    for root in roots:
        names = _unique_names(root)
        index = Index(root)
        try:
            for (path, _, name, line, _), key in _samples(names, args.per_index, args.by_kind, rng):
                query = short_name(name)
                results = index.search(query, k=1).results
                asked[key] += 1
                top = results[0] if results else None
                if top and top.path == path and top.start_line <= line <= top.end_line:
                    first[key] += 1
                else:
                    misses[key].append([root.name, query, top.path if top else ""])
        finally:
            index.close()
    emit(
        {
            "trees": len(roots),
            "asked": sum(asked.values()),
            "first": sum(first.values()),
            "by_kind" if args.by_kind else "by_language": {
                key: {
                    "asked": asked[key],
                    "first": first[key],
                    "share": round(first[key] / asked[key], 3),
                    "misses": misses[key][:5],
                }
                for key in sorted(asked)
            },
        },
        args.out,
    )


if __name__ == "__main__":
    main()
