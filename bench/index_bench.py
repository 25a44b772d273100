"""Indexing and query benchmark on one real repository (not a test).

Reports files/s, chunks/s (lexical and embedding), share of time spent embedding, index
size, peak RSS, query p50/p95 in-process (warm) and as cold CLI processes, and time to
the first (lexical) answer of `sleuth search` on an unindexed copy. A ripgrep run over
the same files in the same session gives the scale.

    python bench/index_bench.py ~/.cache/sleuth-bench/repos/fastapi \
        --queries ../shared/bench/annotations/fastapi.json --out bench/results/fastapi.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import emit, percentile

DEFAULT_QUERIES = [
    "how are requests routed",
    "parse configuration",
    "error handling",
    "authentication",
    "retry",
    "open a connection",
    "serialize to json",
    "read a file",
    "main entry point",
    "cache",
]


def _cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """The `sleuth` console script, as people run it: with `python -m sleuth.cli.main`
    every spawned worker process would re-import the whole CLI as its main module."""
    return subprocess.run(
        [str(Path(sys.executable).with_name("sleuth")), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _kill_background(root: Path) -> None:
    status = json.loads(_cli("status", "--json", str(root), cwd=root).stdout or "{}")
    pid = status.get("background_embedder_pid")
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)
        time.sleep(0.5)


def first_answer(source: Path, query: str) -> dict:
    """Cold `sleuth search` on a fresh copy: wall time until the answer prints."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".sleuth"))
        start = time.perf_counter()
        proc = _cli("search", "--json", query, str(copy), cwd=copy)
        elapsed = time.perf_counter() - start
        data = json.loads(proc.stdout)
        _kill_background(copy)
        return {"seconds": elapsed, "mode": data["mode"], "results": len(data["results"])}


def child(root: str, queries: list[str]) -> dict:
    """In-process indexing and warm queries; runs in its own process for a clean RSS."""
    from sleuth import Index

    index = Index(root)
    index.clean()
    index = Index(root)
    t0 = time.perf_counter()
    report = index.index(embed="none")
    lexical_seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    embedded = index.embed()
    embed_seconds = time.perf_counter() - t1
    status = index.status()
    latencies = {"hybrid": [], "lexical": []}
    for mode in latencies:
        for query in queries:
            index.search(query, mode=mode)  # warm
            runs = []
            for _ in range(5):
                start = time.perf_counter()
                index.search(query, mode=mode)
                runs.append(time.perf_counter() - start)
            latencies[mode].append(statistics.median(runs))
    return {
        "files": report.update.scanned,
        "chunks": status["chunks"],
        "lexical_seconds": lexical_seconds,
        "embed_seconds": embed_seconds,
        "embedded": embedded,
        "index_bytes": status["size_bytes"],
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "query_ms": {
            mode: {"p50": 1000 * percentile(v, 0.5), "p95": 1000 * percentile(v, 0.95)}
            for mode, v in latencies.items()
        },
    }


def ripgrep(root: Path, queries: list[str]) -> dict:
    if not shutil.which("rg"):
        return {}
    times = []
    for query in queries:
        word = max(query.split(), key=len)
        start = time.perf_counter()
        subprocess.run(["rg", "-n", "-i", "--", word, str(root)], capture_output=True)
        times.append(time.perf_counter() - start)
    return {"p50_ms": 1000 * percentile(times, 0.5), "p95_ms": 1000 * percentile(times, 0.95)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--queries", type=Path, help="annotation JSON of the shared benchmark")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    queries = DEFAULT_QUERIES
    if args.queries:
        queries = [task["query"] for task in json.loads(args.queries.read_text())]
    if args.child:
        print(json.dumps(child(str(args.repo), queries)))
        return 0

    repo = args.repo.resolve()
    first = first_answer(repo, queries[0])
    proc = subprocess.run(
        [
            sys.executable,
            __file__,
            str(repo),
            "--child",
            *(["--queries", str(args.queries)] if args.queries else []),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    inner = json.loads(proc.stdout.strip().splitlines()[-1])
    cold = []
    for query in queries[:10]:
        start = time.perf_counter()
        _cli("search", "--json", "--no-refresh", query, str(repo), cwd=repo)
        cold.append(time.perf_counter() - start)
    rg = ripgrep(repo, queries)
    total = inner["lexical_seconds"] + inner["embed_seconds"]
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, {platform.python_version()}",
        "repo": str(args.repo),
        **inner,
        "files_per_s": inner["files"] / inner["lexical_seconds"],
        "lexical_chunks_per_s": inner["chunks"] / inner["lexical_seconds"],
        "embed_chunks_per_s": inner["embedded"] / inner["embed_seconds"]
        if inner["embed_seconds"]
        else None,
        "embed_share": inner["embed_seconds"] / total if total else 0.0,
        "cold_cli_ms": {
            "p50": 1000 * percentile(cold, 0.5),
            "p95": 1000 * percentile(cold, 0.95),
        },
        "first_answer": first,
        "ripgrep": rg,
    }
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
