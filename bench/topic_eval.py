"""Queries in the benchmark's own form on trees outside it, as a check that file ranking
generalises.

`probes/topics.json` holds 915 short queries on the 94 trees of `probe_eval.py` (549
topics, 272 "how ..." questions, 94 names), each answered by one source file (and at
most two more that also answer), written by reading the code before any search, in the
style of the shared benchmark: "connection pooling and TCP connector", "how base
middleware wraps request handling". Scored by the benchmark's own scorer (NDCG@10 of
files, a result right when its file is a target), averaged per tree and then over
trees, as the benchmark averages per repository. The trees are exported and indexed
as `probe_eval.py` does (into the same cache).

    python bench/topic_eval.py                  # hybrid: NDCG@10 by tree, kind, overall
    python bench/topic_eval.py --mode lexical -v
    python bench/topic_eval.py --set docs=0.6   # a ranking knob changed
    python bench/topic_eval.py --topics bench/probes/topics-more.json

A queries file may name trees of its own: an entry with ``repo`` and ``commit`` beside
``name`` is exported from that mirror like a probe tree.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from common import bench_module, set_knobs
from probe_eval import QUESTIONS, open_tree, tree_arguments

from sleuth.benchmark import scored_results

HERE = Path(__file__).resolve().parent
TOPICS = HERE / "probes" / "topics.json"
BENCH = HERE.parent.parent / "shared" / "bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    tree_arguments(parser, "query")
    parser.add_argument("--bench-dir", type=Path, default=BENCH, help="for its scorer")
    parser.add_argument("--topics", type=Path, default=TOPICS, help="queries file")
    args = parser.parse_args()
    set_knobs(args.set)
    score = bench_module(args.bench_dir, "score")
    trees = {tree["name"]: tree for tree in json.loads(QUESTIONS.read_text())}
    by_tree: dict[str, float] = {}
    by_kind: dict[str, dict[str, list[float]]] = {}
    for entry in json.loads(args.topics.read_text()):
        name = entry["name"]
        if args.trees and name not in args.trees.split(","):
            continue
        # a tree of the probe questions, or one the queries file names itself (repo, commit)
        index = open_tree(trees.get(name, entry), args.cache, args.mirrors)
        if index is None:
            continue
        scores = []
        for number, task in enumerate(entry["tasks"], 1):
            targets = [score.parse_target(t) for t in task["relevant"] + task["secondary"]]
            results = index.search(task["query"], k=10, mode=args.mode).results
            scored = score.score_query(scored_results(results, ""), targets, 10, len(targets))
            scores.append(scored["ndcg"])
            by_kind.setdefault(task["category"], {}).setdefault(name, []).append(scored["ndcg"])
            if args.verbose:
                ranks = ",".join(map(str, scored["ranks"])) or "-"
                print(f"  {name}:{number:<3} {scored['ndcg']:.3f} {ranks:6} {task['query']}")
        index.close()
        by_tree[name] = statistics.mean(scores)
        print(f"{name:22} NDCG@10 {by_tree[name]:.4f}  ({len(scores)} queries)", flush=True)
    for kind, trees_scores in sorted(by_kind.items()):
        mean = statistics.mean(statistics.mean(v) for v in trees_scores.values())
        print(f"{kind:22} NDCG@10 {mean:.4f}")
    if by_tree:
        count = sum(len(v) for kinds in by_kind.values() for v in kinds.values())
        overall = statistics.mean(by_tree.values())
        print(f"{'all':22} NDCG@10 {overall:.4f}  ({len(by_tree)} trees, {count} queries)")


if __name__ == "__main__":
    main()
