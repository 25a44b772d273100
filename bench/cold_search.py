"""Wall time of `sleuth search` as a cold command-line process (not a test).

Each search is a new process on an indexed repository, as an agent or a shell script
calls it: imports, opening the index, loading the model, one query. Runs of this
checkout's `sleuth` alternate with a baseline `sleuth` (another checkout in its own
virtualenv) in the same session, because the machines are shared and timings drift.

    python bench/cold_search.py ~/.cache/sleuth-bench/repos/click/src/click \
        --baseline /tmp/base/.venv/bin/sleuth --runs 10 --out cold.json
"""

from __future__ import annotations

import argparse
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import emit, percentile

QUERIES = [
    "how are command line options parsed",
    "where are errors reported to the user",
    "parse_args",
]


def timed_search(sleuth: str, root: Path, query: str, refresh: bool = False) -> float:
    """Seconds for one search process, from start to exit (no daemon; no refresh of
    the index unless asked)."""
    command = [sleuth, "search", query, str(root), "--no-daemon", "--json"]
    command.append("--refresh" if refresh else "--no-refresh")
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{sleuth} failed on {query!r}: {done.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path, help="an indexed repository")
    parser.add_argument("--baseline", required=True, help="the other `sleuth` executable")
    parser.add_argument("--sleuth", default=shutil.which("sleuth") or "sleuth")
    parser.add_argument("--runs", type=int, default=10, help="rounds over the queries")
    parser.add_argument("--query", action="append", help="replaces the default queries")
    parser.add_argument(
        "--refresh", action="store_true", help="let each search refresh the index first"
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    queries = args.query or QUERIES
    times: dict[str, list[float]] = {"sleuth": [], "baseline": []}
    for query in queries:  # one untimed round: the files into the page cache
        timed_search(args.sleuth, args.root, query, args.refresh)
        timed_search(args.baseline, args.root, query, args.refresh)
    for _ in range(args.runs):
        for query in queries:
            times["sleuth"].append(timed_search(args.sleuth, args.root, query, args.refresh))
            times["baseline"].append(timed_search(args.baseline, args.root, query, args.refresh))
    summary = {
        name: {
            "p50_ms": round(1000 * statistics.median(values), 1),
            "p95_ms": round(1000 * percentile(values, 0.95), 1),
            "runs": len(values),
        }
        for name, values in times.items()
    }
    summary["ratio_p50"] = round(summary["sleuth"]["p50_ms"] / summary["baseline"]["p50_ms"], 3)
    summary["root"] = str(args.root)
    summary["machine"] = f"{platform.machine()}, {platform.python_version()}"
    emit(summary, args.out)


if __name__ == "__main__":
    main()
