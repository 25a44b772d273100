"""What the static table's view beside the deep vectors costs per query (not a test).

Warm, in-process: every dev query runs, back to back, through ``Index(root)`` (auto:
deep vectors with the static view blended in) and ``Index(root, tier="deep")`` (deep
vectors alone, the ranking before the blend), so both see the same load. Each query is
run once untimed first, so the transformer's query vector is cached for both and the
timings compare what differs: the static query vector, its cosines and the blend.

Cold: ``sleuth search --json`` as a new process on the largest index, alternating this
checkout with ``--baseline-src`` (a ``src/`` folder of another checkout, e.g. a
worktree of the commit before), so the table's load time shows.

    python bench/static_view_cost.py --baseline-src /tmp/oldwt/src --runs 10
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from common import bench_roots, emit, percentile

from sleuth.api import Index
from sleuth.benchmark import load_tasks

HERE = Path(__file__).resolve().parent
QUERY = "where are connection timeouts handled"


def warm(bench_dir: Path, roots: dict[str, Path]) -> dict:
    tasks = load_tasks(bench_dir, "dev.txt", list(roots))
    times: dict[str, list[float]] = {"blend": [], "deep": []}
    for name, root in roots.items():
        blend, deep = Index(root), Index(root, tier="deep")
        for query in tasks[name]:
            blend.search(query, k=10)
            deep.search(query, k=10)
            for label, index in (("blend", blend), ("deep", deep)):
                begin = time.perf_counter()
                index.search(query, k=10)
                times[label].append(1000 * (time.perf_counter() - begin))
        blend.close()
        deep.close()
    p50 = {label: percentile(v, 0.5) for label, v in times.items()}
    p95 = {label: percentile(v, 0.95) for label, v in times.items()}
    return {
        "queries": len(times["deep"]),
        "blend_p50_ms": round(p50["blend"], 2),
        "deep_p50_ms": round(p50["deep"], 2),
        "ratio_p50": round(p50["blend"] / p50["deep"], 3),
        "blend_p95_ms": round(p95["blend"], 2),
        "deep_p95_ms": round(p95["deep"], 2),
    }


def cold(root: Path, baseline_src: Path, runs: int) -> dict:
    here_src = HERE.parent / "src"
    times: dict[str, list[float]] = {"this": [], "baseline": []}
    for _ in range(runs):
        for label, src in (("this", here_src), ("baseline", baseline_src)):
            env = {**os.environ, "PYTHONPATH": str(src)}
            begin = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "sleuth.cli", "search", "--json", QUERY, str(root)],
                capture_output=True,
                text=True,
                env=env,
            )
            times[label].append(1000 * (time.perf_counter() - begin))
            if proc.returncode != 0:
                raise SystemExit(f"{label}: {proc.stderr.strip()}")
            vectors = json.loads(proc.stdout).get("vectors")
            if label == "this" and vectors != ["deep", "static"]:
                raise SystemExit(f"the index at {root} lacks a complete tier: {vectors}")
    p50 = {label: percentile(v, 0.5) for label, v in times.items()}
    return {
        "root": str(root),
        "runs": runs,
        "this_p50_ms": round(p50["this"]),
        "baseline_p50_ms": round(p50["baseline"]),
        "ratio_p50": round(p50["this"] / p50["baseline"], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=HERE.parents[1] / "shared" / "bench")
    parser.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache" / "sleuth-bench" / "repos"
    )
    parser.add_argument("--baseline-src", type=Path, help="src/ of the checkout to compare")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    bench_dir = args.bench_dir.resolve()
    names = list(load_tasks(bench_dir, "dev.txt", None))
    roots = {n: r for n, r in bench_roots(bench_dir, args.cache, names).items() if r.is_dir()}
    report = {"warm": warm(bench_dir, roots)}
    if args.baseline_src:
        largest = max(roots.values(), key=lambda r: (r / ".sleuth" / "vectors.npy").stat().st_size)
        report["cold"] = cold(largest, args.baseline_src, args.runs)
    emit(report, args.out)


if __name__ == "__main__":
    main()
