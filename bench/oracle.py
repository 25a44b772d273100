"""How far a per-question choice of retriever could go (not a test).

Runs every dev question in lexical, semantic and hybrid mode over the indexes that
`sleuth bench` built, scores each answer with the benchmark's scorer, and reports the
means (over repositories, as published) beside oracles that keep, per question, the
best of two or three answers. The gap between hybrid and an oracle is what a perfect
per-question choice of fusion would add; how often hybrid loses to each retriever alone
says where that gap comes from.

    python bench/oracle.py
    python bench/oracle.py --repos pandoc,zod --out oracle.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
from itertools import combinations
from pathlib import Path

from common import annotated_tasks, bench_roots, emit

from sleuth import Index
from sleuth.benchmark import DEFAULT_CACHE, scored_results

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"
MODES = ("lexical", "semantic", "hybrid")


def per_question(bench_dir: Path, cache: Path, repos: set[str] | None) -> dict[str, list[dict]]:
    """repo -> one row per question: NDCG@10 of each mode."""
    score, specs, by_repo = annotated_tasks(bench_dir, "dev.txt", repos)
    roots = bench_roots(bench_dir, cache, sorted(by_repo))
    rows: dict[str, list[dict]] = {}
    for repo, repo_tasks in sorted(by_repo.items()):
        if not (roots[repo] / ".sleuth").is_dir():
            print(f"skip {repo}: no index (run `sleuth bench` first)", file=sys.stderr)
            continue
        sub = specs[repo].get("benchmark_root") or ""
        index = Index(roots[repo])
        rows[repo] = []
        for task in repo_tasks:
            row = {"query": task["query"]}
            for mode in MODES:
                response = index.search(task["query"], k=10, mode=mode)
                results = scored_results(response.results, sub)
                targets = task["targets"]
                row[mode] = score.score_query(results, targets, 10, len(targets))["ndcg"]
            rows[repo].append(row)
        index.close()
    return rows


def summary(rows: dict[str, list[dict]]) -> dict:
    """Means over repositories of each mode and of each oracle, and hybrid's losses."""

    def mean(pick) -> float:
        return round(statistics.mean(statistics.mean(map(pick, qs)) for qs in rows.values()), 4)

    out: dict = {"repositories": len(rows), "questions": sum(map(len, rows.values()))}
    out.update({mode: mean(lambda q, m=mode: q[m]) for mode in MODES})
    for size in (2, 3):
        for modes in combinations(MODES, size):
            out["best of " + " + ".join(modes)] = mean(lambda q, ms=modes: max(q[m] for m in ms))
    every = [q for qs in rows.values() for q in qs]
    for mode in ("lexical", "semantic"):
        out[f"hybrid below {mode}"] = sum(q["hybrid"] < q[mode] - 1e-9 for q in every)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=BENCH)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--repos", help="comma-separated subset of repositories")
    parser.add_argument("--out", type=Path, help="also write the summary as JSON here")
    args = parser.parse_args()
    repos = set(args.repos.split(",")) if args.repos else None
    emit(summary(per_question(args.bench_dir, args.cache, repos)), args.out)


if __name__ == "__main__":
    main()
