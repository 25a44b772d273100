"""Does a bare name find its definition first, in any indexed tree? (not a test)

Samples names defined exactly once in each index (by their short name: ``setup`` for
Lua's ``M.setup``; five letters or more; modules, impl blocks, tests and re-exports
left out), asks ``Index.search`` for each name as written, and counts how often the
first result is the chunk holding that definition. No annotations: the definitions
table is the answer key, so trees nobody annotated (the benchmark's other repositories,
any checkout) can be measured, per language. The indexes must exist (``sleuth
index``); nothing is indexed.

    python bench/definition_lookup.py ~/.cache/sleuth-bench/repos --per-index 40
    python bench/definition_lookup.py ~/.cache/sleuth-bench/test --out lookup.json
"""

from __future__ import annotations

import argparse
import random
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

from common import emit

from sleuth import Index
from sleuth.tokens import short_name


def _indexes(folders: list[Path]) -> list[Path]:
    """Every indexed tree under the folders (the folder holding ``.sleuth/meta.db``)."""
    found = {meta.parent.parent for folder in folders for meta in folder.rglob(".sleuth/meta.db")}
    return sorted(found)


def _unique_names(root: Path) -> list[tuple[str, str, str, int]]:
    """(path, language, name, first line) of definitions whose short name is unique."""
    con = sqlite3.connect(root / ".sleuth" / "meta.db")
    rows = con.execute(
        "SELECT f.path, f.language, d.name, d.start_line FROM definitions d"
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders holding indexed trees")
    parser.add_argument("--per-index", type=int, default=40, help="names asked per tree")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    first, asked = Counter(), Counter()
    misses: dict[str, list[list[str]]] = defaultdict(list)
    roots = _indexes(args.folders)
    for root in roots:
        names = _unique_names(root)
        index = Index(root)
        try:
            for path, language, name, line in rng.sample(names, min(args.per_index, len(names))):
                query = short_name(name)
                results = index.search(query, k=1).results
                asked[language] += 1
                top = results[0] if results else None
                if top and top.path == path and top.start_line <= line <= top.end_line:
                    first[language] += 1
                else:
                    misses[language].append([root.name, query, top.path if top else ""])
        finally:
            index.close()
    emit(
        {
            "trees": len(roots),
            "asked": sum(asked.values()),
            "first": sum(first.values()),
            "by_language": {
                language: {
                    "asked": asked[language],
                    "first": first[language],
                    "share": round(first[language] / asked[language], 3),
                    "misses": misses[language][:5],
                }
                for language in sorted(asked)
            },
        },
        args.out,
    )


if __name__ == "__main__":
    main()
