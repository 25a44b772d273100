"""A similarity graph of files from the chunk vectors already stored: no re-embedding.

A file's vector is the normalised mean of its chunks' vectors. Each file is linked to
its ``k`` most similar files when the cosine similarity reaches ``threshold``; the
links are undirected, so a file can have more than ``k`` of them.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

import numpy as np

from ..search.filters import Filters, category_of
from ..store.meta import MetaStore
from .layout import force_layout

TYPES = ("all", "code", "docs", "tests")
PREVIEW_LINES = 12
PREVIEW_CHARS = 1_200
#: Rows of the similarity matrix computed at once (bounds memory on big repositories).
BLOCK_ROWS = 1_024


@dataclass(slots=True)
class Node:
    id: int
    path: str
    type: str  # code | docs | tests
    language: str
    directory: str
    size: int  # bytes
    chunks: int
    preview: str
    x: float = 0.0
    y: float = 0.0


@dataclass(slots=True)
class Edge:
    source: int
    target: int
    weight: float  # cosine similarity of the two file vectors


@dataclass
class Graph:
    root: str
    type: str
    k: int
    threshold: float
    model: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    #: Files of the chosen type that have no vector yet (left out of the graph).
    missing_vectors: int = 0


def file_vectors(
    meta: MetaStore, type_: str = "all", path: str | None = None
) -> tuple[list[dict], np.ndarray, int]:
    """(file facts, unit vectors by file, files of the type without vectors)."""
    if type_ not in TYPES:
        raise ValueError(f"type must be one of {', '.join(TYPES)}")
    glob = Filters(path=path) if path else None
    keys, vectors = meta.embedded_vectors()
    position = {int(key): row for row, key in enumerate(keys.tolist())}
    files: dict[str, dict] = {}
    for chunk_id, file_path, language, size, text in meta.db.execute(
        "SELECT c.id, f.path, f.language, f.size, c.text FROM chunks c"
        " JOIN files f ON f.id = c.file_id ORDER BY f.path, c.start_line"
    ):
        entry = files.get(file_path)
        if entry is None:
            category = category_of(file_path, language or "")
            if type_ != "all" and category != type_:
                continue
            if glob is not None and not glob.accepts(file_path, "", ""):
                continue
            entry = files[file_path] = {
                "path": file_path,
                "type": category,
                "language": language or "",
                "size": size,
                "rows": [],
                "chunks": 0,
                "preview": "",
            }
        entry["chunks"] += 1
        if entry["preview"].count("\n") < PREVIEW_LINES:
            entry["preview"] = _preview(
                entry["preview"] + ("\n\n" if entry["preview"] else "") + text
            )
        if chunk_id in position:
            entry["rows"].append(position[chunk_id])
    facts = [f for f in files.values() if f["rows"]]
    missing = len(files) - len(facts)
    if not facts:
        return [], np.zeros((0, 0), dtype=np.float32), missing
    matrix = np.stack([vectors[f["rows"]].astype(np.float32).mean(axis=0) for f in facts]).astype(
        np.float32
    )
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return facts, matrix, missing


def nearest_edges(matrix: np.ndarray, k: int, threshold: float) -> list[Edge]:
    """Top-k neighbours of every row above ``threshold``, as undirected edges."""
    n = len(matrix)
    best: dict[tuple[int, int], float] = {}
    if n < 2 or k < 1:
        return []
    take = min(k, n - 1)
    for begin in range(0, n, BLOCK_ROWS):
        sims = matrix[begin : begin + BLOCK_ROWS] @ matrix.T
        rows = np.arange(len(sims))
        sims[rows, rows + begin] = -np.inf  # no self loops
        top = np.argpartition(-sims, take - 1, axis=1)[:, :take]
        for row, neighbours in enumerate(top):
            for col in neighbours.tolist():
                weight = float(sims[row, col])
                if weight < threshold:
                    continue
                pair = (min(row + begin, col), max(row + begin, col))
                best[pair] = max(best.get(pair, -1.0), weight)
    return [Edge(a, b, round(w, 4)) for (a, b), w in sorted(best.items())]


def build_graph(
    meta: MetaStore,
    root: str,
    model: str,
    type_: str = "all",
    k: int = 5,
    threshold: float = 0.5,
    path: str | None = None,
) -> Graph:
    facts, matrix, missing = file_vectors(meta, type_, path)
    graph = Graph(root, type_, k, threshold, model, missing_vectors=missing)
    graph.edges = nearest_edges(matrix, k, threshold)
    positions = force_layout(matrix, [(e.source, e.target, e.weight) for e in graph.edges])
    for index, fact in enumerate(facts):
        x, y = positions[index] if len(positions) else (0.5, 0.5)
        graph.nodes.append(
            Node(
                id=index,
                path=fact["path"],
                type=fact["type"],
                language=fact["language"],
                directory=posixpath.dirname(fact["path"]) or ".",
                size=fact["size"],
                chunks=fact["chunks"],
                preview=fact["preview"],
                x=round(float(x), 4),
                y=round(float(y), 4),
            )
        )
    return graph


def _preview(text: str) -> str:
    return "\n".join(text.split("\n")[:PREVIEW_LINES])[:PREVIEW_CHARS]
