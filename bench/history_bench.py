"""History indexing benchmark on one real git repository (not a test).

Measures, in one run: `git log -p` over the same commits (the baseline), the lexical
tier of `sleuth history` from scratch (commits/s), a no-op incremental update, warm
query latency (lexical), commit embedding rate over a time budget, and disk size.

    python bench/history_bench.py /tmp/rails --embed-seconds 120 --out bench/results/history.json
"""

from __future__ import annotations

import argparse
import platform
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from common import emit

from sleuth.history import HistoryIndex
from sleuth.history.documents import row_embed_text

QUERIES = [
    "retry failed connection",
    "deprecate",
    "fix memory leak in cache",
    "connection pool",
    "raise error when",
    "performance improvement",
    "add support for",
    "thread safety",
]


def _git_log_seconds(root: Path, *extra: str) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        ["git", "-C", str(root), "log", "--no-color", *extra, "HEAD"], stdout=subprocess.PIPE
    )
    size = 0
    assert proc.stdout is not None
    while chunk := proc.stdout.read(1 << 20):
        size += len(chunk)
    proc.wait()
    return time.perf_counter() - start, size


def _size(paths) -> int:
    total = 0
    for path in paths:
        files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
        total += sum(f.stat().st_size for f in files)
    return total


def _code_chunk_texts(root: Path, limit: int) -> list[str]:
    """What the code index embeds, for the same repository: the baseline for commits."""
    from sleuth.chunking import chunk_text
    from sleuth.discover import walk
    from sleuth.languages import language_for
    from sleuth.prepare import decode, embed_text

    texts: list[str] = []
    for found in walk(root):
        if len(texts) >= limit:
            break
        if not hasattr(found, "size") or not found.path.endswith((".rb", ".py", ".js")):
            continue
        text = decode((root / found.path).read_bytes())
        if text is None:
            continue
        chunks, _ = chunk_text(language_for(found.path), text)
        texts.extend(embed_text(found.path, chunk) for chunk in chunks)
    return texts[:limit]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", type=Path)
    parser.add_argument("--embed-seconds", type=float, default=60.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--baseline-commits",
        type=int,
        default=0,
        help="Compare over the newest N commits only (when older objects are missing).",
    )
    args = parser.parse_args()
    root = args.repo.resolve()
    result: dict = {
        "repo": str(root),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
    }
    commits = int(
        subprocess.run(
            ["git", "-C", str(root), "rev-list", "--count", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    result["commits"] = commits

    history = HistoryIndex(root)
    history.clean()
    shutil.rmtree(history.layout.lexical, ignore_errors=True)

    limit = ["-n", str(args.baseline_commits)] if args.baseline_commits else []
    seconds, size = _git_log_seconds(root, "-p", *limit)
    result["baseline_commits"] = args.baseline_commits or commits
    result["baseline_git_log_p_seconds"] = round(seconds, 2)
    result["baseline_git_log_p_bytes"] = size
    print("git log -p:", result["baseline_git_log_p_seconds"], "s", flush=True)

    first_batch: list[float] = []
    at_baseline: list[float] = []
    start = time.perf_counter()

    def progress(phase: str, done: int, total: int, note: str = "") -> None:
        if phase == "history" and done and not first_batch:
            first_batch.append(time.perf_counter() - start)
        if phase == "history" and done >= result["baseline_commits"] and not at_baseline:
            at_baseline.append(time.perf_counter() - start)

    report = history.update(progress, embed="none")
    lexical_seconds = time.perf_counter() - start
    result["lexical_tier_seconds"] = round(lexical_seconds, 2)
    result["first_batch_seconds"] = round(first_batch[0], 2) if first_batch else None
    result["commits_indexed"] = report.total_commits
    result["lexical_commits_per_second"] = round(report.total_commits / lexical_seconds)
    result["notices"] = report.notices
    result["lexical_seconds_over_baseline_range"] = round(at_baseline[0], 2)
    result["ratio_lexical_tier_to_git_log_p"] = round(at_baseline[0] / seconds, 2)
    print("lexical tier:", result["lexical_tier_seconds"], "s", flush=True)

    start = time.perf_counter()
    history.update(embed="none")
    result["noop_update_seconds"] = round(time.perf_counter() - start, 3)

    latencies = []
    for query in QUERIES:
        history.search(query, 10, mode="lexical")
        for _ in range(5):
            t = time.perf_counter()
            history.search(query, 10, mode="lexical")
            latencies.append((time.perf_counter() - t) * 1000)
    result["lexical_query_ms_p50"] = round(statistics.median(latencies), 1)

    # Embedding: commits against code chunks of the same repository, batches taking
    # turns, so both rates see the same machine load.
    chunk_texts = _code_chunk_texts(root, 4096)
    embedder = history.embedder
    commit_texts = [row_embed_text(r) for r in history._open().unembedded(len(chunk_texts))]
    chunk_seconds = commit_seconds = 0.0
    chunks_done = embedded = 0
    deadline = time.perf_counter() + args.embed_seconds / 2
    while time.perf_counter() < deadline and chunks_done + 64 <= len(chunk_texts):
        t = time.perf_counter()
        embedder.embed(chunk_texts[chunks_done : chunks_done + 64])
        chunk_seconds += time.perf_counter() - t
        chunks_done += 64
        t = time.perf_counter()
        embedder.embed(commit_texts[embedded : embedded + 64])
        commit_seconds += time.perf_counter() - t
        embedded += 64
    result["model_commits_per_second"] = round(embedded / commit_seconds, 1)
    result["embed_commits_per_second"] = round(embedded / commit_seconds, 1)
    result["baseline_embed_code_chunks_per_second"] = round(chunks_done / chunk_seconds, 1)
    result["ratio_commit_rate_to_chunk_rate"] = round(
        (embedded / commit_seconds) / (chunks_done / chunk_seconds), 2
    )
    start = time.perf_counter()
    stored = history.embed(seconds=args.embed_seconds / 2)  # the real loop: store, publish
    result["embedded_commits"] = stored
    result["embed_commits_per_second"] = round(stored / (time.perf_counter() - start), 1)
    result["embed_eta_all_minutes"] = round(commits / result["embed_commits_per_second"] / 60)
    latencies = []
    for query in QUERIES:
        history.search(query, 10)
        t = time.perf_counter()
        history.search(query, 10)
        latencies.append((time.perf_counter() - t) * 1000)
    result["hybrid_query_ms_p50_partial_vectors"] = round(statistics.median(latencies), 1)
    result["disk_bytes"] = _size(history.layout.directory.glob("history*"))
    emit(result, args.out)


if __name__ == "__main__":
    main()
