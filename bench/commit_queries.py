"""Do commit subjects find the file they changed? (not a test)

A commit that changed one source file often says in its subject what that file does
("add back opening session on context push"). For each benchmark tree that `sleuth
bench`, `prepare.py` or `export_unpinned.py` exported and that was indexed, and whose
git mirror is here, recent commits before the indexed revision that change exactly one
indexed source file under the tree become questions: the subject (less issue numbers
and ``type(scope):`` prefixes) asks, that file answers. Each question runs in each
mode; the report gives NDCG@10 of the file (one relevant file, binary gain, at its
first rank), MRR@10 and found-in-10, overall and split by whether the subject names the
file.

No annotations: the history is the answer key, so trees nobody annotated can be
measured. It is noisy by nature (a subject may describe a change, not a place, and the
file may have moved on since), so it serves to compare modes and rankings side by side
on the same questions, never as an absolute score.

    python bench/commit_queries.py ~/.cache/sleuth-bench/test ~/.cache/sleuth-bench/repos
    python bench/commit_queries.py ~/.cache/sleuth-bench/test --per-index 30 --out c.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sqlite3
import subprocess
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from common import bench_module, emit

from sleuth import Index
from sleuth.languages import DOC_LANGUAGES, GRAMMARS
from sleuth.search.filters import category_of
from sleuth.tokens import split_identifier

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"
MIRRORS = Path("/work/.mirror")
MODES = ("lexical", "semantic", "hybrid")
#: Subjects about housekeeping, not about what code does.
_CHORE = re.compile(
    r"\b(bump|release|releases|revert|typo|typos|lint|linting|format|formatting|changelog"
    r"|version|merge|cleanup|clean up|style|whitespace|rename|renamed|deprecat\w*|copyright)\b",
    re.I,
)
#: ``[area] ``, ``fix(router): ``, ``feat!: `` before the subject proper (``a::b`` is kept).
_PREFIX = re.compile(r"^\s*(\[[^\]]*\]\s*|[\w-]+(\([^)]*\))?!?:\s+)+")
_ISSUE = re.compile(r"\(?\s*(#|gh-)\d+\s*\)?|\bpr\s*\d+\b", re.I)


def _clean(subject: str) -> str | None:
    """The subject as a question, or None when it is housekeeping or too short."""
    text = _ISSUE.sub(" ", _PREFIX.sub("", subject)).strip().rstrip(".").strip()
    words = text.split()
    if not 4 <= len(words) <= 20 or _CHORE.search(text):
        return None
    return " ".join(words)


def _commits(
    git_dir: Path, revision: str, root: str, limit: int, partial: bool = False
) -> list[tuple[str, str, list[str]]]:
    """(hash, subject, changed paths) of the newest ``limit`` commits before ``revision``.
    ``partial``: a mirror that lacks some objects gives the commits git read before it
    stopped, rather than an error."""
    args = ["git", f"--git-dir={git_dir}", "log", "--no-merges", "--format=%x00%H %s"]
    args += ["--name-only", f"-n{limit}", revision]
    if root:
        args += ["--", root]
    run = subprocess.run(args, capture_output=True, text=True, errors="replace")
    if run.returncode and not partial:
        raise subprocess.CalledProcessError(run.returncode, args, run.stdout, run.stderr)
    out = run.stdout
    commits = []
    for block in out.split("\x00")[1:]:
        lines = [line for line in block.splitlines() if line.strip()]
        if lines:
            sha, _, subject = lines[0].partition(" ")
            commits.append((sha, subject, lines[1:]))
    return commits


def _is_source(path: str, language: str) -> bool:
    """A file in a programming language that is not a test, doc or config file."""
    return (
        language in GRAMMARS
        and language not in DOC_LANGUAGES
        and category_of(path, language) == "code"
    )


def _source_files(root: Path) -> set[str]:
    """Indexed files of the tree in a programming language (not tests, docs or config)."""
    con = sqlite3.connect(root / ".sleuth" / "meta.db")
    rows = con.execute("SELECT path, language FROM files WHERE skip_reason IS NULL").fetchall()
    con.close()
    return {path for path, language in rows if _is_source(path, language)}


def _marker(tree: Path) -> dict:
    """What the export wrote beside a tree (name, revision, root); {} where it wrote
    nothing (``export_unpinned.py``: its trees are the mirror's newest revision)."""
    marker = tree / ".sleuth-bench.json"
    return json.loads(marker.read_text()) if marker.exists() else {}


def tree_info(tree: Path, spec: dict, marker: dict | None = None) -> tuple[str, str]:
    """(revision indexed, benchmark root) of an exported tree (``marker``: its marker,
    when the caller has read it already)."""
    info = _marker(tree) if marker is None else marker
    root = info["benchmark_root"] if "benchmark_root" in info else spec.get("benchmark_root")
    return info.get("revision_used", "HEAD"), root or ""


def mirrored_trees(
    folders: list[Path], bench_dir: Path, mirrors: Path
) -> Iterator[tuple[Path, dict, Path, Path]]:
    """(tree, its spec, its git mirror, the folder its index is in) of every exported
    tree in ``folders`` whose mirror is here."""
    specs = {s["name"]: s for s in json.loads((bench_dir / "repos.json").read_text())}
    prepare = bench_module(bench_dir, "prepare")
    for tree in sorted(p for folder in folders for p in folder.iterdir() if p.is_dir()):
        marker = _marker(tree)
        # a tree outside the benchmark names its repository in its marker ("url")
        spec = specs.get(marker.get("name", tree.name)) or ({**marker} if "url" in marker else None)
        git_dir = prepare.find_git_dir(mirrors, spec["url"]) if spec else None
        if spec is not None and git_dir is not None:
            root_name = tree_info(tree, spec, marker)[1]
            yield tree, spec, git_dir, tree / root_name if root_name else tree


def one_file_commits(
    tree: Path, spec: dict, git_dir: Path, limit: int
) -> Iterator[tuple[str, str, str, list[str]]]:
    """(hash, question, file, every path changed) of the newest ``limit`` commits before
    the tree's revision that change exactly one of its indexed source files (``file``,
    relative to the index's root) and whose subject makes a question."""
    revision, root_name = tree_info(tree, spec)
    sources = _source_files(tree / root_name if root_name else tree)
    prefix = f"{root_name}/" if root_name else ""
    # partial: some mirrors lack old objects; the commits read before that still ask
    for sha, subject, paths in _commits(git_dir, revision, root_name, limit, partial=True):
        hits = {p.removeprefix(prefix) for p in paths if p.startswith(prefix)} & sources
        question = _clean(subject)
        if len(hits) == 1 and question is not None:
            yield sha, question, hits.pop(), paths


def _questions(tree: Path, spec: dict, git_dir: Path, limit: int) -> list[tuple[str, str]]:
    """(question, answering file) pairs of one exported tree, newest first, distinct."""
    seen: set[str] = set()
    out = []
    for _, question, path, _ in one_file_commits(tree, spec, git_dir, limit):
        if question.lower() not in seen:
            seen.add(question.lower())
            out.append((question, path))
    return out


def _names_file(question: str, path: str) -> bool:
    """Does the question name the file (its stem, or a word of it of four letters or more)?"""
    stem = Path(path).stem
    words = {w.lower() for w in split_identifier(stem) if len(w) >= 4} | {stem.lower()}
    asked = {w.lower().strip("`'\".,()") for w in question.split()}
    asked |= {part.lower() for w in question.split() for part in split_identifier(w)}
    return bool(words & asked)


def _first_rank(index: Index, question: str, path: str, mode: str) -> int:
    results = index.search(question, k=10, mode=mode).results
    return next((i + 1 for i, r in enumerate(results) if r.path == path), 0)


def _summary(ranks: list[int]) -> dict:
    n = len(ranks)
    if not n:
        return {"questions": 0}
    return {
        "questions": n,
        "ndcg@10": round(sum(1 / math.log2(r + 1) for r in ranks if r) / n, 4),
        "mrr@10": round(sum(1 / r for r in ranks if r) / n, 4),
        "found@10": round(sum(1 for r in ranks if r) / n, 4),
    }


def tree_sample(seed: int, tree: str) -> random.Random:
    """The draw of one tree's questions: its own, so that a change to another tree's
    questions (a new test-path rule) does not change which this tree is asked."""
    return random.Random(f"{seed}/{tree}")


def question_arguments(doc: str | None) -> argparse.ArgumentParser:
    """The command line of the scripts that ask commit subjects (this one and
    ``chunk_questions.py``)."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="caches of exported trees")
    parser.add_argument("--per-index", type=int, default=30, help="questions per tree")
    parser.add_argument("--commits", type=int, default=3000, help="history read per tree")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--mirrors", type=Path, default=MIRRORS)
    parser.add_argument("--bench-dir", type=Path, default=BENCH)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--ranks", type=Path, help="write every question's ranks (JSONL)")
    return parser


def main() -> None:
    args = question_arguments(__doc__).parse_args()

    modes = args.modes.split(",")
    ranks: dict[str, dict[str, list[int]]] = {m: defaultdict(list) for m in modes}
    per_tree: dict[str, dict] = {}
    lines = []
    for tree, spec, git_dir, root in mirrored_trees(args.folders, args.bench_dir, args.mirrors):
        questions = _questions(tree, spec, git_dir, args.commits)
        if not questions:
            continue
        picked = tree_sample(args.seed, tree.name).sample(
            questions, min(args.per_index, len(questions))
        )
        index = Index(root)
        tree_ranks: dict[str, list[int]] = defaultdict(list)
        try:
            for question, path in picked:
                named = "names the file" if _names_file(question, path) else "does not"
                row = {"tree": tree.name, "question": question, "file": path, "named": named}
                for mode in modes:
                    rank = _first_rank(index, question, path, mode)
                    for group in ("all", named):
                        ranks[mode][group].append(rank)
                    tree_ranks[mode].append(rank)
                    row[mode] = rank
                lines.append(row)
        finally:
            index.close()
        per_tree[tree.name] = {m: _summary(tree_ranks[m])["ndcg@10"] for m in modes}
    if args.ranks:
        args.ranks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    emit(
        {
            "trees": len(per_tree),
            "modes": {m: {g: _summary(r) for g, r in ranks[m].items()} for m in modes},
            "per_tree": per_tree,
        },
        args.out,
    )


if __name__ == "__main__":
    main()
