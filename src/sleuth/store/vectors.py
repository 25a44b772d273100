"""Chunk vectors for search, derived from the embeddings in SQLite.

Saved as one .npz (chunk ids + float16 vectors) via temp file, fsync and rename, so a
kill at any moment leaves either the old or the new file. Searched exactly with usearch
(exact search over 10k chunks takes about 1 ms).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
from usearch.index import MetricKind, search


class VectorStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.keys = np.zeros(0, dtype=np.int64)
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self._mtime_ns = -1

    def load(self) -> None:
        """(Re)load when the file changed since the last load; missing or broken = empty."""
        try:
            mtime = self.path.stat().st_mtime_ns
        except OSError:
            self.keys = np.zeros(0, dtype=np.int64)
            self.vectors = np.zeros((0, 0), dtype=np.float32)
            self._mtime_ns = -1
            return
        if mtime == self._mtime_ns:
            return
        try:
            with np.load(self.path) as data:
                keys, vectors = data["keys"], data["vectors"].astype(np.float32)
        except (OSError, ValueError, KeyError):
            keys, vectors = np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        self.keys, self.vectors, self._mtime_ns = keys, vectors, mtime

    def __len__(self) -> int:
        return len(self.keys)

    @staticmethod
    def save(path: Path, keys: np.ndarray, vectors: np.ndarray) -> None:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".vectors-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(handle, keys=keys.astype(np.int64), vectors=vectors.astype(np.float16))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def search(self, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) best first."""
        if not len(self.keys):
            return []
        limit = min(limit, len(self.keys))
        matches = search(self.vectors, query.astype(np.float32), limit, MetricKind.Cos, exact=True)
        rows = np.asarray(matches.keys, dtype=np.int64)
        similarity = 1.0 - np.asarray(matches.distances, dtype=np.float32)
        return [(int(self.keys[r]), float(s)) for r, s in zip(rows, similarity, strict=True)]

    def similarity(self, query: np.ndarray, chunk_ids: list[int]) -> dict[int, float]:
        """Cosine similarity of the query to each given chunk that has a vector."""
        if not len(self.keys) or not chunk_ids:
            return {}
        wanted = np.asarray(chunk_ids, dtype=np.int64)
        positions = np.searchsorted(self.keys, wanted)
        positions = np.clip(positions, 0, len(self.keys) - 1)
        present = self.keys[positions] == wanted
        scores = self.vectors[positions[present]] @ query.astype(np.float32)
        return dict(zip(wanted[present].tolist(), scores.tolist(), strict=True))

    def vector_of(self, chunk_id: int) -> np.ndarray | None:
        """The stored vector of one chunk, or None when it has none yet."""
        if not len(self.keys):
            return None
        position = int(np.searchsorted(self.keys, chunk_id))
        if position >= len(self.keys) or self.keys[position] != chunk_id:
            return None
        return self.vectors[position]
