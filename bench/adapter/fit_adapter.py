"""Fit the query adapter: a linear map on query vectors towards the code they ask for.

Embeds the pairs of ``build_pairs.py`` with sleuth's own MiniLM embedder (cached in
``vectors.npz`` beside the pairs), then fits ``W`` (384 x 384, started at the identity)
by contrastive learning: each question's mapped vector must be closer to its own code
than to the other code of the same package in its batch (in-batch negatives, softmax
with temperature). Plain numpy: the gradient is written out, Adam steps, a penalty
keeps ``W`` near the identity. One package in ten is held out to choose the epoch count
and penalty; then ``W`` is refitted on every pair and written as float16.

    python bench/adapter/fit_adapter.py --cache ~/.cache/sleuth-static \\
        --out src/sleuth/data/query-adapter.npz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

from sleuth.embedding.minilm import MiniLMEmbedder


def embed_pairs(pairs: list[dict], cache: Path, field: str) -> tuple[np.ndarray, np.ndarray]:
    path = cache / f"vectors-{field}.npz"
    if path.exists():
        data = np.load(path)
        if len(data["q"]) == len(pairs):
            return data["q"], data["d"]
    embedder = MiniLMEmbedder()
    start = time.perf_counter()
    q = embedder.embed([p["query"] for p in pairs])
    d = embedder.embed([p[field] for p in pairs])
    print(f"embedded {len(pairs)} pairs in {time.perf_counter() - start:.0f} s")
    np.savez(path, q=q, d=d)
    return q, d


def batches(groups: dict[str, list[int]], size: int, rng: np.random.Generator):
    """Batches drawn within one package: its other code is the hard negative."""
    out = []
    for items in groups.values():
        items = np.array(items)
        rng.shuffle(items)
        for i in range(0, len(items) - 1, size):
            chunk = items[i : i + size]
            if len(chunk) >= 4:
                out.append(chunk)
    rng.shuffle(out)
    return out


def loss_and_grad(W, Q, D, tau):
    mapped = Q @ W
    norms = np.linalg.norm(mapped, axis=1, keepdims=True)
    q = mapped / norms
    logits = q @ D.T / tau
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    n = len(Q)
    loss = -np.mean(np.log(p[np.arange(n), np.arange(n)] + 1e-12))
    dlogits = p.copy()
    dlogits[np.arange(n), np.arange(n)] -= 1
    dlogits /= n
    dq = dlogits @ D / tau
    dmapped = (dq - q * (q * dq).sum(axis=1, keepdims=True)) / norms
    return loss, Q.T @ dmapped


def fit(Q, D, groups, epochs, lam, tau=0.05, lr=1e-3, batch=64, seed=0):
    rng = np.random.default_rng(seed)
    dim = Q.shape[1]
    eye = np.eye(dim, dtype=np.float64)
    W = eye.copy()
    m = np.zeros_like(W)
    v = np.zeros_like(W)
    step = 0
    for _ in range(epochs):
        for idx in batches(groups, batch, rng):
            _, grad = loss_and_grad(W, Q[idx], D[idx], tau)
            grad += lam * (W - eye)
            step += 1
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad * grad
            W -= lr * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return W


def mrr(W, Q, D, groups) -> float:
    """Mean reciprocal rank of each question's code among all code of its package."""
    ranks = []
    for items in groups.values():
        items = np.array(items)
        q = Q[items] @ W
        sims = q @ D[items].T
        own = sims[np.arange(len(items)), np.arange(len(items))]
        ranks.extend(1.0 / (1 + (sims > own[:, None]).sum(axis=1)))
    return float(np.mean(ranks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sleuth-static")
    parser.add_argument("--field", default="doc", choices=["doc", "full"])
    parser.add_argument("--epochs", default="1,2,4,8")
    parser.add_argument("--lam", default="0,0.01,0.1")
    parser.add_argument("--tau", type=float, default=0.05)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--save-all", type=Path, help="folder for every fitted W (.npy)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.save_all:
        args.save_all.mkdir(parents=True, exist_ok=True)
    with open(args.cache / "pairs.jsonl") as source:
        pairs = [json.loads(line) for line in source]
    Q, D = embed_pairs(pairs, args.cache, args.field)
    Q, D = Q.astype(np.float64), D.astype(np.float64)
    packages = sorted({p["pkg"] for p in pairs})
    held = {name for i, name in enumerate(packages) if i % 10 == 0}
    train: dict[str, list[int]] = {}
    test: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        (test if p["pkg"] in held else train).setdefault(p["pkg"], []).append(i)
    eye = np.eye(Q.shape[1])
    print(f"{len(pairs)} pairs, {len(train)} training packages, {len(test)} held out")
    print(f"identity: held-out MRR {mrr(eye, Q, D, test):.4f}, train {mrr(eye, Q, D, train):.4f}")
    best = (mrr(eye, Q, D, test), 0, 0.0)
    for lam in map(float, args.lam.split(",")):
        for epochs in map(int, args.epochs.split(",")):
            W = fit(Q, D, train, epochs, lam, args.tau, args.lr)
            score = mrr(W, Q, D, test)
            if args.save_all:
                np.save(args.save_all / f"W-{args.field}-{lam}-{epochs}-{args.lr}.npy", W)
            seen = mrr(W, Q, D, train)
            print(f"lam {lam:<5} epochs {epochs:<3} held-out MRR {score:.4f}  train {seen:.4f}")
            best = max(best, (score, epochs, lam))
    print(f"best: {best}")
    if args.out and best[1]:
        everything = {**train, **test}
        W = fit(Q, D, everything, best[1], best[2], args.tau, args.lr).astype(np.float16)
        digest = hashlib.blake2b(W.tobytes(), digest_size=8).hexdigest()
        np.savez(args.out, W=W, id=np.array(f"adapter-{digest}"))
        print(f"wrote {args.out} ({digest})")


if __name__ == "__main__":
    main()
