"""Warm searches on one large tree made of many repositories, beside a baseline (not a test).

The benchmark's trees hold at most a few thousand chunks; steps that read a whole table
or every vector only show on a large one. This exports the newest commit of each git
mirror named (``--mirrors``, as bench/README.md fetches them) into one folder, indexes it
with the lexical and static tiers (``--embed static``: the static vectors are the size of
the transformer's, so the vector scan costs the same, and they build in minutes), then
asks every fourth dev question twice in one process (the second pass with the tree's
caches warm). With ``--baseline-src`` (another checkout's ``src/``) the same runs in a
child process on that code, the two sides alternating. ``--blas-threads 1`` measures
the daemon's setting (``sleuth serve`` pins numpy's BLAS to one thread per product).

    python bench/large_tree.py --mirrors /work/.mirror --tree /tmp/large
    python bench/large_tree.py --tree /tmp/large --baseline-src /tmp/oldwt/src --rounds 3
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from common import bench_module, emit, percentile

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"
#: Twenty repositories of the mirrors, every language family: 173,840 chunks together.
REPOSITORIES = [
    "rails+rails",
    "curl+curl",
    "jgm+pandoc",
    "ktorio+ktor",
    "square+okhttp",
    "phoenixframework+phoenix",
    "JamesNK+Newtonsoft.Json",
    "colinhacks+zod",
    "vitest-dev+vitest",
    "google+gson",
    "aio-libs+aiohttp",
    "fastapi+fastapi",
    "tokio-rs+axum",
    "fmtlib+fmt",
    "nlohmann+json",
    "onevcat+Kingfisher",
    "honojs+hono",
    "sidekiq+sidekiq",
    "psf+black",
    "tmux+tmux",
]


def export(mirrors: Path, tree: Path, bench_dir: Path) -> None:
    """Each mirror's newest commit into ``tree/<name>`` (kept when already there), found
    as the benchmark's ``prepare.py`` finds mirrors. Blobs a mirror lacks (large files it
    was fetched without) end that repository's export early."""
    prepare = bench_module(bench_dir, "prepare")
    for mirror in REPOSITORIES:
        owner, name = mirror.split("+", 1)
        target = tree / name
        git_dir = prepare.find_git_dir(mirrors, f"https://github.com/{owner}/{name}")
        if target.is_dir() or git_dir is None:
            if git_dir is None:
                print(f"{mirror}: no mirror under {mirrors}", file=sys.stderr)
            continue
        archive = prepare.git(git_dir, "archive", "HEAD").stdout
        target.mkdir(parents=True)
        try:
            with tarfile.open(fileobj=io.BytesIO(archive), mode="r|") as tar:
                tar.extractall(target, filter="data")
        except (tarfile.ReadError, EOFError):
            print(f"{mirror}: archive ended early (missing blobs)", file=sys.stderr)


def measure(tree: Path, bench_dir: Path) -> dict:
    from sleuth.api import Index
    from sleuth.benchmark import load_tasks
    from sleuth.store.vectors import VectorStore

    questions = [q for qs in load_tasks(bench_dir, "dev.txt", None).values() for q in qs][::4]
    if os.environ.get("OPENBLAS_NUM_THREADS") == "1":  # the daemon's setting, as it sets it
        from sleuth.server import daemon

        getattr(daemon, "_split_large_scans", lambda: None)()
    index = Index(tree, tier="static")
    index.search("warm up the stores")
    scan = [0.0]
    search = VectorStore.search

    def timed(self, *args, **named):  # the exact scan's share of each search
        begin = time.perf_counter()
        try:
            return search(self, *args, **named)
        finally:
            scan[0] += time.perf_counter() - begin

    VectorStore.search = timed
    out: dict = {"chunks": index.status().get("chunks"), "questions": len(questions)}
    for label in ("first", "again"):
        scan[0], times = 0.0, []
        for question in questions:
            begin = time.perf_counter()
            index.search(question, k=10)
            times.append(1000 * (time.perf_counter() - begin))
        out[f"{label}_p50_ms"] = round(statistics.median(times), 2)
        out[f"{label}_p95_ms"] = round(percentile(times, 0.95), 2)
        out[f"{label}_scan_mean_ms"] = round(1000 * scan[0] / len(times), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, required=True, help="folder of the large tree")
    parser.add_argument("--mirrors", type=Path, help="git mirrors to export the tree from")
    parser.add_argument("--bench-dir", type=Path, default=BENCH)
    parser.add_argument("--baseline-src", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--blas-threads", type=int, help="numpy's BLAS threads per product")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.tree, args.bench_dir)))
        return
    if args.mirrors:
        export(args.mirrors, args.tree, args.bench_dir)
    from sleuth.api import Index

    begin = time.perf_counter()
    Index(args.tree).index(embed="static")
    built = round(time.perf_counter() - begin, 1)
    sides = [("this", HERE.parent / "src")]
    if args.baseline_src:
        sides.append(("baseline", args.baseline_src))
    runs: dict[str, list[dict]] = {label: [] for label, _ in sides}
    env = dict(os.environ)
    if args.blas_threads:
        env["OPENBLAS_NUM_THREADS"] = str(args.blas_threads)
    child = [sys.executable, __file__, "--child", "--tree", str(args.tree)]
    child += ["--bench-dir", str(args.bench_dir)]
    for round_number in range(args.rounds):
        for label, src in sides[:: 1 if round_number % 2 == 0 else -1]:
            proc = subprocess.run(
                child,
                capture_output=True,
                text=True,
                env={**env, "PYTHONPATH": str(src)},
                check=True,
            )
            runs[label].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    result: dict = {"index_seconds_this_run": built, "rounds": runs, "load": os.getloadavg()}
    if args.baseline_src:
        pairs = list(zip(runs["this"], runs["baseline"], strict=True))
        for key in ("first_p50_ms", "again_p50_ms", "again_p95_ms", "again_scan_mean_ms"):
            result[f"{key}_ratio_per_round"] = [round(a[key] / b[key], 3) for a, b in pairs]
    emit(result, args.out)


if __name__ == "__main__":
    main()
