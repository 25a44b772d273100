"""Save-to-searchable latency of the watcher (a benchmark, not a test).

Copies a source tree (default: every benchmark export, side by side: a repository of
tens of thousands of chunks) to a temporary folder, indexes it, starts a ``Watcher``
and then, ``--edits`` times: appends a function with a unique name to a random source
file and polls a lexical search (a separate ``Index``, as a server's reader) until a
hit in that file shows the new name (the top hit may be elsewhere: test files rank
lower). Baselines from the same run: a no-op ``Index.index()`` (the walk that `sleuth
search` and MCP refresh pay before noticing a change) and an ``Index.index()`` after
one edited file (what re-indexing costs without a watcher).

    python bench/watch_latency.py [SOURCE] [--edits 20] [--out bench/results/watch.json]
"""

from __future__ import annotations

import argparse
import platform
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from common import emit, percentile

from sleuth import Index
from sleuth.live import WatchBatch, Watcher

DEFAULT_SOURCE = Path.home() / ".cache" / "sleuth-bench" / "repos"
SUFFIXES = {".py", ".rb", ".js", ".ts", ".go", ".rs", ".java", ".lua"}


def probe(suffix: str, name: str) -> str:
    """A small function named ``name`` in the file's language (one of SUFFIXES)."""
    if suffix == ".rb":
        return f"\ndef {name}(value)\n  value * 2\nend\n"
    if suffix in (".js", ".ts"):
        return f"\nfunction {name}(value) {{\n  return value * 2;\n}}\n"
    if suffix == ".go":
        return f"\nfunc {name}(value int) int {{\n\treturn value * 2\n}}\n"
    if suffix == ".rs":
        return f"\nfn {name}(value: i64) -> i64 {{\n    value * 2\n}}\n"
    if suffix == ".java":
        body = f"    int {name}(int value) {{\n        return value * 2;\n    }}\n"
        return f"\nclass Probe_{name} {{\n{body}}}\n"
    if suffix == ".lua":
        return f"\nlocal function {name}(value)\n  return value * 2\nend\n"
    return f"\n\ndef {name}(value):\n    return value * 2\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--debounce", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    work = Path(tempfile.mkdtemp(prefix="sleuth-watch-bench-"))
    root = work / "repo"
    try:
        shutil.copytree(args.source, root, ignore=shutil.ignore_patterns(".sleuth"))
        started = time.perf_counter()
        built = Index(root).index(embed="none")
        build_seconds = time.perf_counter() - started
        chunks = Index(root).status()["chunks"]
        sources = sorted(
            p
            for p in root.rglob("*")
            if p.suffix in SUFFIXES and p.is_file() and ".sleuth" not in p.parts
        )
        indexed = set(Index(root)._open().files())
        sources = [p for p in sources if p.relative_to(root).as_posix() in indexed]

        noop = []
        one_edit = []
        baseline_index = Index(root)
        for i in range(5):
            t = time.perf_counter()
            baseline_index.index(embed="none")
            noop.append(time.perf_counter() - t)
            target = rng.choice(sources)
            with open(target, "a") as handle:
                handle.write(probe(target.suffix, f"baseline_probe_{i}_{rng.randrange(10**9)}"))
            t = time.perf_counter()
            baseline_index.index(embed="none")
            one_edit.append(time.perf_counter() - t)
        baseline_index.close()

        batches: list[WatchBatch] = []
        reader = Index(root)
        watcher = Watcher(reader, debounce_ms=args.debounce, on_batch=batches.append, embed="none")
        watcher.start()
        assert watcher.ready.wait(120), "watcher did not start"
        latencies: list[float] = []
        misses: list[str] = []
        for i in range(args.edits):
            target = rng.choice(sources)
            rel = target.relative_to(root).as_posix()
            name = f"watch_probe_{i}_{rng.randrange(10**9)}"
            text = probe(target.suffix, name)
            saved = time.perf_counter()
            with open(target, "a") as handle:
                handle.write(text)
            while True:
                results = reader.search(name, k=10, mode="lexical").results
                if any(r.path == rel and name in r.preview for r in results):
                    latencies.append(time.perf_counter() - saved)
                    break
                if time.perf_counter() - saved > 30:
                    misses.append(f"{rel}: top hit {results[0].path if results else None}")
                    break
                time.sleep(0.005)
            time.sleep(0.3)
        watcher.stop()
        reader.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    batch_seconds = [b.seconds for b in batches if not b.full and not b.error]
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "machine": f"{platform.machine()}, {platform.system()}",
        "source": str(args.source),
        "files": built.update.scanned,
        "chunks": chunks,
        "build_seconds": round(build_seconds, 2),
        "debounce_ms": args.debounce,
        "edits": args.edits,
        "missed": misses,
        "latency_p50": round(statistics.median(latencies), 3),
        "latency_p95": round(percentile(latencies, 0.95), 3),
        "latency_max": round(max(latencies), 3),
        "batch_apply_p50": round(statistics.median(batch_seconds), 3) if batch_seconds else None,
        "noop_index_p50": round(statistics.median(noop), 3),
        "one_edit_index_p50": round(statistics.median(one_edit), 3),
    }
    result["latency_p50_vs_one_edit_index"] = round(
        result["latency_p50"] / result["one_edit_index_p50"], 2
    )
    emit(result, args.out)


if __name__ == "__main__":
    main()
