"""Node positions computed once in Python, so the HTML page only has to draw.

Start from the two main directions of the file vectors (similar files start close),
then run a Fruchterman-Reingold force layout with numpy: edges pull, all pairs push.
Positions end up in [0, 1] x [0, 1].
"""

from __future__ import annotations

import numpy as np

#: Pair computations per layout run; fewer iterations on big graphs keep it bounded.
WORK_BUDGET = 60_000_000
#: Above this many files each iteration pushes against a random sample of this size.
SAMPLE = 4_000
MAX_ITERATIONS = 300
MIN_ITERATIONS = 30
#: Pull towards the centre, so files without links stay near the rest instead of
#: drifting to the edge of the picture.
GRAVITY = 0.5


def force_layout(
    vectors: np.ndarray, edges: list[tuple[int, int, float]], seed: int = 7
) -> np.ndarray:
    n = len(vectors)
    if n == 0:
        return np.zeros((0, 2), dtype=np.float32)
    if n == 1:
        return np.full((1, 2), 0.5, dtype=np.float32)
    positions = _initial(vectors, seed)
    ideal = 1.0 / np.sqrt(n)
    iterations = int(np.clip(WORK_BUDGET / (n * min(n, SAMPLE)), MIN_ITERATIONS, MAX_ITERATIONS))
    rng = np.random.default_rng(seed)
    temperature = 0.1
    cooling = temperature / (iterations + 1)
    sources = np.array([e[0] for e in edges], dtype=np.int64)
    targets = np.array([e[1] for e in edges], dtype=np.int64)
    weights = np.array([e[2] for e in edges], dtype=np.float32)
    for _ in range(iterations):
        shift = _repulsion(positions, ideal, rng)
        shift -= GRAVITY * positions * np.linalg.norm(positions, axis=1, keepdims=True) / ideal
        if len(sources):
            delta = positions[sources] - positions[targets]
            distance = np.maximum(np.linalg.norm(delta, axis=1), 1e-6)
            pull = (delta / distance[:, None]) * ((distance**2 / ideal) * weights)[:, None]
            np.add.at(shift, sources, -pull)
            np.add.at(shift, targets, pull)
        length = np.maximum(np.linalg.norm(shift, axis=1), 1e-9)
        positions += shift / length[:, None] * np.minimum(length, temperature)[:, None]
        positions -= positions.mean(axis=0)  # keep loose components from drifting off
        temperature = max(temperature - cooling, 0.002)
    low, high = positions.min(axis=0), positions.max(axis=0)
    span = np.maximum(high - low, 1e-9)
    return ((positions - low) / span.max() * 0.9 + 0.05).astype(np.float32)


def _initial(vectors: np.ndarray, seed: int) -> np.ndarray:
    centred = vectors - vectors.mean(axis=0)
    try:
        _, _, basis = np.linalg.svd(centred, full_matrices=False)
        start = centred @ basis[:2].T
    except np.linalg.LinAlgError:
        start = np.zeros((len(vectors), 2))
    jitter = np.random.default_rng(seed).normal(scale=1e-3, size=start.shape)
    start = start + jitter
    start /= max(float(np.abs(start).max()), 1e-9)
    return start.astype(np.float32)


def _repulsion(
    positions: np.ndarray, ideal: float, rng: np.random.Generator, block: int = 1_024
) -> np.ndarray:
    """Sum of ideal^2 / distance pushes, as matrix products (no n x n x 2 arrays).

    For node i: sum_j w_ij (p_i - p_j) = p_i * sum_j w_ij - (W @ p)_i with
    w_ij = ideal^2 / |p_i - p_j|^2. Above SAMPLE nodes the push comes from a random
    sample of SAMPLE nodes each iteration, scaled up: the cost stays bounded.
    """
    n = len(positions)
    others = positions
    scale = 1.0
    if n > SAMPLE:
        others = positions[rng.choice(n, SAMPLE, replace=False)]
        scale = n / SAMPLE
    squared = (others**2).sum(axis=1)
    shift = np.empty_like(positions)
    for begin in range(0, n, block):
        part = positions[begin : begin + block]
        distance2 = (part**2).sum(axis=1)[:, None] + squared[None, :] - 2.0 * (part @ others.T)
        weights = (ideal * ideal) / np.maximum(distance2, 1e-6)
        if n <= SAMPLE:  # no push from a node onto itself
            rows = np.arange(len(part))
            weights[rows, rows + begin] = 0.0
        shift[begin : begin + block] = scale * (
            part * weights.sum(axis=1, keepdims=True) - weights @ others
        )
    return shift
