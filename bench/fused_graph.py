"""The model's fused graph against the packaged one, in one process (not a test).

Both embedders run as sleuth runs them (a query on two sleeping threads, chunks in
batches sorted by length); the only difference is the graph (``embedding/fused.py``).
Reports per side: a query's embedding p50/p95 over the dev split's questions (the two
alternating per question), chunks/s over windows of a source tree (alternating per
pass), and how far apart the two sides' vectors are.

    python bench/fused_graph.py --tree ~/.cache/sleuth-bench/repos/fastapi
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from common import emit, percentile

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"
SOURCE_SUFFIXES = {".py", ".go", ".rs", ".ts", ".js", ".java", ".c", ".rb", ".ex", ".kt"}


def windows(tree: Path, count: int, lines: int = 30) -> list[str]:
    """The first ``count`` windows of ``lines`` source lines under ``tree``."""
    found: list[str] = []
    for path in sorted(tree.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file() or ".sleuth" in path.parts:
            continue
        rows = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for start in range(0, len(rows), lines):
            window = "\n".join(rows[start : start + lines]).strip()
            if window:
                found.append(f"{path.relative_to(tree)}\n{window}")
            if len(found) == count:
                return found
    return found


def main() -> None:
    from sleuth.benchmark import load_tasks
    from sleuth.embedding.minilm import MiniLMEmbedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=BENCH)
    parser.add_argument("--tree", type=Path, required=True, help="source of chunk windows")
    parser.add_argument("--chunks", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3, help="passes over the questions")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    questions = [q for tasks in load_tasks(args.bench_dir, "dev.txt", None).values() for q in tasks]
    chunks = windows(args.tree.expanduser(), args.chunks)
    fused, packaged = MiniLMEmbedder(), MiniLMEmbedder()
    packaged._fused_model = lambda: packaged._model_path  # the graph as packaged
    sides = {"packaged": packaged, "fused": fused}

    times: dict[str, list[float]] = {name: [] for name in sides}
    for side in sides.values():
        side.embed(["warm up"])
    for _ in range(args.rounds):
        for question in questions:
            for name, side in sides.items():
                begin = time.perf_counter()
                side.embed([question])
                times[name].append(time.perf_counter() - begin)

    rates: dict[str, list[float]] = {name: [] for name in sides}
    vectors = {}
    for _ in range(2):
        for name, side in sides.items():
            begin = time.perf_counter()
            vectors[name] = side.embed(chunks)
            rates[name].append(len(chunks) / (time.perf_counter() - begin))
    query_vectors = {name: side.embed(questions[:200]) for name, side in sides.items()}
    cosines = np.concatenate(
        [
            (vectors["packaged"] * vectors["fused"]).sum(axis=1),
            (query_vectors["packaged"] * query_vectors["fused"]).sum(axis=1),
        ]
    )
    result = {
        "questions": len(questions),
        "rounds": args.rounds,
        "chunks": len(chunks),
        "load": os.getloadavg(),
        "query_ms": {
            name: {
                "p50": round(1000 * percentile(values, 0.5), 2),
                "p95": round(1000 * percentile(values, 0.95), 2),
            }
            for name, values in times.items()
        },
        "chunks_per_s": {name: [round(r, 1) for r in values] for name, values in rates.items()},
        "min_cosine": float(cosines.min()),
    }
    result["query_p50_ratio"] = round(
        result["query_ms"]["fused"]["p50"] / result["query_ms"]["packaged"]["p50"], 3
    )
    result["chunks_per_s_ratio"] = round(max(rates["fused"]) / max(rates["packaged"]), 3)
    emit(result, args.out)


if __name__ == "__main__":
    main()
