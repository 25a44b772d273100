"""Fit the static table: token vectors whose weighted mean reproduces MiniLM's vectors.

With X the chunks' token weights (sublinear tf x idf, rows L2-normalised, the tokens of
``sleuth.embedding.static.static_terms``) and Y the MiniLM vectors of the same chunks,
the table E minimises ``||X E - Y||^2 + lam ||E - E0||^2``, where E0 is the distilled
table (each vocabulary token through MiniLM on its own): tokens seen rarely stay near
their distilled vector. This is a ridge regression; it is solved by conjugate gradients
on ``X^T X + lam I`` for all 384 columns at once (sparse products only, no V x V
matrix). Settings are judged on held-out corpus chunks (mean cosine to MiniLM), never
on benchmark queries.

    python bench/static/fit_table.py --cache ~/.cache/sleuth-static \
        --out src/sleuth/data/static-table.npz --distilled-out ~/.cache/sleuth-static/distilled.npz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from sleuth.embedding.static import static_terms


def load_corpus(
    cache: Path, features: str, limit: int | None
) -> tuple[list[Counter], np.ndarray, list[str]]:
    """Token counts of every corpus chunk, and the MiniLM vectors of the first ones.

    The corpus is shuffled, so the embedded prefix (all of it, or ``limit`` chunks)
    mixes every language.
    """
    shards = sorted(p for p in (cache / "vectors").glob("[0-9]*.npy") if ".tmp" not in p.name)
    targets = np.concatenate([np.load(s).astype(np.float32) for s in shards])[:limit]
    lines = (cache / "corpus.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    cuts = np.load(cache / "cuts.npy")
    texts = [
        r["text"][: cuts[i]] if features == "prefix" else r["text"] for i, r in enumerate(rows)
    ]
    return [static_terms(t) for t in texts], targets, [r["pkg"] for r in rows]


def vocabulary(counts: list[Counter], size: int, min_df: int) -> tuple[list[str], np.ndarray]:
    df: Counter = Counter()
    for c in counts:
        df.update(c.keys())
    words = [w for w, n in df.most_common(size) if n >= min_df]
    n = len(counts)
    idf = np.log((1 + n) / (1 + np.array([df[w] for w in words], dtype=np.float64))) + 1.0
    return words, idf.astype(np.float32)


def design(counts: list[Counter], index: dict[str, int], idf: np.ndarray) -> sp.csr_matrix:
    indptr, cols, vals = [0], [], []
    for c in counts:
        for word, tf in c.items():
            j = index.get(word)
            if j is not None:
                cols.append(j)
                vals.append((1.0 + np.log(tf)) * idf[j])
        indptr.append(len(cols))
    x = sp.csr_matrix(
        (np.asarray(vals, np.float32), np.asarray(cols), np.asarray(indptr)),
        shape=(len(counts), len(index)),
    )
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    return sp.diags(1.0 / np.maximum(norms, 1e-9)).astype(np.float32) @ x


def minilm_vectors(texts: list[str], cache: Path, name: str, batch_size: int) -> np.ndarray:
    """MiniLM's vectors of ``texts``, cached in ``cache`` under ``name`` and a hash of them."""
    key = hashlib.blake2b("\n".join(texts).encode(), digest_size=8).hexdigest()
    path = cache / f"{name}-{key}.npy"
    if path.exists():
        return np.load(path)
    from sleuth.embedding.minilm import MiniLMEmbedder

    vectors = MiniLMEmbedder(batch_size=batch_size).embed(texts)
    np.save(path, vectors)
    return vectors


def distilled(words: list[str], cache: Path) -> np.ndarray:
    """Each vocabulary token through MiniLM alone (cached: ~10-60 s)."""
    return minilm_vectors(words, cache, "distilled", batch_size=64)


def held_out(packages: list[str]) -> tuple[np.ndarray, set[str]]:
    """(mask of held-out rows, held-out packages): every row of one package in ten, whole
    packages, so the check is of unseen code, like the benchmark's unseen repositories."""
    names = sorted(set(packages))
    held = {p for i, p in enumerate(names) if i % 10 == 3}
    return np.array([p in held for p in packages]), held


