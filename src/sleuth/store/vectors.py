"""Chunk vectors for search, derived from the embeddings in SQLite.

Saved as one .npy of (chunk id, float32 vector) records via temp file, fsync and rename,
so a kill at any moment leaves either the old or the new file. Readers map the file
instead of reading it: a reload after an index run costs a millisecond, not a copy and a
conversion of every vector (13-60 ms at 10k chunks, under the readers' lock), and the
pages are shared with the writer's cache. Below ``config.HNSW_MIN_VECTORS`` they are
searched exactly (one BLAS product). Above, an HNSW graph (``vectors.hnsw``, written the
same atomic way) answers, and vectors added since the graph was built are searched
exactly beside it, so a graph is rebuilt only when a tenth of the vectors changed,
never for one edited file. A file of the older format (``.npz``, float16) is still read
until the next publish replaces it.
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import config

if TYPE_CHECKING:
    from usearch.index import Index


#: Threads an exact scan of ``SPLIT_SCAN_ROWS`` or more rows runs on, one half each.
#: 1 leaves the product to numpy's BLAS as it is set up; the daemon pins BLAS to one
#: thread per product (small scans run best so on shared cores) and sets 2, so a large
#: scan still uses both cores (``server/daemon.py``).
SCAN_THREADS = 1
SPLIT_SCAN_ROWS = 40_000


@cache
def _scan_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="sleuth-scan")


def _scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``matrix @ query``; a large matrix's halves on two threads with ``SCAN_THREADS``
    2 (numpy releases the interpreter during a product; every row's product is the same
    number either way). At 174k rows on one BLAS thread: 32 ms, split 17 ms."""
    if SCAN_THREADS < 2 or len(matrix) < SPLIT_SCAN_ROWS:
        return matrix @ query
    half = len(matrix) // 2
    second = _scan_pool().submit(np.matmul, matrix[half:], query)
    return np.concatenate([matrix[:half] @ query, second.result()])


def _usearch() -> type[Index]:
    """usearch's Index, imported on first use: only indexes of 200k+ vectors have a
    graph, and the import costs every command 30 ms."""
    from usearch.index import Index

    return Index


def _atomic_write(path: Path, suffix: str, write) -> None:
    """Write via a temp file in the same folder, fsync, rename: old or new, never half."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".vectors-", suffix=suffix)
    os.close(fd)
    try:
        write(temp)
        with open(temp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _record(dim: int) -> np.dtype:
    return np.dtype([("key", "<i8"), ("vector", "<f4", (dim,))])


def _legacy(path: Path) -> Path:
    return path.with_suffix(".npz")


def _read(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(sorted chunk ids, float32 vectors): ids copied, vectors mapped read-only."""
    if path.suffix == ".npz":
        with np.load(path) as data:
            return data["keys"], data["vectors"].astype(np.float32)
    keys, vectors = _mapped(path)
    return np.ascontiguousarray(keys), vectors


