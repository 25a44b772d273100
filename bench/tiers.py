"""Search quality and cost of each tier on the dev split (docs/benchmarks.md, tiers).

Rows: lexical alone; lexical + distilled table; lexical + trained table; the trained
table alone; lexical + MiniLM-128 (deep). Every row goes through ``sleuth bench``'s
in-process runner (sleuth's own chunks and ranking), on the same indexes; the static
rows switch tables with ``SLEUTH_STATIC_TABLE``, which re-embeds the static tier.

The 26 repositories are split before any score is looked at: alphabetical order, even
positions tune (settings of the table may be picked on them), odd positions are held
out. NDCG@10 is reported for all, the tuning half and the held-out half.

Index time per tier: the lexical tier and the static tier are built from scratch on a
copy of every export (no .sleuth); the deep tier's time is its measured rate on a
fixed sample of chunks (the first 256 of each of the first four repositories) times
the chunk count, since its vectors are reused from an earlier run.

    python bench/tiers.py --cache ~/.cache/sleuth-bench-static \
        --distilled ~/.cache/sleuth-static/distilled.npz --out bench/results/tiers.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from sleuth.api import Index
from sleuth.benchmark import load_tasks
from sleuth.benchmark import run as run_benchmark
from sleuth.embedding.minilm import MiniLMEmbedder
from sleuth.embedding.static import table_path
from sleuth.prepare import embed_text

HERE = Path(__file__).resolve().parent


def halves(names: list[str]) -> tuple[list[str], list[str]]:
    ordered = sorted(names)
    return ordered[0::2], ordered[1::2]


def score_row(summary: dict, tune: list[str], held: list[str]) -> dict:
    by_repo = summary["by_repo"]

    def mean(names: list[str]) -> float:
        values = [by_repo[n]["ndcg"] for n in names if n in by_repo]
        return round(statistics.fmean(values), 4) if values else 0.0

    return {
        "ndcg": round(summary["ndcg"], 4),
        "ndcg_tune": mean(tune),
        "ndcg_held_out": mean(held),
        "recall": round(summary["recall"], 4),
        "mrr": round(summary["mrr"], 4),
        "query_p50_ms": round(summary["timing"]["query_p50_ms"], 2),
        "by_repo": {n: round(v["ndcg"], 4) for n, v in by_repo.items()},
    }


def build_times(bench_dir: Path, cache: Path, names: list[str]) -> dict:
    """Seconds to build each tier from scratch, summed over the repositories."""
    specs = {s["name"]: s for s in json.loads((bench_dir / "repos.json").read_text())}
    totals = {"lexical_s": 0.0, "static_trained_s": 0.0, "chunks": 0}
    sample: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sleuth-tiers-") as temp:
        for name in names:
            sub = specs[name].get("benchmark_root") or ""
            source = cache / name / sub if sub else cache / name
            if not source.is_dir():
                continue
            copy = Path(temp) / name
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".sleuth"))
            index = Index(copy)
            start = time.perf_counter()
            index.index(embed="none")
            totals["lexical_s"] += time.perf_counter() - start
            start = time.perf_counter()
            index.index(embed="static")
            totals["static_trained_s"] += time.perf_counter() - start
            meta = index._open()
            totals["chunks"] += meta.chunk_count()
            if len(sample) < 4 * 256:
                rows = meta.unembedded(256)
                sample.extend(embed_text(r.path, r) for r in rows)
            index.close()
            shutil.rmtree(copy)
    embedder = MiniLMEmbedder()
    start = time.perf_counter()
    embedder.embed(sample)
    rate = len(sample) / (time.perf_counter() - start)
    totals["deep_rate_chunks_s"] = round(rate, 1)
    totals["deep_estimated_s"] = round(totals["chunks"] / rate, 1)
    totals["static_rate_chunks_s"] = round(totals["chunks"] / totals["static_trained_s"], 1)
    totals["lexical_s"] = round(totals["lexical_s"], 1)
    totals["static_trained_s"] = round(totals["static_trained_s"], 1)
    return totals


def latencies(bench_dir: Path, cache: Path, names: list[str], table: Path) -> dict:
    """Query p50 per tier in one pass: each query runs in every tier back to back, so
    all tiers see the same load (the per-row p50s above come from separate runs)."""
    specs = {s["name"]: s for s in json.loads((bench_dir / "repos.json").read_text())}
    tasks = load_tasks(bench_dir, "dev.txt", names)
    os.environ["SLEUTH_STATIC_TABLE"] = str(table)
    times: dict[str, list[float]] = {"lexical": [], "static": [], "deep": []}
    for name in names:
        sub = specs[name].get("benchmark_root") or ""
        root = cache / name / sub if sub else cache / name
        static, deep = Index(root, tier="static"), Index(root, tier="deep")
        static.index(embed="static")
        for warm in (static, deep):
            warm.search("warm up", mode="hybrid")
        for query in tasks[name]:
            for tier, index, mode in (
                ("lexical", static, "lexical"),
                ("static", static, "hybrid"),
                ("deep", deep, "hybrid"),
            ):
                begin = time.perf_counter()
                index.search(query, k=10, mode=mode)
                times[tier].append(1000 * (time.perf_counter() - begin))
        static.close()
        deep.close()
    return {f"{tier}_p50_ms": round(statistics.median(v), 2) for tier, v in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=HERE.parents[1] / "shared" / "bench")
    parser.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache" / "sleuth-bench-static"
    )
    parser.add_argument("--trained", type=Path, default=None, help="default: the packaged table")
    parser.add_argument("--distilled", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "tiers.json")
    parser.add_argument("--rows", default="lexical,distilled,trained,trained_alone,deep")
    parser.add_argument("--no-times", action="store_true")
    parser.add_argument("--latency", action="store_true", help="query p50 per tier, interleaved")
    parser.add_argument("--only", choices=["tune", "held_out"], help="one half only")
    parser.add_argument("--tag", default="", help="suffix of the row names (variants)")
    args = parser.parse_args()
    bench_dir = args.bench_dir.resolve()
    names = sorted(load_tasks(bench_dir, "dev.txt", None))
    names = [n for n in names if (args.cache / n).is_dir()]
    tune, held = halves(names)
    if args.only:
        names = tune if args.only == "tune" else held
    trained = args.trained or table_path()
    rows = {
        "lexical": ("lexical", "none", "auto", None),
        "distilled": ("hybrid", "static", "static", args.distilled),
        "trained": ("hybrid", "static", "static", trained),
        "trained_alone": ("semantic", "static", "static", trained),
        "deep": ("hybrid", "deep", "deep", None),
        "deep_alone": ("semantic", "deep", "deep", None),
    }
    report: dict = {"tune": tune, "held_out": held, "rows": {}}
    if args.out.exists():
        report = json.loads(args.out.read_text())
    for row in filter(None, args.rows.split(",")):
        mode, embed, tier, table = rows[row]
        if table is not None:
            os.environ["SLEUTH_STATIC_TABLE"] = str(table)
        else:
            os.environ.pop("SLEUTH_STATIC_TABLE", None)
        print(f"== {row}: mode {mode}, embed {embed}, tier {tier}", flush=True)
        summary = run_benchmark(
            bench_dir,
            args.out.with_name(f"tiers-{row}{args.tag}.jsonl"),
            args.cache,
            "dev.txt",
            names,
            mode,
            embed,
            say=lambda line: print(line, flush=True),
            tier=tier,
        )
        report["rows"][row + args.tag] = score_row(summary, tune, held)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    if args.latency:
        report["latency"] = latencies(bench_dir, args.cache, names, trained)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(report["latency"])
    if not args.no_times:
        os.environ["SLEUTH_STATIC_TABLE"] = str(trained)
        report["build"] = build_times(bench_dir, args.cache, names)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    for row, values in report["rows"].items():
        print(
            f"{row:14} NDCG@10 {values['ndcg']:.4f}  tune {values['ndcg_tune']:.4f}"
            f"  held-out {values['ndcg_held_out']:.4f}  p50 {values['query_p50_ms']:.1f} ms"
        )
    print(json.dumps(report.get("build", {})))


if __name__ == "__main__":
    main()
