"""Fit the static table's rows for questions: how words of short English should embed.

The table (``fit_table.py``) is fitted on code chunks, so a question such as "how are
failed uploads retried" is embedded by rows fitted to code. This script fits a second
set of rows, for questions only, by the same ridge regression: with X the token weights
of short English sentences (the first paragraph of doc comments, from
``bench/adapter/build_pairs.py``; none from a benchmark repository) and Y their MiniLM
vectors, ``||X Q - Y||^2 + lam ||Q - E||^2``, E the code-fitted table. Only words that
occur in the sentences move; the rows that do are written into the table file as
``query_rows`` / ``query_vectors``. The table's id and its chunk rows stay as they
were, so no index rebuilds its vectors. lam is picked on held-out packages' sentences
(mean cosine to MiniLM), never on benchmark queries.

    python bench/adapter/build_pairs.py --cache ~/.cache/sleuth-static \
        --per-package 4000 --per-language 30000 --out ~/.cache/sleuth-static/pairs.jsonl
    python bench/static/fit_query_rows.py --pairs ~/.cache/sleuth-static/pairs.jsonl \
        --table src/sleuth/data/static-table.npz
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from fit_table import conjugate_gradients, design, held_out, mean_cosine, minilm_vectors

from sleuth.embedding.static import StaticTable, static_terms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--table", type=Path, required=True, help="rewritten in place")
    parser.add_argument("--lam", type=float, nargs="+", default=[1.0, 3.0, 10.0])
    parser.add_argument("--iters", type=int, default=150)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument(
        "--min-sentences", type=int, default=5, help="rows of rarer words are not stored"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines()]
    sentences = [p["query"] for p in pairs]
    table = StaticTable(args.table)
    base = table.vectors.astype(np.float32)
    x = design([static_terms(s) for s in sentences], table.index, table.idf)
    # MiniLM vectors of the sentences, cached beside the pairs (~1 min per 25,000)
    y = minilm_vectors(sentences, args.pairs.parent, "question-targets", batch_size=32)
    known = np.asarray(x.getnnz(axis=1) > 0)
    x, y = x[known], y[known]
    packages = [p["pkg"] for p, k in zip(pairs, known, strict=True) if k]
    mask, held = held_out(packages)
    print(
        f"{len(y)} sentences ({mask.sum()} held out, {len(held)} packages);"
        f" held-out mean cosine with the chunk rows {mean_cosine(x[mask], base, y[mask]):.4f}"
    )
    train_x, train_y = x[~mask], y[~mask]
    best, best_score, delta = None, -1.0, np.zeros_like(base)
    for lam in args.lam:
        b = train_x.T @ (train_y - train_x @ base)
        delta = conjugate_gradients(train_x, b, lam, delta, args.iters, args.tol)
        score = mean_cosine(x[mask], base + delta, y[mask])
        print(f"lam {lam}: held-out mean cosine {score:.4f}", flush=True)
        if score > best_score:
            best, best_score = (lam, delta.copy()), score
    assert best is not None
    lam, delta = best
    # Words in few sentences barely move (lam holds them); their rows stay the chunk
    # rows, which keeps the file small.
    rows = np.flatnonzero(np.asarray(x.getnnz(axis=0)) >= args.min_sentences).astype(np.int32)
    kept = base.copy()
    kept[rows] += delta[rows]
    score = mean_cosine(x[mask], kept, y[mask])
    print(f"best lam {lam}; held-out mean cosine with only the {len(rows)} stored rows {score:.4f}")
    delta = conjugate_gradients(x, x.T @ (y - x @ base), lam, delta, args.iters, args.tol)
    with np.load(args.table) as data:
        members = {name: data[name] for name in ("id", "tokens", "vectors", "idf")}
    np.savez(
        args.table,
        **members,
        query_rows=rows,
        query_vectors=(base[rows] + delta[rows]).astype(np.float16),
    )
    size = args.table.stat().st_size / 1e6
    print(f"wrote {len(rows)} question rows into {args.table} ({size:.1f} MB)")
    print(f"done in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
