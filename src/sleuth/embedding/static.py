"""The static tier: a chunk's vector is the weighted mean of its tokens' table vectors.

The tokens are the lexical side's (``tokens.code_terms``: identifiers lowercased, whole
and split into words), so the table needs no tokenizer and no model at run time: numpy
only, thousands of chunks per second. Weights are sublinear term frequency times the
token's idf, stored with the table. Questions are worded unlike the code they ask about,
so a table may carry rows of its own for the words of questions (``query_rows``,
``query_vectors``: fitted to MiniLM's vectors of short English sentences); a question
takes those rows where there are some, a chunk always the main ones. Tables are fitted
offline (``bench/static/fit_table.py``, ``fit_query_rows.py``) and shipped as package
data; ``SLEUTH_STATIC_TABLE`` points at another file (experiments, the distilled
baseline).
"""

from __future__ import annotations

import math
import os
import struct
import zipfile
from collections import Counter
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np

from ..tokens import code_terms

TABLE_FILE = "static-table.npz"
#: Texts per matrix product (texts x their distinct tokens), measured best of 16-256.
BLOCK = 256


def static_terms(text: str) -> Counter[str]:
    """Token counts of a text as the table sees it; the fit uses this very function."""
    return Counter(t for t in code_terms(text) if not t.isdigit() and len(t) > 1)


def table_path() -> Path:
    """The table in use: ``SLEUTH_STATIC_TABLE`` if set, else the packaged one."""
    configured = os.environ.get("SLEUTH_STATIC_TABLE")
    if configured:
        return Path(configured)
    return Path(str(resources.files("sleuth") / "data" / TABLE_FILE))


def table_id(path: Path | None = None) -> str:
    """The id stored in the table (changes with its contents); reads only that member."""
    path = path or table_path()
    with np.load(path) as data:
        return "static:" + bytes(data["id"]).decode()


class StaticTable:
    """Vocabulary, idf and float16 vectors, loaded from one .npz with numpy alone."""

    def __init__(self, path: Path) -> None:
        data = _mapped_npz(path)
        self.id = "static:" + bytes(data["id"]).decode()
        words = bytes(data["tokens"]).decode().split("\n")
        self.vectors = data["vectors"]
        self.idf = np.asarray(data["idf"], dtype=np.float32)
        # position of each token's question row, -1 where it has none
        self.query_position = np.full(len(self.vectors), -1, dtype=np.int32)
        self.query_vectors = self.vectors[:0]
        if "query_rows" in data:
            self.query_vectors = data["query_vectors"]
            self.query_position[data["query_rows"]] = np.arange(len(self.query_vectors))
        self.index = {word: i for i, word in enumerate(words)}
        self.dim = int(self.vectors.shape[1])

    def weights(self, counts: Counter[str]) -> tuple[np.ndarray, np.ndarray]:
        """(token rows, weights) of known tokens: (1 + log tf) * idf."""
        rows, weights = [], []
        for word, count in counts.items():
            row = self.index.get(word)
            if row is not None:
                rows.append(row)
                weights.append(1.0 + math.log(count))
        ids = np.asarray(rows, dtype=np.int64)
        return ids, np.asarray(weights, dtype=np.float32) * self.idf[ids]


def _mapped_npz(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an .npz, mapped read-only from the file where they are stored
    uncompressed (as the shipped table is): a search that reads a few rows does not
    read 19 MB, and processes that map the table share its pages. Arrays stored
    compressed are read whole, as ``np.load`` does."""
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(path) as archive, open(path, "rb") as raw:
        for info in archive.infolist():
            name = info.filename.removesuffix(".npy")
            if info.compress_type != zipfile.ZIP_STORED:
                with archive.open(info) as member:
                    arrays[name] = np.lib.format.read_array(member, allow_pickle=False)
                continue
            raw.seek(info.header_offset)
            local = raw.read(30)  # the member's local header: its own name and extra lengths
            name_length, extra_length = struct.unpack("<HH", local[26:30])
            raw.seek(info.header_offset + 30 + name_length + extra_length)
            version = np.lib.format.read_magic(raw)
            read_header = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            shape, fortran, dtype = read_header(raw)
            if dtype.hasobject:
                raise ValueError(f"{path}: {info.filename} holds Python objects")
            arrays[name] = np.memmap(
                path,
                dtype=dtype,
                mode="r",
                offset=raw.tell(),
                shape=shape,
                order="F" if fortran else "C",
            )
    return arrays


@cache
def _load(path: Path, mtime_ns: int) -> StaticTable:
    return StaticTable(path)


def load_table(path: Path | None = None) -> StaticTable:
    path = path or table_path()
    return _load(path, path.stat().st_mtime_ns)


class StaticEmbedder:
    """Embedder protocol over a static table (see ``base.Embedder``)."""

    def __init__(self, path: Path | None = None) -> None:
        self.table = load_table(path)
        self.model_id = self.table.id
        self.dim = self.table.dim

    def embed_query(self, text: str) -> np.ndarray:
        """A question's vector: the question rows where the table has them."""
        ids, weights = self.table.weights(static_terms(text))
        vector = np.zeros(self.dim, dtype=np.float32)
        if len(ids):
            rows = self.table.vectors[ids].astype(np.float32)
            position = self.table.query_position[ids]
            own = position >= 0
            rows[own] = self.table.query_vectors[position[own]]
            vector = weights @ rows
        return vector / max(float(np.linalg.norm(vector)), 1e-12)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        rows: list[np.ndarray] = []
        weights: list[np.ndarray] = []
        owners: list[int] = []
        for i, text in enumerate(texts):
            ids, w = self.table.weights(static_terms(text))
            if len(ids):  # no known token: a zero vector, similar to nothing
                rows.append(ids)
                weights.append(w)
                owners.append(i)
        if not rows:
            return out
        # Per block of texts: the distinct tokens' vectors, once each, times a dense
        # (texts x tokens) weight matrix. Gathering a row per token occurrence instead
        # costs several times more (float16 conversion and a segmented sum).
        for begin in range(0, len(rows), BLOCK):
            block = range(begin, min(begin + BLOCK, len(rows)))
            ids = np.concatenate([rows[i] for i in block])
            uniq, inverse = np.unique(ids, return_inverse=True)
            matrix = np.zeros((len(block), len(uniq)), dtype=np.float32)
            owner = np.repeat(np.arange(len(block)), [len(rows[i]) for i in block])
            matrix[owner, inverse] = np.concatenate([weights[i] for i in block])
            summed = matrix @ self.table.vectors[uniq].astype(np.float32)
            norms = np.linalg.norm(summed, axis=1, keepdims=True)
            out[[owners[i] for i in block]] = summed / np.maximum(norms, 1e-12)
        return out
