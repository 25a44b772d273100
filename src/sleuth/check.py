"""`sleuth status --check`: do SQLite, tantivy and the vectors file agree? Repair if not.

SQLite is the truth; tantivy and ``vectors.npy`` are derived from it, so every
disagreement about them can be repaired by rebuilding them from SQLite. A damaged
SQLite database cannot: that needs ``sleuth index --full``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .embedding.runner import publish_vectors
from .indexer import Indexer
from .store.lock import FileLock
from .store.vectors import VectorStore

if TYPE_CHECKING:
    from .api import Index


@dataclass
class CheckReport:
    """Counts of each store, what disagreed, what was repaired, what could not be."""

    chunks: int = 0
    lexical_docs: int = 0
    #: tantivy's commit mark and SQLite's ``lexical_commit``: equal when in step.
    lexical_mark: int = 0
    lexical_commit: int = 0
    #: Chunks whose content hash has a vector in SQLite, and rows of vectors.npy.
    embedded_chunks: int = 0
    vectors: int = 0
    #: Rows of vectors.npy whose chunk id is no chunk any more.
    stale_vectors: int = 0
    problems: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    unrepaired: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the stores agree now (after any repair)."""
        return not self.unrepaired

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def check_index(index: Index, repair: bool = True, lock_timeout: float = 10.0) -> CheckReport:
    """Compare the stores of ``index``; with ``repair``, rebuild what disagrees.

    Repairs take the write lock (and need no background embedder running for the
    vectors file); when another process holds it, problems are reported, not fixed.
    """
    report = CheckReport()
    meta = index._open()
    rows = meta.db.execute("PRAGMA quick_check").fetchall()
    if [r[0] for r in rows] != ["ok"]:
        detail = "; ".join(str(r[0]) for r in rows[:3])
        report.problems.append(f"the SQLite database is damaged ({detail})")
        report.unrepaired.append("run `sleuth index --full` to rebuild the index from the files")
        return report
    lock = FileLock(index.layout.write_lock)
    locked = repair and lock.acquire(lock_timeout)
    if repair and not locked:
        report.notes.append(
            f"another process (pid {lock.held_by_other()}) is writing: checked as it is, "
            "nothing repaired; counts may be between two commits"
        )
    try:
        _check_lexical(index, report, locked)
        _check_vectors(index, report, locked)
        if locked:
            _drop_temp_files(index, report)
    finally:
        if locked:
            lock.release()
    return report


def _check_lexical(index: Index, report: CheckReport, repair: bool) -> None:
    meta = index._open()
    assert index._lexical is not None
    lexical = index._lexical

    def count() -> None:
        report.chunks = meta.chunk_count()
        report.lexical_docs = lexical.num_docs()
        report.lexical_mark = lexical.mark()
        report.lexical_commit = int(meta.get("lexical_commit", "0") or 0)

    count()
    dirty = meta.get("lexical_dirty") == "1"
    if (
        report.lexical_docs == report.chunks
        and report.lexical_mark == report.lexical_commit
        and not dirty
    ):
        return
    problem = (
        f"tantivy holds {report.lexical_docs:,} documents at commit {report.lexical_mark}, "
        f"SQLite {report.chunks:,} chunks at commit {report.lexical_commit}"
    )
    report.problems.append(problem)
    if not repair:
        report.unrepaired.append("lexical index out of step: run `sleuth status --check` again")
        return
    Indexer(index.root, meta, lexical).rebuild_lexical()
    count()
    if report.lexical_docs == report.chunks and report.lexical_mark == report.lexical_commit:
        report.repaired.append(f"lexical index rebuilt from SQLite ({report.chunks:,} chunks)")
    else:
        report.unrepaired.append("the lexical index still disagrees after a rebuild")


def _check_vectors(index: Index, report: CheckReport, repair: bool) -> None:
    meta = index._open()

    def count() -> None:
        report.embedded_chunks = meta.counts()["embedded_chunks"]
        store = VectorStore(index.layout.vectors)
        store.load()
        report.vectors = len(store)
        keys = store.keys.astype(np.int64)
        report.stale_vectors = int(np.count_nonzero(~_chunk_ids_contain(meta, keys)))

    count()
    if report.vectors == report.embedded_chunks and not report.stale_vectors:
        return
    embedder = FileLock(index.layout.embed_lock).held_by_other()
    if embedder:
        report.notes.append(
            f"a background embedder (pid {embedder}) is adding vectors: the vectors file "
            "follows SQLite every few seconds"
        )
        return
    report.problems.append(
        f"vectors.npy holds {report.vectors:,} vectors ({report.stale_vectors:,} of chunks "
        f"that are gone); SQLite has vectors for {report.embedded_chunks:,} chunks"
    )
    if not repair:
        report.unrepaired.append("vectors file out of step: run `sleuth status --check` again")
        return
    with FileLock(index.layout.embed_lock).taken(0) as taken:
        if not taken:
            report.unrepaired.append("an embedder started meanwhile: vectors not republished")
            return
        publish_vectors(meta, index.layout)
    count()
    if report.vectors == report.embedded_chunks and not report.stale_vectors:
        report.repaired.append(f"vectors republished from SQLite ({report.vectors:,})")
    else:
        report.unrepaired.append("the vectors file still disagrees after republishing")


def _chunk_ids_contain(meta, keys: np.ndarray) -> np.ndarray:
    if not len(keys):
        return np.zeros(0, dtype=bool)
    try:
        ids = np.fromiter(
            (r[0] for r in meta.db.execute("SELECT id FROM chunks ORDER BY id")), dtype=np.int64
        )
    except sqlite3.Error:
        return np.zeros(len(keys), dtype=bool)
    return np.isin(keys, ids)


def _drop_temp_files(index: Index, report: CheckReport) -> None:
    """Temp files of a vectors write killed before its rename (no writer is alive)."""
    if FileLock(index.layout.embed_lock).held_by_other():
        return
    leftovers = list(index.layout.directory.glob(".vectors-*"))
    for path in leftovers:
        path.unlink(missing_ok=True)
    if leftovers:
        report.repaired.append(f"removed {len(leftovers)} unfinished vectors file(s)")
