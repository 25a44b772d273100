"""Identifier look-ups checked against an outside reading of the code (not a test).

For each indexed tree, names that universal-ctags (``ctags``, a system package) finds
defined exactly once, outside tests, examples and vendored folders, are asked alone;
a name is found when the first answer is the chunk holding the line ctags gives. The
misses, grouped by ctags' language and kind, point at definitions the chunker does not
record (C ``#define`` constants, Haskell constructors, Zig error sets were found so);
many are ctags' own reading (anonymous functions, PHP ``use`` aliases, Rust ``impl``
blocks), to be read, not counted. (``definition_lookup.py`` asks the same question with
sleuth's own definitions as the key, so it cannot see a definition the chunker misses.)

    python bench/identifier_audit.py ~/.cache/sleuth-bench/probes/*
    python bench/identifier_audit.py --per-tree 40 --examples 10 ~/.cache/sleuth-bench/repos/*/
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

from sleuth import Index

#: ctags kinds that name a definition a person would look up.
KINDS = frozenset(
    {
        "class", "struct", "function", "method", "enum", "interface", "typedef", "type",
        "trait", "module", "union", "protocol", "object", "func", "implementation", "macro",
        "singletonMethod", "record", "alias", "constructor", "namespace", "typeAlias",
    }
)  # fmt: skip
#: ctags' names of the languages sleuth reads with a grammar.
LANGUAGES = frozenset(
    {
        "C", "C++", "Go", "Rust", "Java", "Kotlin", "Swift", "Python", "Ruby", "PHP",
        "JavaScript", "TypeScript", "C#", "Scala", "Elixir", "Haskell", "Lua", "Zig", "Sh",
    }
)  # fmt: skip
#: Paths left out: a name there is rarely what someone looks up.
SKIPPED_PATHS = re.compile(
    r"(^|/)(tests?|spec|specs|__tests__|examples?|vendor|third_party|node_modules|docs?"
    r"|bench(mark)?s?|testdata|fixtures?)/|_test\.|\.test\.|Tests?\.|test_",
    re.I,
)
PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def defined_once(root: Path) -> list[dict]:
    """ctags' tags of ``root`` whose name is defined nowhere else in the tree."""
    listing = subprocess.run(
        ["ctags", "-R", "--output-format=json", "--fields=+nKl", "-f", "-", "--exclude=.sleuth"],
        cwd=root,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    by_name: dict[str, list[dict]] = collections.defaultdict(list)
    for line in listing:
        try:
            tag = json.loads(line)
        except json.JSONDecodeError:
            continue
        if tag.get("_type") == "tag":
            by_name[tag["name"]].append(tag)
    return [
        tags[0]
        for name, tags in by_name.items()
        if len(tags) == 1
        and len(name) >= 4
        and PLAIN_NAME.fullmatch(name)
        and tags[0].get("kind") in KINDS
        and tags[0].get("language") in LANGUAGES
        and not SKIPPED_PATHS.search(tags[0]["path"])
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="+", type=Path, help="indexed trees")
    parser.add_argument("--per-tree", type=int, default=25, help="names asked per tree")
    parser.add_argument("--examples", type=int, default=6, help="misses shown per group")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if shutil.which("ctags") is None:
        parser.error("ctags is not installed (Debian: universal-ctags)")
    rng = random.Random(args.seed)
    asked: collections.Counter = collections.Counter()
    missed: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for root in args.roots:
        if not (root / ".sleuth").is_dir():
            continue
        tags = defined_once(root)
        rng.shuffle(tags)
        index = Index(root)
        for tag in tags[: args.per_tree]:
            group = (tag["language"], tag["kind"])
            asked[group] += 1
            path, line = tag["path"].removeprefix("./"), tag["line"]
            results = index.search(tag["name"], k=10).results
            top = results[0] if results else None
            if top and top.path == path and top.start_line <= line <= top.end_line:
                continue
            shown = f"{top.path}:{top.start_line}-{top.end_line} {top.symbol}" if top else "-"
            missed[group].append(f"{root.name}: {tag['name']} @ {path}:{line}  first: {shown}")
        index.close()
    for group in sorted(missed, key=lambda g: -len(missed[g])):
        print(f"{group[0]} {group[1]}: {len(missed[group])} of {asked[group]} missed")
        for line in missed[group][: args.examples]:
            print("   ", line)
    print(f"all: {sum(map(len, missed.values()))} of {sum(asked.values())} missed")


if __name__ == "__main__":
    main()
