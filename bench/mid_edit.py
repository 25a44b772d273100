"""Definitions a file keeps while it is mid-edit (not a test).

An editor or an agent saves files half-written, and the live index re-reads them at
once. This script takes real files of indexed trees, edits one line in the middle half
of each halfway (``--edit``: its closing bracket dropped, a string opened with ``"`` or
``'``, the line cut in half, a new line half typed above it (``insert``: the first
half of another line of the middle, at its indentation); or the first line of a class
or module holding two definitions or more cut in half, ``header``), and counts how
many of the file's definitions (name and kind; and names alone) the chunker still
finds: with the broken unit read apart (``treesitter.repair.isolated``, as shipped) and
without (``REPAIRS = 0``), in the same run. It also counts the files that lose half
their definitions or more.

    python bench/mid_edit.py ~/.cache/sleuth-bench/repos /tmp/trees --per-language 60
"""

from __future__ import annotations

import argparse
import os
import random
from collections import defaultdict
from pathlib import Path

from common import emit

from sleuth.chunking import chunk_text
from sleuth.chunking.base import Definition
from sleuth.chunking.treesitter import repair
from sleuth.languages import language_of

#: Languages read by a grammar whose definitions the chunker names.
LANGUAGES = frozenset(
    {
        "bash", "c", "cpp", "csharp", "elixir", "go", "haskell", "java", "javascript",
        "kotlin", "lua", "php", "python", "ruby", "rust", "scala", "swift", "tsx",
        "typescript", "zig",
    }
)  # fmt: skip
#: Files of this size in bytes are measured: big enough to hold several definitions.
SIZES = (2_000, 200_000)


def files_by_language(roots: list[Path]) -> dict[str, list[tuple[Path, str]]]:
    found: dict[str, list[tuple[Path, str]]] = defaultdict(list)
    for root in roots:
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in (".git", ".sleuth", "node_modules"))
            for name in sorted(names):
                path = Path(folder) / name
                try:
                    if path.is_symlink() or not SIZES[0] < path.stat().st_size < SIZES[1]:
                        continue
                    text = path.read_text("utf-8")
                except (OSError, UnicodeError):
                    continue
                language = language_of(str(path), text)
                if language in LANGUAGES:
                    found[language].append((path, text))
    return found


def half_edited(
    text: str, rng: random.Random, edit: str = "bracket", definitions: list[Definition] = ()
) -> str | None:
    """The text with one line of its middle half edited halfway: its last closing
    bracket dropped (``bracket``), a string opened at its end (``quote``, ``squote``:
    with a single quote), the line cut at half its length (``cut``), or half of another
    line typed above it (``insert``); with ``header``, the first line of one of the
    ``definitions`` that holds others is cut."""
    lines = text.split("\n")
    quarter = len(lines) // 4
    middle = range(quarter, len(lines) - quarter)
    if edit == "bracket":
        holding = [i for i in middle if any(c in lines[i] for c in ")]}")]
    elif edit == "header":
        holding = _headers(lines, definitions)
    else:
        holding = [i for i in middle if len(lines[i].strip()) > 3]
    if not holding:
        return None
    i = rng.choice(holding)
    line = lines[i]
    if edit == "bracket":
        cut = max(line.rfind(c) for c in ")]}")
        lines[i] = line[:cut] + line[cut + 1 :]
    elif edit == "quote":
        lines[i] = line + ' "'
    elif edit == "squote":
        lines[i] = line + " '"
    elif edit == "insert":  # a new line half typed, above this one at its indentation
        typed = rng.choice(holding)
        words = lines[typed].strip()
        indent = line[: len(line) - len(line.lstrip())]
        lines.insert(i, indent + words[: max(1, len(words) // 2)])
    else:
        lines[i] = line[: len(line) - len(line.strip()) // 2]
    return "\n".join(lines)


def _headers(lines: list[str], definitions: list[Definition]) -> list[int]:
    """Rows of the signature lines of the classes and modules holding two definitions
    or more (their attributes above them aside)."""
    rows = []
    for d in definitions:
        inside = [o for o in definitions if d.start_line < o.start_line <= d.end_line]
        if d.kind not in CONTAINERS or len(inside) < 2:
            continue
        row = next(
            (
                i
                for i in range(d.start_line - 1, min(d.end_line, len(lines)))
                if d.signature and lines[i].strip().startswith(d.signature[:20])
            ),
            d.start_line - 1,
        )
        if len(lines[row].strip()) > 3:
            rows.append(row)
    return sorted(set(rows))


#: Definitions that hold others: a broken header may cost all of them.
CONTAINERS = frozenset({"class", "struct", "interface", "enum", "trait", "impl", "module"})


def read(language: str, text: str, repairs: int) -> list[Definition]:
    """The definitions the chunker finds with ``repairs`` second readings allowed."""
    repair.REPAIRS = repairs
    return chunk_text(language, text)[1]


def named(language: str, text: str, repairs: int) -> set[tuple[str, str]]:
    return {(d.name, d.kind) for d in read(language, text, repairs)}


def measure(roots: list[Path], per_language: int, seed: int, edit: str = "bracket") -> dict:
    rng = random.Random(seed)
    shipped = repair.REPAIRS
    out: dict[str, dict] = {}
    for language, group in sorted(files_by_language(roots).items()):
        rng.shuffle(group)
        totals: dict[str, int] = defaultdict(int)
        for _path, text in group[:per_language]:
            definitions = read(language, text, shipped)
            whole = {(d.name, d.kind) for d in definitions}
            edited = half_edited(text, rng, edit, definitions)
            if len(whole) < 3 or edited is None:
                continue
            plain = whole & named(language, edited, 0)
            apart_all = named(language, edited, shipped)
            apart = whole & apart_all
            totals["files"] += 1
            totals["definitions"] += len(whole)
            totals["kept_plain"] += len(plain)
            totals["kept_apart"] += len(apart)
            totals["half_lost_plain"] += len(plain) * 2 < len(whole)
            totals["half_lost_apart"] += len(apart) * 2 < len(whole)
            # by name alone: a method read as a free function still answers for its name
            names = {name for name, _ in whole}
            totals["names"] += len(names)
            totals["names_apart"] += len(names & {name for name, _ in apart_all})
        repair.REPAIRS = shipped
        if totals["files"]:
            out[language] = {
                "files": totals["files"],
                "kept_without": round(totals["kept_plain"] / totals["definitions"], 3),
                "kept_with": round(totals["kept_apart"] / totals["definitions"], 3),
                "files_losing_half_without": totals["half_lost_plain"],
                "files_losing_half_with": totals["half_lost_apart"],
                "names_kept_with": round(totals["names_apart"] / totals["names"], 3),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="+", type=Path, help="folders of source trees")
    parser.add_argument("--per-language", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--edit",
        choices=["bracket", "quote", "squote", "cut", "header", "insert"],
        default="bracket",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    emit(measure(args.roots, args.per_language, args.seed, args.edit), args.out)


if __name__ == "__main__":
    main()