def conjugate_gradients(
    x: sp.csr_matrix, b: np.ndarray, lam: float, start: np.ndarray, iters: int, tol: float
) -> np.ndarray:
    """Solve (X^T X + lam I) D = B column-wise, all columns in step."""
    xt = x.T.tocsr()
    d = start.copy()
    r = b - (xt @ (x @ d) + lam * d)
    p = r.copy()
    rs = (r * r).sum(axis=0)
    first = float(np.sqrt(rs.sum()))
    for step in range(iters):
        ap = xt @ (x @ p) + lam * p
        alpha = rs / np.maximum((p * ap).sum(axis=0), 1e-30)
        d += p * alpha
        r -= ap * alpha
        new = (r * r).sum(axis=0)
        residual = float(np.sqrt(new.sum())) / max(first, 1e-30)
        if step % 20 == 0:
            print(f"  cg step {step}: relative residual {residual:.2e}", flush=True)
        if residual < tol:
            break
        p = r + p * (new / np.maximum(rs, 1e-30))
        rs = new
    return d


def mean_cosine(x: sp.csr_matrix, table: np.ndarray, y: np.ndarray) -> float:
    pred = x @ table
    pred /= np.maximum(np.linalg.norm(pred, axis=1, keepdims=True), 1e-9)
    return float((pred * y).sum(axis=1).mean())


def save_table(path: Path, name: str, words: list[str], idf: np.ndarray, table: np.ndarray):
    vectors = table.astype(np.float16)
    tokens = np.frombuffer("\n".join(words).encode(), dtype=np.uint8)
    digest = hashlib.blake2b(vectors.tobytes() + tokens.tobytes() + idf.tobytes(), digest_size=6)
    ident = np.frombuffer(f"{name}-{digest.hexdigest()}".encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, id=ident, tokens=tokens, vectors=vectors, idf=idf.astype(np.float16))
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB, {len(words)} tokens)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sleuth-static")
    parser.add_argument("--vocab", type=int, default=20_000)
    parser.add_argument("--min-df", type=int, default=3)
    parser.add_argument("--features", choices=["prefix", "full"], default="prefix")
    parser.add_argument("--lam", type=float, nargs="+", default=[0.1])
    parser.add_argument("--iters", type=int, default=150)
    parser.add_argument("--limit", type=int, help="fit on the first N embedded chunks only")
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--distilled-out", type=Path)
    args = parser.parse_args()
    start = time.perf_counter()
    counts, targets, packages = load_corpus(args.cache, args.features, args.limit)
    # Vocabulary and idf over the whole corpus; the fit over the embedded chunks.
    words, idf = vocabulary(counts, args.vocab, args.min_df)
    index = {w: i for i, w in enumerate(words)}
    x = design(counts[: len(targets)], index, idf)
    packages = packages[: len(targets)]
    mask, held = held_out(packages)
    print(
        f"{len(targets)} of {len(counts)} chunks ({mask.sum()} held out, {len(held)} packages),"
        f" {len(words)} tokens,"
        f" {x.nnz / len(targets):.0f} tokens a chunk; {time.perf_counter() - start:.0f} s"
    )
    e0 = distilled(words, args.cache)
    print(f"distilled table: held-out mean cosine {mean_cosine(x[mask], e0, targets[mask]):.4f}")
    train_x, train_y = x[~mask], targets[~mask]
    best, best_score, delta = None, -1.0, np.zeros_like(e0)
    for lam in args.lam:
        b = train_x.T @ (train_y - train_x @ e0)
        delta = conjugate_gradients(train_x, b, lam, delta, args.iters, args.tol)
        table = e0 + delta
        score = mean_cosine(x[mask], table, targets[mask])
        fit = mean_cosine(train_x, table, train_y)
        print(f"lam {lam}: held-out mean cosine {score:.4f} (train {fit:.4f})", flush=True)
        if score > best_score:
            best, best_score = (lam, table), score
    assert best is not None
    lam, table = best
    print(f"best lam {lam}: refit on every chunk")
    delta = conjugate_gradients(x, x.T @ (targets - x @ e0), lam, table - e0, args.iters, args.tol)
    if args.out:
        save_table(args.out, "trained", words, idf, e0 + delta)
    if args.distilled_out:
        save_table(args.distilled_out, "distilled", words, idf, e0)
    print(f"done in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
