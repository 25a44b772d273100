"""Training pairs for the query adapter: a doc comment and the code it documents.

Reads the packages ``bench/static/build_corpus.py`` downloaded and extracted (none is a
repository of the search benchmark), chunks their files as ``sleuth index`` does, and
for every definition chunk with a doc comment writes the comment's first paragraph as a
question and the chunk without its comment as the answer, in the exact form the model
embeds (``embed_text``). Packages and files are sampled with a fixed seed, up to a
budget per package and per language, so no single package dominates.

    python bench/adapter/build_pairs.py --cache ~/.cache/sleuth-static
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

from sleuth.chunking import chunk_text
from sleuth.chunking.base import Chunk
from sleuth.prepare import decode, embed_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "static"))
from build_corpus import CODE_LANGUAGES, candidate_files

#: Line comment markers by language; block comments (/* */) count for the C family.
HASH = ("#",)
SLASH = ("///", "//!", "//", "/**", "/*", "*/", "*")
COMMENTS = {
    "python": HASH,
    "ruby": HASH,
    "bash": HASH,
    "elixir": HASH,
    "lua": ("---", "--"),
    "haskell": ("-- |", "-- ^", "--", "{-|", "{-", "-}"),
    "zig": ("///", "//!", "//"),
}
DEFINITIONS = {
    "function",
    "method",
    "class",
    "interface",
    "struct",
    "enum",
    "trait",
    "impl",
    "module",
    "type",
}
#: Comments that are not a description of the code below them.
NOISE = re.compile(
    r"^(copyright|licensed|license|spdx|todo|fixme|xxx|hack|eslint|prettier|noinspection|"
    r"nolint|@ts-|type: ?ignore|pylint|noqa|-\*-|see |deprecated|internal|private)",
    re.I,
)
SECTION = re.compile(
    r"^(args|arguments|parameters|params|returns?|raises|yields|examples?|notes?|"
    r"attributes|see also|usage|throws)\s*:?\s*$|^[:@]|^-{3,}$|^\.\. ",
    re.I,
)
INLINE_TAG = re.compile(r"\{@\w+\s+([^}]*)\}")


def markers(language: str) -> tuple[str, ...]:
    return COMMENTS.get(language, SLASH)


def is_comment(line: str, language: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and stripped.startswith(markers(language))


def strip_marker(line: str, language: str) -> str:
    text = line.strip()
    for marker in sorted(markers(language), key=len, reverse=True):
        if text.startswith(marker):
            text = text[len(marker) :]
            break
    return text.rstrip("*/").strip()


def first_paragraph(lines: list[str]) -> str:
    """The description: the comment's first paragraph, without tags and sections."""
    words: list[str] = []
    for line in lines:
        if not line:
            if words:
                break
            continue
        if SECTION.match(line) or line.startswith("```"):
            break
        if line.startswith("#"):  # a heading (rustdoc "# Examples"), or "##" openers
            if words:
                break
            line = line.lstrip("#").strip()
        words.extend(INLINE_TAG.sub(r"\1", line).split())
    return " ".join(words)


def python_docstring(lines: list[str], start: int) -> tuple[int, int] | None:
    """Line span [a, b) of the docstring after the ``def``/``class`` at ``start``."""
    i = start
    while i < len(lines) and not lines[i].rstrip().endswith(":"):
        i += 1
    i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines):
        return None
    head = lines[i].strip().lstrip("rRbBuU")
    quote = head[:3]
    if quote not in ('"""', "'''"):
        return None
    if head.count(quote) >= 2:
        return i, i + 1
    for j in range(i + 1, len(lines)):
        if quote in lines[j]:
            return i, j + 1
    return None


def split_doc(language: str, chunk: Chunk) -> tuple[str, str] | None:
    """(description, code without it), or None when the chunk has no usable comment."""
    lines = chunk.text.split("\n")
    name = chunk.symbol.split(".")[-1]
    if not name:
        return None
    head = next(
        (i for i, line in enumerate(lines) if name in line and not is_comment(line, language)),
        None,
    )
    if head is None:
        return None
    span: tuple[int, int] | None = None
    if language == "python":
        span = python_docstring(lines, head)
        raw = [] if span is None else [x.strip().strip("\"'").strip() for x in lines[slice(*span)]]
    else:
        top = head
        while top > 0 and (
            is_comment(lines[top - 1], language) or lines[top - 1].strip().startswith(("@", "#["))
        ):
            top -= 1
        comment = [i for i in range(top, head) if is_comment(lines[i], language)]
        if comment:
            span = (comment[0], comment[-1] + 1)
        raw = [strip_marker(lines[i], language) for i in comment]
    if span is None:
        return None
    text = first_paragraph(raw)
    words = text.split()
    if not 4 <= len(words) <= 60 or NOISE.match(text):
        return None
    if sum(w.isalpha() for w in words) < 0.6 * len(words):
        return None
    code = lines[: span[0]] + lines[span[1] :]
    if sum(1 for line in code if line.strip()) < 2:
        return None
    return " ".join(words[:40]), "\n".join(code)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sleuth-static")
    parser.add_argument("--per-package", type=int, default=300)
    parser.add_argument("--per-language", type=int, default=2500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    by_language: dict[str, list[dict]] = defaultdict(list)
    for root in sorted((args.cache / "src").iterdir()):
        if root.name.endswith(".part"):
            continue
        package = root.name
        pairs: list[dict] = []
        found = candidate_files(root, package)
        files = [
            (lang, disk, shown)
            for lang, items in found.items()
            if lang in CODE_LANGUAGES
            for disk, shown in items
        ]
        rng.shuffle(files)
        for language, disk, shown in files:
            if len(pairs) >= args.per_package:
                break
            path = root / disk
            if path.stat().st_size > 400_000:
                continue
            text = decode(path.read_bytes())
            if text is None:
                continue
            chunks, _ = chunk_text(language, text)
            for chunk in chunks:
                if chunk.kind not in DEFINITIONS:
                    continue
                found_doc = split_doc(language, chunk)
                if found_doc is None:
                    continue
                question, code = found_doc
                bare = dataclasses.replace(chunk, text=code)
                pairs.append(
                    {
                        "pkg": package,
                        "lang": language,
                        "path": shown,
                        "query": question,
                        "doc": embed_text(shown, bare),
                        "full": embed_text(shown, chunk),
                    }
                )
        for pair in pairs[: args.per_package]:
            by_language[pair["lang"]].append(pair)
        print(f"{package:60} {min(len(pairs), args.per_package):4} pairs", flush=True)
    rows: list[dict] = []
    for language in sorted(by_language):
        items = by_language[language]
        rng.shuffle(items)
        rows.extend(items[: args.per_language])
        print(f"{language:12} {min(len(items), args.per_language):5} pairs")
    out = args.out or args.cache / "pairs.jsonl"
    with open(out, "w") as sink:
        sink.writelines(json.dumps(row) + "\n" for row in rows)
    print(f"total {len(rows)} pairs in {out}")


if __name__ == "__main__":
    main()