def _mapped(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(chunk ids, vectors) of a .npy vectors file, both views of the mapped records:
    nothing is read until used."""
    # Windows cannot replace a file that is mapped: read it whole there.
    records = np.load(path, mmap_mode=None if os.name == "nt" else "r")
    if records.dtype.names != ("key", "vector"):
        raise ValueError(f"{path.name}: not a vectors file")
    vectors = records["vector"]
    if vectors.ndim != 2:
        raise ValueError(f"{path.name}: not a vectors file")
    return records["key"], vectors


def graph_path(path: Path) -> Path:
    return path.with_suffix(".hnsw")


class VectorStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.keys = np.zeros(0, dtype=np.int64)
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self._mtime_ns = -1
        self._graph: Index | None = None
        self._graph_mtime_ns = -1
        self._delta = np.zeros(0, dtype=np.int64)  # rows of vectors the graph lacks

    def load(self) -> None:
        """(Re)load when the files changed since the last load; missing or broken = empty."""
        source = self.path
        if not source.exists() and _legacy(source).exists():
            source = _legacy(source)  # written by an older version: read as it is
        try:
            mtime = source.stat().st_mtime_ns
        except OSError:
            self.keys = np.zeros(0, dtype=np.int64)
            self.vectors = np.zeros((0, 0), dtype=np.float32)
            self._mtime_ns = -1
            self._graph = None
            return
        graph_mtime = _mtime(graph_path(self.path))
        if mtime == self._mtime_ns and graph_mtime == self._graph_mtime_ns:
            return
        try:
            keys, vectors = _read(source)
        except (OSError, ValueError, KeyError, TypeError):
            keys, vectors = np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        self.keys, self.vectors, self._mtime_ns = keys, vectors, mtime
        self._load_graph(graph_mtime)

    def _load_graph(self, graph_mtime: int) -> None:
        self._graph, self._graph_mtime_ns = None, graph_mtime
        self._delta = np.arange(len(self.keys))
        if graph_mtime < 0 or len(self.keys) < config.HNSW_MIN_VECTORS:
            return
        try:
            graph = _usearch().restore(str(graph_path(self.path)), view=True)
        except (OSError, RuntimeError, ValueError):
            return  # unreadable graph: exact search stays correct
        if graph is None:
            return
        graph.expansion_search = config.HNSW_EXPANSION_SEARCH
        in_graph = np.isin(self.keys, np.asarray(graph.keys, dtype=np.int64))
        self._graph, self._delta = graph, np.flatnonzero(~in_graph)

    def __len__(self) -> int:
        return len(self.keys)

    @staticmethod
    def save(path: Path, keys: np.ndarray, vectors: np.ndarray, graph: bool = True) -> None:
        """Write the vectors; ``graph`` False skips the graph (frequent interim saves)."""

        dim = vectors.shape[1] if vectors.ndim == 2 else 0
        records = np.empty(len(keys), dtype=_record(dim))
        records["key"] = keys
        if len(keys):
            records["vector"] = vectors

        def write(temp: str) -> None:
            with open(temp, "wb") as handle:
                np.save(handle, records)

        _atomic_write(path, ".npy", write)
        if _legacy(path) != path:
            _legacy(path).unlink(missing_ok=True)
        if graph:
            refresh_graph(path, keys, vectors)

    def search(self, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) best first."""
        if not len(self.keys):
            return []
        query = query.astype(np.float32)
        # A query of words the static table has no rows for is a zero vector, as far from
        # every chunk as from any other; the graph's cosine calls it identical to some.
        if self._graph is None or not query.any():
            return self._exact(query, np.arange(len(self.keys)), limit)
        matches = self._graph.search(query, min(limit, len(self._graph)))
        found = np.asarray(matches.keys, dtype=np.int64)
        similarity = 1.0 - np.asarray(matches.distances, dtype=np.float32)
        live = np.isin(found, self.keys)  # chunks deleted since the graph was built drop out
        hits = list(zip(found[live].tolist(), similarity[live].tolist(), strict=True))
        hits += self._exact(query, self._delta, limit)
        hits.sort(key=lambda hit: -hit[1])
        return hits[:limit]

    def _exact(self, query: np.ndarray, rows: np.ndarray, limit: int) -> list[tuple[int, float]]:
        if not len(rows):
            return []
        limit = min(limit, len(rows))
        # All rows (no graph): search the matrix itself; fancy indexing would copy it.
        # Vectors are unit length: a dot product is the cosine. One BLAS product and a
        # partial sort measured 2.5x faster than an exact usearch scan (decisions.md).
        every = len(rows) == len(self.keys)
        matrix = self.vectors if every else self.vectors[rows]
        scores = _scores(matrix, query)
        top = np.argpartition(-scores, limit - 1)[:limit] if limit < len(scores) else None
        top = np.arange(len(scores)) if top is None else top
        top = top[np.argsort(-scores[top], kind="stable")]
        keys = self.keys[rows[top]]
        return list(zip(keys.tolist(), scores[top].astype(float).tolist(), strict=True))

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


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1


def refresh_graph_of(path: Path) -> bool:
    """``refresh_graph`` for the vectors file as it is on disk (written without a graph
    inside an index run's transaction). Below ``config.HNSW_MIN_VECTORS`` it reads
    nothing but the file's header: it runs after every index run that changed files."""
    try:
        keys, vectors = _mapped(path)
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return refresh_graph(path, keys, vectors)


def refresh_graph(path: Path, keys: np.ndarray, vectors: np.ndarray) -> bool:
    """Build or drop the HNSW graph for these vectors as their count requires.

    Returns True when a graph was (re)built. Vectors are unit length (cosine metric).
    """
    target = graph_path(path)
    if len(keys) < config.HNSW_MIN_VECTORS:
        target.unlink(missing_ok=True)
        return False
    if target.exists():
        try:
            graph = _usearch().restore(str(target), view=True)
            built = np.asarray(graph.keys, dtype=np.int64) if graph is not None else None
        except (OSError, RuntimeError, ValueError):
            built = None
        if built is not None:
            changed = np.setxor1d(built, keys, assume_unique=True).size
            if changed <= config.HNSW_REBUILD_SHARE * len(keys):
                return False
    graph = _usearch()(
        ndim=vectors.shape[1], metric="cos", dtype="f16", connectivity=16, expansion_add=64
    )
    graph.add(keys.astype(np.int64), vectors.astype(np.float32), threads=os.cpu_count() or 1)
    _atomic_write(target, ".hnsw", lambda temp: graph.save(temp))
    return True
