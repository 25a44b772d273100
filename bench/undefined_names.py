"""Does a name that nothing defines find the chunks holding it? (not a test)

A name asked for alone is usually a definition's, and the definitions table ranks it
(``definition_lookup.py``). Some names have no definition the index knows: a function
in a file no grammar reads (a yacc grammar's C code, Cython), a setting's key, an
environment variable, a field read from a dictionary, a macro built by token pasting.
This script samples such names from each index: identifiers of two words or more (by
``tokens.split_identifier``; eight characters or more) written in one to five chunks,
none of them named by a definition of any case. It asks ``Index.search`` for each name
as written and counts how often the first result holds it (as a whole word), and the
reciprocal rank of the first that does. Each name is asked with
``signals.SIGNALS["undefined_name_first"]`` as shipped and switched off, in one run.

No annotations: the chunks' own text is the answer key. The indexes must exist
(``sleuth index`` or ``sleuth bench``); nothing is indexed.

    python bench/undefined_names.py ~/.cache/sleuth-bench/repos --per-index 20
    python bench/undefined_names.py /tmp/trees --mode lexical --out undefined.json
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
from collections import defaultdict
from pathlib import Path

from common import emit, first_overlap, indexed_trees

from sleuth import Index
from sleuth.search.ranking import signals
from sleuth.tokens import split_identifier

_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{7,}\b")
#: Chunks a sampled name is written in, at most: a name written everywhere is no
#: question anyone asks by name.
MAX_HOLDERS = 5


def sample_names(root: Path, per_index: int, seed: int) -> dict[str, set[tuple[str, int, int]]]:
    """name -> the (path, first line, last line) of each chunk holding it."""
    con = sqlite3.connect(root / ".sleuth" / "meta.db")
    holders: dict[str, set[tuple[str, int, int]]] = defaultdict(set)
    rows = con.execute(
        "SELECT f.path, c.start_line, c.end_line, c.text FROM chunks c"
        " JOIN files f ON f.id = c.file_id"
    )
    for path, start, end, text in rows:
        for name in set(_IDENTIFIER.findall(text)):
            holders[name].add((path, start, end))
    defined = {name.lower() for (name,) in con.execute("SELECT DISTINCT name FROM definitions")}
    con.close()
    names = sorted(
        name
        for name, spans in holders.items()
        if len(spans) <= MAX_HOLDERS
        and name.lower() not in defined
        and len(split_identifier(name.strip("_"))) >= 2
    )
    random.Random(f"{seed}:{root.name}").shuffle(names)
    return {name: holders[name] for name in names[:per_index]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders holding indexed trees")
    parser.add_argument("--per-index", type=int, default=20, help="names asked per tree")
    parser.add_argument("--mode", default="hybrid", choices=("hybrid", "lexical"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    shipped = signals.SIGNALS["undefined_name_first"]
    variants = {"shipped": shipped, "off": False}
    totals = {v: {"names": 0, "first": 0, "mrr": 0.0} for v in variants}
    trees = {}
    for root in indexed_trees(args.folders):
        names = sample_names(root, args.per_index, args.seed)
        if not names:
            continue
        index = Index(root)
        tree = {v: {"names": len(names), "first": 0, "mrr": 0.0} for v in variants}
        for name, spans in names.items():
            for variant, switch in variants.items():
                signals.SIGNALS["undefined_name_first"] = switch
                try:
                    results = index.search(name, k=10, mode=args.mode).results
                finally:
                    signals.SIGNALS["undefined_name_first"] = shipped
                place = first_overlap(results, spans)
                tree[variant]["first"] += place == 1
                tree[variant]["mrr"] += 1.0 / place if place else 0.0
        index.close()
        for variant, counts in tree.items():
            for key in ("names", "first", "mrr"):
                totals[variant][key] += counts[key]
            counts["mrr"] = round(counts["mrr"] / counts["names"], 3)
        trees[root.name] = tree
    for counts in totals.values():
        counts["mrr"] = round(counts["mrr"] / counts["names"], 3) if counts["names"] else 0.0
    emit(
        {"mode": args.mode, "per_index": args.per_index, "total": totals, "trees": trees}, args.out
    )


if __name__ == "__main__":
    main()
