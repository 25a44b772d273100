"""How many functions the chunker names, per language (not a test)

A grammar that misreads one construct can lose every definition after it, and nothing
fails: the file is still indexed, as unnamed blocks. This script re-chunks the files of
indexed trees with the current code and counts, per language, (1) the functions declared
with the language's keyword (``def``, ``fn``, ``func``, ``fun``, ``function``, method
modifiers in Java and C#) whose name the chunker records as a definition of that file,
and (2) the share of lines left in unnamed blocks (C and C++, which declare functions
with no keyword, get only this). Keyword lines inside strings or comments count
as misses too, so a share just under 1 is the ceiling. Nothing is indexed or searched.

    python bench/definition_coverage.py ~/.cache/sleuth-bench --misses 5
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

from common import emit

from sleuth.chunking import chunk_text

_MODIFIERS = r"(?:(?:public|private|protected|internal|static|final|abstract|override|open)\s+)"
#: The name a line declares with the language's function keyword (group 1).
DECLARED = {
    "python": r"\s*(?:async\s+)?def\s+(\w+)",
    "ruby": r"\s*def\s+(?:self\.)?([\w?!=]+)",
    "elixir": r"\s*(?:def|defp|defmacro|defmacrop)\s+(\w+[?!]?)",
    "go": r"func\s+(?:\([^)]*\)\s*)?(\w+)",
    "rust": r"\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe)\s+)*fn\s+(\w+)",
    "zig": r"\s*(?:pub\s+)?(?:inline\s+)?fn\s+(\w+)",
    "lua": r"\s*(?:local\s+)?function\s+(?:[\w.]+[.:])?(\w+)",
    "php": r"\s*" + _MODIFIERS + r"*function\s+&?(\w+)\s*\(",
    "swift": r"\s*(?:@\w+\s+)*(?:(?:public|private|internal|fileprivate|open|static|class"
    r"|final|override|mutating)\s+)*func\s+(\w+)",
    "scala": r"\s*(?:(?:override|private|protected|final|implicit|inline)\s+)*def\s+"
    r"(\w+(?:_[^\s\w(\[:]+)?)",  # unary_- too
    "kotlin": r"\s*(?:(?:public|private|internal|protected|override|suspend|inline|operator"
    r"|infix|open|abstract|tailrec)\s+)*fun\s+(?:<[^>]*>\s*)?(?:[\w.<>?*]+\.)?(\w+)\s*\(",
    "java": r"\s*" + _MODIFIERS + r"+(?:<[^>]+>\s+)?[\w.<>\[\],? ]+\s+(\w+)\s*\([^;]*$",
    "csharp": r"\s*(?:(?:public|private|protected|internal|static|virtual|override|abstract"
    r"|async|sealed)\s+)+[\w.<>\[\],? ]+\s+(\w+)\s*(?:<[^>]*>)?\s*\([^;]*$",
    "typescript": r"\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b\s*\*?\s*(\w+)",
    "javascript": r"\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b\s*\*?\s*(\w+)",
    # a top-level type signature: `parseBlocks :: PandocMonad m => ..`
    "haskell": r"([a-z_][\w']*)\s*::",
}
_NO_KEYWORD = ("c", "cpp")
_STATEMENT_WORDS = {"if", "for", "while", "switch", "return", "new", "catch"}


def _trees(folders: list[Path]) -> list[Path]:
    found = {meta.parent.parent for folder in folders for meta in folder.rglob(".sleuth/meta.db")}
    return sorted(found)


def _last_part(name: str) -> str:
    return re.split(r"::|[.:#]", name)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders holding indexed trees")
    parser.add_argument("--misses", type=int, default=3, help="sampled misses per language")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    declared = {language: re.compile(pattern) for language, pattern in DECLARED.items()}
    named, total, lines, unnamed = Counter(), Counter(), Counter(), Counter()
    misses: dict[str, list[str]] = defaultdict(list)
    for root in _trees(args.folders):
        con = sqlite3.connect(root / ".sleuth" / "meta.db")
        files = con.execute(
            "SELECT path, language FROM files WHERE skip_reason IS NULL AND language IS NOT NULL"
        ).fetchall()
        con.close()
        for path, language in files:
            if language not in declared and language not in _NO_KEYWORD:
                continue
            try:
                text = (root / path).read_text(errors="replace")
            except OSError:
                continue
            chunks, definitions = chunk_text(language, text)
            lines[language] += text.count("\n") + 1
            unnamed[language] += sum(
                c.end_line - c.start_line + 1 for c in chunks if c.kind in ("block", "window")
            )
            if language in _NO_KEYWORD:
                continue
            names = {_last_part(d.name) for d in definitions}
            for number, line in enumerate(text.split("\n"), 1):
                match = declared[language].match(line)
                if match is None or match.group(1) in _STATEMENT_WORDS:
                    continue
                total[language] += 1
                if match.group(1) in names:
                    named[language] += 1
                else:
                    misses[language].append(f"{root.name}/{path}:{number}")
    rng = random.Random(1)
    emit(
        {
            "trees": len(_trees(args.folders)),
            "by_language": {
                language: {
                    "declared": total[language],
                    "named": named[language],
                    "share": round(named[language] / max(1, total[language]), 3),
                    "unnamed_line_share": round(unnamed[language] / lines[language], 3),
                    "misses": rng.sample(misses[language], min(args.misses, len(misses[language]))),
                }
                for language in sorted(lines)
            },
        },
        args.out,
    )


if __name__ == "__main__":
    main()
