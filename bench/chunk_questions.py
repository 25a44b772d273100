"""Do commit subjects find the chunk they changed, not only its file? (not a test)

The shared benchmark scores files: 18 of its 741 dev targets name lines. A person or an
agent reads the chunk an answer points at, so which chunk of the right file comes first
matters too. ``commit_queries.py`` asks commit subjects for the file a commit changed;
this script asks them for the chunk. It keeps a commit only when the file it changed is
byte for byte the file that was indexed (so the diff's line numbers are the index's),
the change touches one to three of the index's own chunks of that file, and the subject
describes behaviour (``commit_pairs``' filters). The answer is the chunk holding most
changed lines.

Per mode it reports NDCG@10 of the chunk (one relevant chunk, at the first result that
overlaps it), the same counting a result whose ``also`` pointers (other matching chunks
of its file) hold the chunk, NDCG@10 of the file (as ``commit_queries.py``), and the
share of questions whose file is found at all but whose first result of that file is
another chunk ("wrong chunk of the right file"). Noisy by nature, like the file
questions: for comparing modes and rankings on the same questions, not as an absolute
score.

    python bench/chunk_questions.py ~/.cache/sleuth-bench/repos ~/.cache/sleuth-bench/head
    python bench/chunk_questions.py ~/.cache/sleuth-bench/repos --ranks ranks.jsonl
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import defaultdict
from contextlib import closing
from pathlib import Path
from types import ModuleType

from commit_queries import (
    _summary,
    mirrored_trees,
    one_file_commits,
    question_arguments,
    tree_info,
    tree_sample,
)
from common import bench_module, emit

from sleuth import Index

sys.path.insert(0, str(Path(__file__).resolve().parent / "finetune"))
from commit_pairs import _NOT_BEHAVIOUR, MAX_CHANGED_LINES, changed_lines

#: A change touching more of the file's chunks than this is not about one place.
MAX_TOUCHED = 3


def _chunks(root: Path) -> dict[str, list[tuple[int, int]]]:
    """(start, end) lines of the index's chunks, by file: read once per tree."""
    with closing(sqlite3.connect(root / ".sleuth" / "meta.db")) as con:
        rows = con.execute(
            "SELECT f.path, c.start_line, c.end_line FROM chunks c JOIN files f"
            " ON f.id = c.file_id WHERE c.kind != 'imports'"
        ).fetchall()
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for path, start, end in rows:
        spans[path].append((start, end))
    return spans


def _blob(prepare: ModuleType, git_dir: Path, revision: str, path: str) -> str:
    run = prepare.git(git_dir, "rev-parse", "--verify", "-q", f"{revision}:{path}", text=True)
    return run.stdout.strip() if run.returncode == 0 else ""


def questions(prepare: ModuleType, tree: Path, spec: dict, git_dir: Path, limit: int) -> list[dict]:
    """Chunk questions of one tree: question, path, and the answering chunk's lines."""
    revision, root_name = tree_info(tree, spec)
    chunks = _chunks(tree / root_name if root_name else tree)
    prefix = f"{root_name}/" if root_name else ""
    seen: set[str] = set()
    out = []
    for sha, question, path, paths in one_file_commits(tree, spec, git_dir, limit):
        if _NOT_BEHAVIOUR.search(question) or question.lower() in seen or len(paths) > 2:
            continue
        full = prefix + path
        indexed = _blob(prepare, git_dir, revision, full)
        if not indexed or _blob(prepare, git_dir, sha, full) != indexed:
            continue  # the file changed again later: the diff's lines are not the index's
        diff = prepare.git(
            git_dir, "diff", "-U0", f"{sha}^", sha, "--", full, text=True, errors="replace"
        )
        changed = changed_lines(diff.stdout)
        if not changed or len(changed) > MAX_CHANGED_LINES:
            continue
        touched = [
            (len(changed.intersection(range(start, end + 1))), start, end)
            for start, end in chunks[path]
        ]
        touched = [item for item in touched if item[0]]
        if not 1 <= len(touched) <= MAX_TOUCHED:
            continue
        _, start, end = max(touched)
        seen.add(question.lower())
        out.append({"question": question, "path": path, "start": start, "end": end})
    return out


def ranks_of(index: Index, item: dict, mode: str) -> tuple[int, int, bool, int]:
    """(chunk rank, file rank, the file's first result is another chunk, rank of the
    result whose ``also`` pointers hold the chunk); 0 = not in 10."""
    results = index.search(item["question"], k=10, mode=mode).results
    chunk_rank = file_rank = pointed = 0
    first_of_file_wrong = False

    def holds(start: int, end: int) -> bool:
        return not (end < item["start"] or start > item["end"])

    for rank, result in enumerate(results, 1):
        if result.path != item["path"]:
            continue
        overlaps = holds(result.start_line, result.end_line)
        if not file_rank:
            file_rank = rank
            first_of_file_wrong = not overlaps
        if overlaps and not chunk_rank:
            chunk_rank = rank
        if not pointed and any(holds(h["start_line"], h["end_line"]) for h in result.also):
            pointed = rank
    return chunk_rank, file_rank, first_of_file_wrong, pointed


def main() -> None:
    args = question_arguments(__doc__).parse_args()

    prepare = bench_module(args.bench_dir, "prepare")
    modes = args.modes.split(",")
    chunk: dict[str, list[int]] = defaultdict(list)
    file: dict[str, list[int]] = defaultdict(list)
    wrong: dict[str, int] = defaultdict(int)
    shown: dict[str, list[int]] = defaultdict(list)
    lines, trees = [], 0
    for tree, spec, git_dir, root in mirrored_trees(args.folders, args.bench_dir, args.mirrors):
        asked = questions(prepare, tree, spec, git_dir, args.commits)
        if not asked:
            continue
        trees += 1
        picked = tree_sample(args.seed, tree.name).sample(asked, min(args.per_index, len(asked)))
        index = Index(root)
        try:
            for item in picked:
                row = {"tree": tree.name, **item}
                for mode in modes:
                    chunk_rank, file_rank, other_chunk, pointed = ranks_of(index, item, mode)
                    chunk[mode].append(chunk_rank)
                    shown[mode].append(chunk_rank or pointed)
                    file[mode].append(file_rank)
                    wrong[mode] += other_chunk
                    row[mode] = [chunk_rank, file_rank, pointed]
                lines.append(row)
        finally:
            index.close()
    if args.ranks:
        args.ranks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    emit(
        {
            "trees": trees,
            "questions": len(lines),
            "modes": {
                m: {
                    "chunk": _summary(chunk[m]),
                    "chunk, or a pointer of the result of its file": _summary(shown[m]),
                    "file": _summary(file[m]),
                    "wrong chunk of the right file": round(wrong[m] / max(1, len(lines)), 4),
                }
                for m in modes
            },
        },
        args.out,
    )


if __name__ == "__main__":
    main()
