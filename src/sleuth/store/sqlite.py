"""The SQLite plumbing both stores share (chunks in ``meta.db``, commits in ``history.db``).

Each store keeps its own schema and queries; here is how a database is opened (WAL,
a busy timeout, damage told from a permission problem), how a write transaction is
held, and how vectors stored as float16 bytes come back as arrays.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import numpy as np

from ..errors import IndexCorrupt, SleuthError


def keyed_vectors(rows: list) -> tuple[np.ndarray, np.ndarray]:
    """(ids, float16 vectors) of ``(id, vector bytes)`` rows, shared by the chunk and
    commit stores."""
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float16)
    keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float16)
    return keys, vectors.reshape(len(rows), -1)


def escape_like(text: str) -> str:
    """``text`` for a LIKE pattern with ``ESCAPE '\\'``: its ``%``, ``_`` and ``\\`` literal."""
    return re.sub(r"([%_\\])", r"\\\1", text)


def open_database(path: Path, schema: str) -> sqlite3.Connection:
    """A WAL-mode connection with ``schema`` applied, shareable between threads (callers
    serialise transactions with a lock); IndexCorrupt when the file is damaged."""
    try:
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA busy_timeout=30000")
        db.executescript(schema)
    except sqlite3.DatabaseError as exc:
        raise open_failure(path, exc) from exc
    return db


def open_failure(path: Path, exc: sqlite3.DatabaseError) -> SleuthError:
    """What a database that would not open means: damage, or only that this user may
    not write where the index is (its folder and its -wal and -shm files need writing,
    even to search); the first is mended by a rebuild, the second is not."""
    if isinstance(exc, sqlite3.OperationalError) and (
        "readonly" in str(exc) or "unable to open" in str(exc)
    ):
        return SleuthError(
            f"cannot write the index in {path.parent} ({exc}): searching needs write "
            "access to it; check its owner and permissions"
        )
    return IndexCorrupt(f"{path.name}: {exc}")


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error), holding ``lock`` if one is given."""

    def __init__(self, db: sqlite3.Connection, lock: threading.RLock | None = None) -> None:
        self.db = db
        self.lock = lock if lock is not None else threading.RLock()

    def __enter__(self) -> sqlite3.Connection:
        self.lock.acquire()
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.lock.release()
            raise
        return self.db

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.lock.release()


def schema_version_of(path: Path) -> int | None:
    """The schema version recorded in an existing index, without creating anything."""
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
        try:
            row = db.execute("SELECT value FROM state WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError as exc:
            # A file another thread or process has just created and is still writing
            # the schema into: nothing recorded yet, not damage (MetaStore creates the
            # missing tables).
            if "no such table" not in str(exc):
                raise
            row = None
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise open_failure(path, exc) from exc
    return int(row[0]) if row else None
