"""`sleuth bench`: run the shared code search benchmark in-process and score it.

Each repository is read from its export at its pinned revision (made first, by the
benchmark's own ``prepare.py`` from git mirrors, when missing), indexed (incrementally:
a second run reuses the index), and every query goes through ``Index.search``. Results
are written as JSONL and scored with the benchmark's own ``score.py`` (NDCG@10,
Recall@10, MRR, by repo, language, category).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .api import Index
from .errors import SleuthError
from .results import Result

DEFAULT_CACHE = Path.home() / ".cache" / "sleuth-bench" / "repos"


@dataclass
class RepoRun:
    name: str
    index_seconds: float
    chunks: int
    latencies_ms: list[float] = field(default_factory=list)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def scored_results(results: list[Result], root: str) -> list[dict]:
    """Results as the scorer reads them: paths from the repository's top, not from the
    folder indexed (the export's ``benchmark_root``, ``root``)."""
    return [
        {
            "path": f"{root}/{r.path}" if root else r.path,
            "start_line": r.start_line,
            "end_line": r.end_line,
        }
        for r in results
    ]


def export_root(cache: Path, spec: dict) -> Path:
    """The folder of a repository's export that is indexed (its ``benchmark_root``)."""
    sub = spec.get("benchmark_root") or ""
    return cache / spec["name"] / sub if sub else cache / spec["name"]


def export_missing(
    bench_dir: Path,
    cache: Path,
    names: list[str],
    mirrors: Path | None,
    say: Callable[[str], None],
) -> None:
    """Export ``names`` at their pinned revisions with the benchmark's own ``prepare.py``
    (it knows the pins and the layout the annotations expect), from the git mirrors in
    ``mirrors``, else where prepare.py looks: ``$SLEUTH_BENCH_MIRRORS``, or a ``.mirror``
    folder above the current directory. What it cannot export stays missing."""
    script = bench_dir / "prepare.py"
    if not names or not script.is_file():
        return
    command = [sys.executable, str(script), "--cache", str(cache)]
    command += [arg for name in names for arg in ("--repo", name)]
    if mirrors is not None:
        command += ["--mirrors", str(mirrors)]
    say(f"exporting {len(names)} repositories at their pinned revisions: {', '.join(names)}")
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip():
                say(line.rstrip())


def load_tasks(bench_dir: Path, split: str | None, repos: list[str] | None) -> dict[str, list]:
    """repo name -> list of its queries, in annotation order."""
    names = None
    if split:
        split_path = Path(split) if Path(split).exists() else bench_dir / split
        names = [n.strip() for n in split_path.read_text().split() if n.strip()]
    if repos:
        names = [n for n in (names or repos) if n in repos]
    tasks: dict[str, list] = {}
    for file in sorted((bench_dir / "annotations").glob("*.json")):
        if names is not None and file.stem not in names:
            continue
        tasks[file.stem] = [item["query"] for item in json.loads(file.read_text())]
    return tasks


def run(
    bench_dir: Path,
    out: Path,
    cache: Path = DEFAULT_CACHE,
    split: str | None = "dev.txt",
    repos: list[str] | None = None,
    mode: str = "hybrid",
    embed: str = "deep",
    say: Callable[[str], None] = print,
    tier: str = "auto",
    mirrors: Path | None = None,
) -> dict:
    """Export what is missing, index and query every available repository; return the
    scorer's summary."""
    specs = {s["name"]: s for s in json.loads((bench_dir / "repos.json").read_text())}
    tasks = load_tasks(bench_dir, split, repos)
    if not tasks:
        raise SleuthError("no benchmark repositories selected (check --split / --repos)")
    unexported = [name for name in tasks if not export_root(cache, specs[name]).is_dir()]
    export_missing(bench_dir, cache, unexported, mirrors, say)
    out.parent.mkdir(parents=True, exist_ok=True)
    runs: list[RepoRun] = []
    missing: list[str] = []
    with out.open("w") as sink:
        for name, queries in tasks.items():
            sub = specs[name].get("benchmark_root") or ""
            root = export_root(cache, specs[name])
            if not root.is_dir():
                missing.append(name)
                continue
            index = Index(root, tier=tier)
            start = time.perf_counter()
            index.index(embed="none" if mode == "lexical" else embed)
            repo_run = RepoRun(name, time.perf_counter() - start, index.status()["chunks"])
            for i, query in enumerate(queries):
                begin = time.perf_counter()
                response = index.search(query, k=10, mode=mode)
                repo_run.latencies_ms.append(1000 * (time.perf_counter() - begin))
                results = scored_results(response.results, sub)
                sink.write(
                    json.dumps(
                        {"qid": f"{name}:{i}", "repo": name, "query": query, "results": results}
                    )
                    + "\n"
                )
            index.close()
            runs.append(repo_run)
            say(
                f"{name:<18} {repo_run.chunks:>6} chunks  index {repo_run.index_seconds:7.1f} s"
                f"  query p50 {statistics.median(repo_run.latencies_ms):6.1f} ms"
            )
    if missing and not runs:
        raise SleuthError(
            f"no exported repository under {cache} ({', '.join(missing)}), and none could "
            "be exported: they are exported by the benchmark's prepare.py from git "
            "mirrors of the repositories (give their folder with --mirrors; bench/README.md)"
        )
    if missing:
        say(f"not exported (no git mirror at the pinned revision): {', '.join(missing)}")
    summary_path = out.with_suffix(".summary.json")
    present = [r.name for r in runs]
    proc = subprocess.run(
        [
            sys.executable,
            str(bench_dir / "score.py"),
            str(out),
            "--only-present",
            "--quiet",
            "--json",
            str(summary_path),
            *[arg for n in present for arg in ("--repo", n)],
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SleuthError(f"score.py failed: {proc.stderr.strip()}")
    say(proc.stdout.rstrip())
    summary = json.loads(summary_path.read_text())
    latencies = [ms for r in runs for ms in r.latencies_ms]
    summary["timing"] = {
        "query_p50_ms": _percentile(latencies, 0.5),
        "query_p95_ms": _percentile(latencies, 0.95),
        "index_seconds": {r.name: round(r.index_seconds, 2) for r in runs},
        "chunks": {r.name: r.chunks for r in runs},
        "mode": mode,
        "embed": embed,
        "tier": tier,
    }
    summary_path.write_text(json.dumps(summary, indent=2) + "\n")
    say(
        f"query p50 {summary['timing']['query_p50_ms']:.1f} ms, "
        f"p95 {summary['timing']['query_p95_ms']:.1f} ms; summary in {summary_path}"
    )
    return summary
