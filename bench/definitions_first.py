"""Does a bare name find its definition before the tests that use it? (not a test)

For repositories whose tests live inside the source files (Rust's ``mod tests``, Zig's
``test`` blocks), asks for every name that is defined exactly once outside tests and is
also mentioned by a test chunk, and counts how often the first result is that
definition. No annotations: the definitions table of the index is the answer key, so any
repository can be measured.

Builds a lexical index of each tree in a temporary copy (``--embed none``: identifier
queries lean on BM25, and the check should not wait for vectors), so the same command
run under two versions of the code compares them on the same trees. The names come
from the definitions this version records (``--save-names``); give the other version
the same list (``--names``), so both answer the same questions:

    python bench/definitions_first.py ripgrep zigimg --save-names names.json
    (other version) python bench/definitions_first.py ripgrep zigimg --names names.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from common import emit

from sleuth import Index

MAX_NAMES = 400


def _names(db: Path) -> dict[str, tuple[str, int]]:
    """Names defined once, by a definition outside tests (test folders, ``mod tests``),
    that a test chunk mentions: name -> (path, first line)."""
    from sleuth.search.filters import definition_category
    from sleuth.store.definitions import DefinitionRow

    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT d.name, f.path, d.start_line, f.language, d.kind, d.parent FROM definitions d"
        " JOIN files f ON f.id = d.file_id WHERE length(d.name) >= 4"
    ).fetchall()
    tests = " ".join(
        text
        for (text,) in con.execute(
            "SELECT c.text FROM chunks c WHERE c.kind = 'test' OR c.parent = 'tests'"
            " OR c.text LIKE '%#[test]%' OR c.symbol = 'tests'"
        )
    )
    con.close()
    count: dict[str, int] = {}
    for name, *_ in rows:
        count[name] = count.get(name, 0) + 1
    chosen = {}
    for name, path, line, language, kind, parent in sorted(rows):
        row = DefinitionRow(path, language or "", name, kind, parent, line, line, "")
        if count[name] == 1 and definition_category(row) == "code" and name in tests:
            chosen[name] = (path, line)
    return dict(list(chosen.items())[:MAX_NAMES])


def measure(tree: Path, given: dict | None) -> tuple[dict, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / tree.name
        shutil.copytree(tree, copy, ignore=shutil.ignore_patterns(".git", ".sleuth"))
        index = Index(copy)
        index.index(embed="none")
        names = given if given is not None else _names(copy / ".sleuth" / "meta.db")
        first = 0
        for name, (path, line) in names.items():
            results = index.search(name, k=10, mode="lexical").results
            top = results[0] if results else None
            if top and top.path == path and top.start_line <= line <= top.end_line:
                first += 1
        index.close()
    result = {
        "tree": tree.name,
        "names": len(names),
        "definition_first": first,
        "rate": round(first / len(names), 4) if names else None,
    }
    return result, names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--names", type=Path, help="ask these names (from --save-names)")
    parser.add_argument("--save-names", type=Path, help="write the names asked, per tree")
    args = parser.parse_args()
    given = json.loads(args.names.read_text()) if args.names else {}
    results, asked = [], {}
    for tree in args.trees:
        names = given.get(tree.name) if args.names else None
        if names is not None:
            names = {name: tuple(where) for name, where in names.items()}
        result, asked[tree.name] = measure(tree, names)
        results.append(result)
    if args.save_names:
        args.save_names.write_text(json.dumps(asked, indent=1) + "\n")
    emit(results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
