"""Ablation of ranking signals on the shared benchmark's dev split, in one process.

Opens the indexes that `sleuth bench` built (it does not index), then runs every query once
per variant: the full ranking, and the ranking with one signal switched off. Scores with
the benchmark's own scorer functions (NDCG@10 mean over repositories, as published).

    python bench/ablation.py                      # hybrid, every signal
    python bench/ablation.py --mode lexical --only full,no_definition
    python bench/ablation.py --per-repo           # one column per variant, a row per repo

A variant is a name from VARIANTS; each switches one entry of `signals.PRIORS` or
`signals.SIGNALS` to neutral for its run and restores it afterwards.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from common import annotated_tasks, set_knobs

from sleuth import Index
from sleuth.benchmark import DEFAULT_CACHE, export_root, scored_results
from sleuth.search.ranking import signals

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"


def _variants() -> dict[str, dict]:
    """name -> {"priors": {...}, "signals": {...}} overrides of the full ranking."""
    variants: dict[str, dict] = {"full": {}}
    for name in signals.PRIORS:
        variants[f"no_{name}"] = {"priors": {name: 1.0}}
    for name, value in signals.SIGNALS.items():
        if isinstance(value, str) or name == "evidence_decay":
            continue  # a choice, not a switch (or 1.0 is neutral): compared below
        neutral = False if isinstance(value, bool) else 0.0
        variants[f"no_{name}"] = {"signals": {name: neutral}}
    variants["fusion_rrf"] = {"signals": {"fusion": "rrf"}}
    variants["sem_floor_min"] = {"signals": {"semantic_floor": "min"}}
    variants["sem_floor_zero"] = {"signals": {"semantic_floor": "zero"}}
    return variants


@contextmanager
def overridden(change: dict) -> Iterator[None]:
    saved_priors, saved_signals = dict(signals.PRIORS), dict(signals.SIGNALS)
    signals.PRIORS.update(change.get("priors", {}))
    signals.SIGNALS.update(change.get("signals", {}))
    try:
        yield
    finally:
        signals.PRIORS.clear()
        signals.PRIORS.update(saved_priors)
        signals.SIGNALS.clear()
        signals.SIGNALS.update(saved_signals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=BENCH)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--split", default="dev.txt")
    parser.add_argument("--mode", default="hybrid", choices=["hybrid", "lexical", "semantic"])
    parser.add_argument("--only", help="comma-separated variant names")
    parser.add_argument("--repos", help="comma-separated subset of repositories")
    parser.add_argument("--per-repo", action="store_true")
    parser.add_argument("--out", type=Path, help="write the table as JSON here")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a prior or signal for every variant (exploration)",
    )
    args = parser.parse_args()
    set_knobs(args.set)

    subset = set(args.repos.split(",")) if args.repos else None
    score, specs, by_repo = annotated_tasks(args.bench_dir, args.split, subset)
    variants = _variants()
    chosen = args.only.split(",") if args.only else list(variants)
    unknown = [v for v in chosen if v not in variants]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {', '.join(variants)}")

    table: dict[str, dict[str, float]] = {v: {} for v in chosen}
    latencies: list[float] = []
    for repo, repo_tasks in sorted(by_repo.items()):
        sub = specs[repo].get("benchmark_root") or ""
        root = export_root(args.cache, specs[repo])
        if not (root / ".sleuth").is_dir():
            print(f"skip {repo}: no index (run `sleuth bench` first)", file=sys.stderr)
            continue
        index = Index(root)
        vectors: dict[str, object] = {}  # a query's vector does not depend on the variant
        embed = index._embed_query

        def cached(text: str, embed=embed, vectors=vectors):
            if text not in vectors:
                vectors[text] = embed(text)
            return vectors[text]

        index._embed_query = cached
        for variant in chosen:
            with overridden(variants[variant]):
                values = []
                for task in repo_tasks:
                    begin = time.perf_counter()
                    response = index.search(task["query"], k=10, mode=args.mode)
                    if variant == chosen[0]:  # later variants reuse the query vector
                        latencies.append(1000 * (time.perf_counter() - begin))
                    results = scored_results(response.results, sub)
                    n_relevant = len(task["targets"])
                    values.append(score.score_query(results, task["targets"], 10, n_relevant))
                table[variant][repo] = statistics.mean(v["ndcg"] for v in values)
        index.close()

    repos = sorted({r for column in table.values() for r in column})
    full = table.get("full")
    print(f"mode {args.mode}, {len(repos)} repositories, NDCG@10 (mean over repositories)")
    for variant in chosen:
        mean = statistics.mean(table[variant].values()) if table[variant] else 0.0
        delta = (
            f"  {mean - statistics.mean(full.values()):+.4f}" if full and variant != "full" else ""
        )
        print(f"  {variant:<22} {mean:.4f}{delta}")
    if args.per_repo:
        print("repo".ljust(18) + "".join(v[:12].rjust(13) for v in chosen))
        for repo in repos:
            cells = "".join(f"{table[v].get(repo, 0):13.3f}" for v in chosen)
            print(repo.ljust(18) + cells)
    if latencies:
        print(f"query p50 {statistics.median(latencies):.1f} ms over {len(latencies)} searches")
    if args.out:
        args.out.write_text(json.dumps(table, indent=2) + "\n")


if __name__ == "__main__":
    main()
