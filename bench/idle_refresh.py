"""Time of an index run that finds nothing to change (not a test).

A command-line search brings the index up to date first: it walks the tree, checks each
path against the ignore files and the secret and generated-file lists, and compares
sizes and times with what the index holds. On an unchanged tree that is all the run
does, so its time is what every search pays for freshness. Runs this checkout's code
and a baseline interpreter (another checkout in its own virtualenv) in turns, each in
a process of its own, and reports the medians and their ratio.

    python bench/idle_refresh.py /path/to/indexed/repo \
        --baseline-python /tmp/base/.venv/bin/python --rounds 3 --out idle.json
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from common import emit

#: Run in a child process: one untimed run, then the median of ``runs`` timed ones (ms).
CHILD = """
import statistics, sys, time
from sleuth import Index
index = Index(sys.argv[1])
index.index(embed="none")
times = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    index.index(embed="none")
    times.append(time.perf_counter() - start)
print(1000 * statistics.median(times))
"""


def median_ms(python: str, root: Path, runs: int) -> float:
    done = subprocess.run(
        [python, "-c", CHILD, str(root), str(runs)],
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )
    if done.returncode != 0:
        sys.exit(f"{python} failed: {done.stderr.strip()[-500:]}")
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path, help="an indexed repository")
    parser.add_argument("--baseline-python", required=True, help="the other interpreter")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per process")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rounds = []
    for _ in range(args.rounds):
        now = median_ms(args.python, args.root, args.runs)
        before = median_ms(args.baseline_python, args.root, args.runs)
        rounds.append({"now_ms": round(now, 1), "baseline_ms": round(before, 1)})
    summary = {
        "rounds": rounds,
        "ratio_of_medians": round(
            statistics.median(r["now_ms"] for r in rounds)
            / statistics.median(r["baseline_ms"] for r in rounds),
            3,
        ),
        "root": str(args.root),
        "machine": f"{platform.machine()}, {platform.python_version()}",
    }
    emit(summary, args.out)


if __name__ == "__main__":
    main()
