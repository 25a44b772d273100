"""Training pairs from the topic sets: a question in words and the chunk that answers it.

The topic sets (``bench/probes/topics*.json``) hold questions of the benchmark's kind
("how are retries scheduled", "date parsing from ISO strings"), each with the file that
answers it, over trees that are not benchmark repositories. A pair takes the question,
the answer file's chunk that the current ranking puts first (or, when the file is not
among the first 30 results, its chunk nearest the question by the current model), and
as a hard negative the best-ranked chunk of a file that does not answer it. Texts are
what the embedder sees (``prepare.embed_text``). Trees of any benchmark repository (its
dev split or its private one, ``repos.json``) are left out: a model trained on them
would have seen the code it is judged on.

    PYTHONPATH=src python bench/finetune/topic_pairs.py --out topic-pairs.jsonl \
        --exclude topics-held8
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from commit_queries import BENCH
from common import bench_module

from sleuth import Index
from sleuth.prepare import embed_text

PROBES = Path(__file__).resolve().parents[1] / "probes"
TREES = Path.home() / ".cache" / "sleuth-bench" / "probes"
DEPTH = 30


def benchmark_repos(bench: Path) -> set[str]:
    """``owner/name`` of every repository of the benchmark, lower case."""
    owner_name = bench_module(bench, "prepare").owner_name
    specs = json.loads((bench / "repos.json").read_text(encoding="utf-8"))
    return {"/".join(owner_name(spec["url"])).lower() for spec in specs}


def pairs_of(index: Index, tasks: list[dict], tree: str) -> list[dict]:
    meta = index._open()
    out = []
    for task in tasks:
        answers = set(task["relevant"]) | set(task.get("secondary", []))
        results = index.search(task["query"], k=DEPTH).results
        positive = next((r for r in results if r.path == task["relevant"][0]), None)
        negative = next((r for r in results if r.path not in answers), None)
        rows = _rows_of(meta, task["relevant"][0])
        if not rows:
            continue
        chunk = _chunk_at(rows, positive) if positive is not None else None
        if chunk is None:
            chunk = _nearest(index, task["query"], rows)
        row = {"query": task["query"], "doc": embed_text(task["relevant"][0], chunk), "pkg": tree}
        if negative is not None:
            held = _chunk_at(_rows_of(meta, negative.path), negative)
            if held is not None:
                row["neg"] = embed_text(negative.path, held)
        out.append(row)
    return out


class _Chunk:
    def __init__(self, row) -> None:
        self.id, self.start_line, self.end_line, self.parent, self.signature, self.text = row


def _rows_of(meta, path: str):
    return meta.db.execute(
        "SELECT c.id, c.start_line, c.end_line, c.parent, c.signature, c.text FROM chunks c"
        " JOIN files f ON f.id = c.file_id WHERE f.path = ?",
        (path,),
    ).fetchall()


def _chunk_at(rows, result) -> _Chunk | None:
    """The chunk a result starts in (a merged result starts at its best chunk's line)."""
    for row in rows:
        if row[1] <= result.start_line <= row[2]:
            return _Chunk(row)
    return None


def _nearest(index: Index, query: str, rows) -> _Chunk:
    """The file's chunk nearest the question by the current model."""
    vectors = index._vectors
    vectors.load()
    near = vectors.similarity(index.embedder.embed([query])[0], [row[0] for row in rows])
    return _Chunk(max(rows, key=lambda row: near.get(row[0], -1.0)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--exclude", nargs="*", default=[], help="topic sets to leave out")
    args = parser.parse_args()
    total = 0
    benchmark = benchmark_repos(BENCH)
    probe_repos = {
        tree["name"]: tree.get("repo", "")
        for tree in json.loads((PROBES / "questions.json").read_text(encoding="utf-8"))
    }
    with open(args.out, "w", encoding="utf-8") as sink:
        for path in sorted(PROBES.glob("topics*.json")):
            if path.stem in args.exclude:
                continue
            for tree in json.loads(path.read_text(encoding="utf-8")):
                repo = tree.get("repo") or probe_repos.get(tree["name"], "")
                root = TREES / tree["name"]
                if repo.lower() in benchmark or not (root / ".sleuth").is_dir():
                    continue
                index = Index(root)
                for row in pairs_of(index, tree["tasks"], tree["name"]):
                    sink.write(json.dumps(row) + "\n")
                    total += 1
                index.close()
            print(f"{path.stem}: {total} pairs so far", flush=True)


if __name__ == "__main__":
    main()
