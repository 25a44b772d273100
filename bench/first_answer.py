"""Time to the first answer of `sleuth search` on an unindexed copy (not a test).

Alternates runs of this checkout's `sleuth` with baselines measured in the same session,
because the machines are shared and timings drift with the load: ripgrep over the same
tree, and optionally another `sleuth` (e.g. main's code in a second virtualenv). Each
sleuth run gets a fresh copy of the tree; its background embedder is stopped as soon as
the answer is out, so it never slows the next run.

    python bench/first_answer.py /tmp/rails3 --runs 5 --baseline /tmp/main/.venv/bin/sleuth
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

from common import emit

QUERY = "how are requests routed"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sleuth_run(sleuth: str, source: Path, query: str) -> dict:
    """Cold `sleuth search --json` on a fresh copy: seconds until the answer is printed
    (its first byte on stdout), until the process exits, and CPU seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".sleuth"))
        cpu = _children_cpu()
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sleuth, "search", "--json", query, str(copy)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdout is not None
        first = proc.stdout.read(1)
        answered = time.perf_counter() - start
        stdout = (first + proc.stdout.read()).decode()
        proc.wait()
        wall = time.perf_counter() - start
        cpu = _children_cpu() - cpu
        status = subprocess.run(
            [sleuth, "status", "--json", str(copy)], capture_output=True, text=True
        )
        pid = json.loads(status.stdout or "{}").get("background_embedder_pid")
        if pid and pid > 0:
            os.kill(pid, signal.SIGTERM)
            time.sleep(0.5)
        data = json.loads(stdout)
        return {
            "answered": answered,
            "seconds": wall,
            "cpu": cpu,
            "results": len(data["results"]),
        }


def ripgrep_run(source: Path, query: str) -> dict:
    word = max(query.split(), key=len)
    start = time.perf_counter()
    subprocess.run(["rg", "-n", "-i", "--", word, str(source)], capture_output=True)
    return {"seconds": time.perf_counter() - start}


def _summary(runs: list[dict]) -> dict:
    seconds = [r["seconds"] for r in runs]
    out = {"median": statistics.median(seconds), "min": min(seconds), "max": max(seconds)}
    if runs and "answered" in runs[0]:
        answered = [r["answered"] for r in runs]
        out["answered_median"] = statistics.median(answered)
        out["answered_range"] = [min(answered), max(answered)]
    if runs and "cpu" in runs[0]:
        out["cpu_median"] = statistics.median(r["cpu"] for r in runs)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--query", default=QUERY)
    parser.add_argument("--baseline", help="another sleuth executable to alternate with")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    here = str(Path(sys.executable).with_name("sleuth"))
    variants = {"sleuth": here}
    if args.baseline:
        variants["baseline"] = args.baseline
    runs: dict[str, list[dict]] = {name: [] for name in [*variants, "ripgrep"]}
    loads = []
    for _ in range(args.runs):
        for name, exe in variants.items():
            loads.append(os.getloadavg()[0])
            runs[name].append(sleuth_run(exe, args.repo.resolve(), args.query))
            print(name, json.dumps(runs[name][-1]), file=sys.stderr)
        if shutil.which("rg"):
            runs["ripgrep"].append(ripgrep_run(args.repo.resolve(), args.query))
    summary = {name: _summary(r) for name, r in runs.items() if r}
    if "baseline" in summary:
        summary["ratio_median"] = summary["sleuth"]["median"] / summary["baseline"]["median"]
        summary["ratio_answered"] = (
            summary["sleuth"]["answered_median"] / summary["baseline"]["answered_median"]
        )
        pairs = zip(runs["sleuth"], runs["baseline"], strict=True)
        summary["ratio_per_pair"] = [a["seconds"] / b["seconds"] for a, b in pairs]
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, {platform.python_version()}",
        "repo": str(args.repo),
        "load_average": {"min": min(loads), "max": max(loads)},
        "runs": runs,
        **summary,
    }
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
