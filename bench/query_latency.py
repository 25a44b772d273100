"""Warm in-process query latency over the dev split, beside a baseline checkout (not a test).

Each query runs five times through one open ``Index`` per repository and its median
counts (as semble reports latency); every run embeds the query afresh, as a new question
would be. The first run of each query is reported apart: it also reads what a query
touches for the first time (file terms from SQLite). With ``--baseline-src`` (the
``src/`` of another checkout, e.g. a worktree of an older commit) the same measurement
runs in a child process on that code, alternating with this checkout (the side that
goes first swaps every round), so both see the same load. Both use this checkout's
static table (``SLEUTH_STATIC_TABLE``, unless set): an index opened with another table
would drop its static vectors.

    python bench/query_latency.py --baseline-src /tmp/oldwt/src --rounds 2
    python bench/query_latency.py --no-model --baseline-src /tmp/oldwt/src --rounds 4
    python bench/query_latency.py --cache /tmp/new-model-indexes \
        --baseline-src /tmp/oldwt/src --baseline-cache ~/.cache/sleuth-bench/repos
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import bench_roots, emit, percentile

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"
RUNS = 5
TABLE = HERE.parent / "src" / "sleuth" / "data" / "static-table.npz"


def measure(bench_dir: Path, cache: Path, no_model: bool = False) -> dict:
    from sleuth.api import Index
    from sleuth.benchmark import load_tasks

    tasks = load_tasks(bench_dir, "dev.txt", None)
    roots = bench_roots(bench_dir, cache, list(tasks))
    medians: list[float] = []
    firsts: list[float] = []
    cpu_medians: list[float] = []  # the calling thread's CPU time: less moved by other load
    for name, root in roots.items():
        if not (root / ".sleuth").is_dir():
            continue
        index = Index(root)
        index._embed_query = lambda text, index=index: index.embedder.embed([text])[0]
        if no_model:  # each query's vector made before the clock starts: the rest alone
            made = {q: index._embed_query(q) for q in [*tasks[name], "warm up the stores"]}
            index._embed_query = made.__getitem__
        index.search("warm up the stores")
        for query in tasks[name]:
            times, cpu = [], []
            for _ in range(RUNS):
                begin, begin_cpu = time.perf_counter(), time.thread_time()
                index.search(query, k=10)
                times.append(1000 * (time.perf_counter() - begin))
                cpu.append(1000 * (time.thread_time() - begin_cpu))
            firsts.append(times[0])
            medians.append(statistics.median(times))
            cpu_medians.append(statistics.median(cpu))
        index.close()
    return {
        "queries": len(medians),
        "warm_p50_ms": round(percentile(medians, 0.5), 2),
        "warm_p95_ms": round(percentile(medians, 0.95), 2),
        "first_run_p50_ms": round(percentile(firsts, 0.5), 2),
        "thread_cpu_p50_ms": round(percentile(cpu_medians, 0.5), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=BENCH)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/sleuth-bench/repos")
    parser.add_argument("--baseline-src", type=Path)
    parser.add_argument(
        "--baseline-cache",
        type=Path,
        help="indexes for the baseline (default: --cache); when the embedding model "
        "differs, each side needs vectors of its own",
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--no-model",
        action="store_true",
        help="embed each query before timing it: the search's own work without the model",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.child or not args.baseline_src:
        print(json.dumps(measure(args.bench_dir, args.cache, args.no_model)))
        return
    runs: dict[str, list[dict]] = {"this": [], "baseline": []}
    for round_number in range(args.rounds):
        sides = (
            ("this", HERE.parent / "src", args.cache),
            ("baseline", args.baseline_src, args.baseline_cache or args.cache),
        )
        # the side that runs first in a pair tends to run slower on a shared machine:
        # each round swaps the order (this, baseline; then baseline, this; ...)
        for label, src, cache in sides[:: 1 if round_number % 2 == 0 else -1]:
            env = {**os.environ, "PYTHONPATH": str(src)}
            env.setdefault("SLEUTH_STATIC_TABLE", str(TABLE))
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    "--bench-dir",
                    str(args.bench_dir),
                    "--cache",
                    str(cache),
                    *(["--no-model"] if args.no_model else []),
                ],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            runs[label].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    pairs = list(zip(runs["this"], runs["baseline"], strict=True))

    def ratios(key: str) -> list[float]:
        return [round(this[key] / base[key], 3) for this, base in pairs if key in base]

    emit(
        {
            "rounds": runs,
            "warm_p50_ratio_per_round": ratios("warm_p50_ms"),
            "thread_cpu_p50_ratio_per_round": ratios("thread_cpu_p50_ms"),
            "load": os.getloadavg(),
        },
        args.out,
    )


if __name__ == "__main__":
    main()
