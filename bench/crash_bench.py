"""kill -9 at random moments of indexing and embedding; count the survivals.

Copies a source repository (default: the click benchmark export) to a temporary
folder, never indexing the shared export in place, and indexes it with every vector.
One unkilled round (below) measures how long a round's run takes. Then ``--rounds``
times:
change a fifth of the files (every fifth round: ``--full``), start
``sleuth index --embed deep``, SIGKILL it at a uniformly random moment of that duration,
then run ``sleuth status --check`` and a lexical ``sleuth search``. A round survives
when both exit 0 and the search finds the function named in the check. At the end, an
unkilled ``sleuth index --embed deep`` must leave SQLite, tantivy and the vectors file
in agreement (``Index.check`` without repair).

    python bench/crash_bench.py [SOURCE] [--rounds 20] [--out bench/results/crash.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sleuth import Index

DEFAULT_SOURCE = Path.home() / ".cache" / "sleuth-bench" / "repos" / "click"


def sleuth(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sleuth.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def progress(root: Path) -> tuple[int, int]:
    """(commit units, stored vectors) so far, read without opening the index for writing."""
    db = sqlite3.connect(f"file:{root / '.sleuth' / 'meta.db'}?mode=ro", uri=True, timeout=30)
    try:
        row = db.execute("SELECT value FROM state WHERE key='lexical_commit'").fetchone()
        vectors = db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    finally:
        db.close()
    return int(row[0]) if row else 0, vectors


def phase(before: tuple[int, int], after: tuple[int, int]) -> str:
    """Where the kill landed, judged by what the killed run had committed."""
    units, vectors = after[0] - before[0], after[1] - before[1]
    if vectors > 0:
        return f"embedding ({units} units, {vectors} vectors committed)"
    if units > 0:
        return f"indexing ({units} units committed)"
    return "before its first commit"


def mutate(root: Path, files: list[Path], rng: random.Random, round_no: int) -> None:
    """Append a uniquely named function to a fifth of the Python files."""
    for path in rng.sample(files, max(1, len(files) // 5)):
        with open(path, "a") as handle:
            name = f"crash_round_{round_no}_{path.stem}".replace("-", "calibration")
            handle.write(f"\n\ndef {name}(value):\n    return value\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="sleuth-crash-bench-"))
    root = work / "repo"
    rounds = []
    try:
        shutil.copytree(args.source, root, ignore=shutil.ignore_patterns(".sleuth"))
        files = sorted(p for p in root.rglob("*.py") if ".sleuth" not in p.parts)
        first = sleuth("index", "--embed", "deep", str(root))
        assert first.returncode == 0, first.stderr
        mutate(root, files, rng, -1)  # one unkilled round gives the time span to kill in
        started = time.perf_counter()
        calibration = sleuth("index", "--embed", "deep", str(root))
        assert calibration.returncode == 0, calibration.stderr
        full_seconds = time.perf_counter() - started
        probe = files[0]
        for round_no in range(args.rounds):
            mutate(root, files, rng, round_no)
            before = progress(root)
            full = round_no % 5 == 4
            command = ["index", "--embed", "deep", *(["--full"] if full else []), str(root)]
            proc = subprocess.Popen(
                [sys.executable, "-m", "sleuth.cli.main", *command],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            delay = rng.uniform(0.0, full_seconds)
            time.sleep(delay)
            finished = proc.poll() is not None
            if not finished:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            landed = phase(before, progress(root))
            check = sleuth("status", "--check", "--json", str(root))
            try:
                checked = json.loads(check.stdout)
            except json.JSONDecodeError:
                checked = {"error": (check.stdout + check.stderr).strip()[-300:]}
            name = probe.stem
            search = sleuth("search", name, str(root), "--mode", "lexical", "--no-refresh")
            survived = check.returncode == 0 and search.returncode == 0 and name in search.stdout
            rounds.append(
                {
                    "round": round_no,
                    "full": full,
                    "killed_after": round(delay, 2),
                    "finished_before_kill": finished,
                    "landed": landed,
                    "check_exit": check.returncode,
                    "repaired": checked.get("repaired", []),
                    "search_exit": search.returncode,
                    "survived": survived,
                }
            )
            print(json.dumps(rounds[-1]), flush=True)
        final = sleuth("index", "--embed", "deep", str(root))
        assert final.returncode == 0, final.stderr
        index = Index(root)
        report = index.check(repair=False)
        index.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "machine": f"{platform.machine()}, {platform.system()}",
        "source": str(args.source),
        "unkilled_round_seconds": round(full_seconds, 2),
        "rounds": len(rounds),
        "killed": sum(not r["finished_before_kill"] for r in rounds),
        "survived": sum(r["survived"] for r in rounds),
        "rounds_needing_repair": sum(bool(r["repaired"]) for r in rounds),
        "landed": {
            kind: sum(r["landed"].startswith(kind) for r in rounds)
            for kind in ("before", "indexing", "embedding")
        },
        "final_counts_agree": report.ok and not report.problems,
        "final": {
            "chunks": report.chunks,
            "lexical_docs": report.lexical_docs,
            "vectors": report.vectors,
            "embedded_chunks": report.embedded_chunks,
        },
        "details": rounds,
    }
    summary = {k: v for k, v in result.items() if k != "details"}
    print(json.dumps(summary, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
