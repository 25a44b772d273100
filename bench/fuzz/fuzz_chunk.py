"""Coverage-guided fuzzing of the chunker: ``chunk_text`` over every grammar.

The first byte picks the language, the rest is the file. Any exception is a finding
(the chunker falls back to line windows by itself on what it expects); so is a chunk
outside the file's lines, a hang (``-timeout``) or runaway memory. A parse halted by
its budget leaks in the tree-sitter binding (docs/decisions.md), so give
``-rss_limit_mb`` room. Seed the corpus with small real files (``--seed-from``).

    python bench/fuzz/fuzz_chunk.py --seed-from ~/src /tmp/chunk-corpus
    python bench/fuzz/fuzz_chunk.py /tmp/chunk-corpus -max_total_time=900 -timeout=15 \\
        -rss_limit_mb=12000
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from sleuth.chunking import chunk_text
    from sleuth.languages import GRAMMARS, language_for, parser_for

#: Every language with an installed grammar, in a fixed order (the first byte's index).
LANGUAGES = sorted(name for name in GRAMMARS if parser_for(name) is not None)
SEED_BYTES = 3_000
SEEDS_PER_LANGUAGE = 6


def one(data: bytes) -> None:
    if not data:
        return
    language = LANGUAGES[data[0] % len(LANGUAGES)]
    text = data[1:].decode("utf-8", errors="replace")
    chunks, _ = chunk_text(language, text)
    lines = text.count("\n") + 1
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= lines, (language, chunk)


def seed(source: Path, corpus: Path) -> None:
    """Up to six small files per language from ``source``, each behind its language byte."""
    by_language: dict[str, list[Path]] = {name: [] for name in LANGUAGES}
    for path in source.rglob("*"):
        if ".sleuth" in path.parts or not path.is_file() or path.stat().st_size > SEED_BYTES:
            continue
        name = language_for(str(path))
        if name in by_language:
            by_language[name].append(path)
    corpus.mkdir(parents=True, exist_ok=True)
    random.seed(0)
    for name, paths in by_language.items():
        for i, path in enumerate(random.sample(paths, min(SEEDS_PER_LANGUAGE, len(paths)))):
            data = bytes([LANGUAGES.index(name)]) + path.read_bytes()
            (corpus / f"{name}-{i}").write_bytes(data)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--seed-from":
        seed(Path(sys.argv[2]).expanduser(), Path(sys.argv[3]))
        sys.exit(0)
    atheris.Setup(sys.argv, one)
    atheris.Fuzz()
