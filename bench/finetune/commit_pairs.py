"""Question/code pairs from git history: a commit's subject and the chunk it changed most.

Doc comments name the code they describe, so a model trained on them learns what BM25
already does (docs/benchmarks.md, sixteenth round). A commit subject says what a change
does in the words of whoever made it ("Add support for TLS WebSocket proxy"), and the
chunk the diff touches most is where that happens: pairs closer to the questions sleuth
gets. Mirrors of repositories outside the search benchmark only (the list used is in
bench/README.md), or the measurement would leak.

One pair per commit that changes exactly one source file (tests, docs and config do not
count; at most two files in all) in one to three chunks, with a subject that describes
behaviour: housekeeping (``commit_queries`` rules) and subjects about comments, tests,
builds, formatting or dependencies are dropped. Writes JSONL rows as
``bench/adapter/build_pairs.py`` does (``pkg``, ``lang``, ``path``, ``query``, ``doc``),
which ``train.py`` reads.

    python bench/finetune/commit_pairs.py --out pairs.jsonl /work/.mirror/pallets+werkzeug/repo ...
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from commit_queries import BENCH, _clean, _commits, _is_source
from common import bench_module

from sleuth.chunking import chunk_text
from sleuth.languages import language_for
from sleuth.prepare import decode, embed_text

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)
#: Subjects about the code's surroundings rather than what it does.
_NOT_BEHAVIOUR = re.compile(
    r"\b(comments?|docstrings?|docs?|documentation|doc-?comment|tests?|specs?|testing"
    r"|compil\w*|warnings?|scalafmt|rustfmt|clippy|reformat\w*|refactor\w*|simplif\w*"
    r"|binary size|examples?|ci"
    r"|build|builds|typing|types? hints?|mypy|annotations?|readme|unused|imports?|spelling"
    r"|wording|grammar|tidy|nits?|minor|small|wip|todo|fixme|coverage|benchmarks?|perf"
    r"|deps|dependenc\w*|upgrade|update \w+ to|msrv|edition|clean\w*|move|moved|moving"
    r"|reorder\w*|dead code|workaround for \w+ bug)\b",
    re.I,
)
MAX_CHANGED_LINES = 200
MAX_FILE_BYTES = 400_000


def source_language(path: str) -> str | None:
    """The language of a source file, or None for tests, docs, config and the unknown."""
    language = language_for(path)
    return language if _is_source(path, language) else None


def changed_lines(diff: str) -> set[int]:
    """Line numbers of the new file that a ``diff -U0`` adds or replaces (a deletion
    counts as the line after it)."""
    lines: set[int] = set()
    for match in _HUNK.finditer(diff):
        start, count = int(match.group(1)), int(match.group(2) or 1)
        lines.update(range(start, start + max(count, 1)))
    return lines


def pair_of(prepare: ModuleType, git_dir: Path, sha: str, path: str, language: str) -> dict | None:
    """The chunk of ``path`` after commit ``sha`` that holds most of its changed lines."""
    diff = prepare.git(
        git_dir, "diff", "-U0", f"{sha}^", sha, "--", path, text=True, errors="replace"
    )
    changed = changed_lines(diff.stdout)
    if not changed or len(changed) > MAX_CHANGED_LINES:
        return None
    text = decode(prepare.git(git_dir, "show", f"{sha}:{path}").stdout)
    if not text or len(text) > MAX_FILE_BYTES:
        return None
    chunks, _ = chunk_text(language, text)
    touched = [(len(changed.intersection(range(c.start_line, c.end_line + 1))), c) for c in chunks]
    touched = [(count, chunk) for count, chunk in touched if count]
    if not touched or len(touched) > 3:
        return None
    _, best = max(touched, key=lambda item: item[0])
    if best.kind == "imports" or best.end_line - best.start_line < 2:
        return None
    return {"lang": language, "path": path, "doc": embed_text(path, best), "kind": best.kind}


def pairs_of(prepare: ModuleType, git_dir: Path, limit: int) -> list[dict]:
    """Pairs from the newest ``limit`` commits of one mirror."""
    out = []
    for sha, subject, paths in _commits(git_dir, "HEAD", "", limit, partial=True):
        question = _clean(subject)
        if question is None or _NOT_BEHAVIOUR.search(question) or not 1 <= len(paths) <= 2:
            continue
        sources = [(p, lang) for p in paths if (lang := source_language(p))]
        if len(sources) != 1:
            continue
        pair = pair_of(prepare, git_dir, sha, *sources[0])
        if pair is not None:
            out.append({"pkg": git_dir.parent.name, "query": question, **pair})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mirrors", nargs="+", type=Path, help="bare git directories")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--commits", type=int, default=4000, help="history read per mirror")
    parser.add_argument("--bench-dir", type=Path, default=BENCH, help="for its git helper")
    args = parser.parse_args()
    prepare = bench_module(args.bench_dir, "prepare")
    with args.out.open("w") as out:
        for git_dir in args.mirrors:
            rows = pairs_of(prepare, git_dir, args.commits)
            for row in rows:
                out.write(json.dumps(row) + "\n")
            print(f"{git_dir.parent.name}: {len(rows)} pairs", file=sys.stderr)


if __name__ == "__main__":
    main()
