"""Time from `sleuth index` on the Django 5.1.4 sdist to its first answer and to a full deep tier.

The sdist (``pip download --no-deps --no-binary :all: Django==5.1.4``) is extracted to
a temporary folder. Measured as a user would see it, with cold CLI processes: plain
``sleuth index`` (instant tiers in the foreground, the deep tier left to a background
process), then ``sleuth search``; then ``sleuth status --json`` is polled until every
chunk has its transformer vector, or until ``--deep-limit`` seconds, after which the
remaining time is extrapolated from the rate seen so far (the report says which).

    python bench/django_first_answer.py --sdist ~/.cache/sleuth-static/django/Django-5.1.4.tar.gz
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

SLEUTH = [sys.executable, "-m", "sleuth.cli"]


def sleuth(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*SLEUTH, *args], capture_output=True, text=True, env=env, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sdist", type=Path, required=True)
    parser.add_argument("--embed", default="background", help="what plain `sleuth index` does")
    parser.add_argument("--query", default="where is the CSRF token checked")
    parser.add_argument("--deep-limit", type=float, default=1800.0)
    parser.add_argument("--no-deep", action="store_true", help="stop after the first answer")
    parser.add_argument("--out", type=Path, default=Path("bench/results/django.json"))
    args = parser.parse_args()
    temp = Path(tempfile.mkdtemp(prefix="sleuth-django-"))
    try:
        with tarfile.open(args.sdist) as archive:
            archive.extractall(temp, filter="data")
        root = next(temp.iterdir())
        files = sum(1 for p in root.rglob("*") if p.is_file())
        env = dict(os.environ)
        # Baseline in the same run: one grep pass over the tree for a query word.
        begin = time.perf_counter()
        subprocess.run(["grep", "-rIni", "csrf", str(root)], capture_output=True, check=False)
        grep_s = time.perf_counter() - begin
        start = time.perf_counter()
        indexed = sleuth("index", str(root), "--embed", args.embed, "--json", env=env)
        index_done = time.perf_counter() - start
        found = sleuth("search", args.query, str(root), "--json", env=env)
        first_answer = time.perf_counter() - start
        hits = json.loads(found.stdout)["results"] if found.returncode == 0 else []
        report = {
            "files_in_sdist": files,
            "grep_s": round(grep_s, 2),
            "index": json.loads(indexed.stdout) if indexed.returncode == 0 else indexed.stderr,
            "index_s": round(index_done, 2),
            "first_answer_s": round(first_answer, 2),
            "first_hit": hits[0]["path"] if hits else None,
        }
        print(json.dumps(report, indent=1), flush=True)
        samples = []
        while not args.no_deep:
            status = json.loads(sleuth("status", str(root), "--json").stdout)
            now = time.perf_counter() - start
            samples.append((now, status["embedded_chunks"]))
            print(f"{now:7.0f} s  {status['embedded_chunks']}/{status['chunks']}", flush=True)
            if status["embedded_chunks"] >= status["chunks"]:
                report["deep_complete_s"] = round(now, 1)
                report["deep_extrapolated"] = False
                break
            if now > args.deep_limit or (
                not status["background_embedder_pid"] and len(samples) > 2
            ):
                (t0, n0), (t1, n1) = samples[1], samples[-1]
                rate = (n1 - n0) / max(t1 - t0, 1e-9)
                remaining = (status["chunks"] - n1) / rate if rate > 0 else float("inf")
                report["deep_complete_s"] = round(now + remaining, 1)
                report["deep_extrapolated"] = True
                report["deep_rate_chunks_s"] = round(rate, 1)
                pid = status["background_embedder_pid"]
                if pid:
                    os.kill(pid, 15)
                break
            time.sleep(15)
        report["chunks"] = json.loads(sleuth("status", str(root), "--json").stdout)["chunks"]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(json.dumps(report, indent=1))
    finally:
        time.sleep(1)
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
