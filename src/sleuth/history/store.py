"""history.db: commits, their changed files and their vectors. The truth for history.

A separate SQLite file beside meta.db, so history can be built, rebuilt or deleted
without touching the code index, and the code index's schema stays as it is.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..store.sqlite import Transaction, keyed_vectors, open_database
from .gitlog import CommitRecord, FileChange

SCHEMA = """
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sha TEXT UNIQUE NOT NULL,
    parents TEXT NOT NULL,
    author_name TEXT NOT NULL,
    author_email TEXT NOT NULL,
    author_time INTEGER NOT NULL,
    date TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    detail BLOB NOT NULL,  -- zlib: digest, added and removed identifiers (see _pack)
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS commits_time ON commits(author_time);
CREATE INDEX IF NOT EXISTS commits_hash ON commits(hash);
CREATE TABLE IF NOT EXISTS commit_files (
    commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    old_path TEXT NOT NULL,
    status TEXT NOT NULL,
    added INTEGER NOT NULL,
    removed INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS commit_files_commit ON commit_files(commit_id);
CREATE TABLE IF NOT EXISTS embeddings (hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
"""


@dataclass(slots=True)
class CommitRow:
    id: int
    sha: str
    parents: list[str]
    author_name: str
    author_email: str
    author_time: int
    date: str
    subject: str
    body: str
    digest: str
    added_ids: list[str]
    removed_ids: list[str]
    hash: str
    files: list[FileChange] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]


_COLUMNS = (
    "id, sha, parents, author_name, author_email, author_time, date, subject, body, detail, hash"
)


def _pack(digest: str, added: list[str], removed: list[str]) -> bytes:
    """The digest and identifier lists, compressed: about 40% of their size on rails."""
    return zlib.compress("\x00".join([digest, " ".join(added), " ".join(removed)]).encode(), 6)


def _unpack(blob: bytes) -> tuple[str, list[str], list[str]]:
    digest, added, removed = zlib.decompress(blob).decode().split("\x00")
    return digest, added.split(), removed.split()


def _row(r: tuple) -> CommitRow:
    digest, added, removed = _unpack(r[9])
    return CommitRow(
        r[0], r[1], r[2].split(), r[3], r[4], r[5], r[6], r[7], r[8], digest, added, removed,
        r[10],
    )  # fmt: skip


class HistoryStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        #: Serialises transactions of threads sharing this connection (as MetaStore.lock).
        self.lock = threading.RLock()
        self.db = open_database(path, SCHEMA)

    def close(self) -> None:
        self.db.close()

    def transaction(self) -> Transaction:
        return Transaction(self.db, self.lock)

    def get(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM state WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set(self, key: str, value: object) -> None:
        self.db.execute("INSERT OR REPLACE INTO state(key, value) VALUES (?, ?)", (key, str(value)))

    # -- writing ------------------------------------------------------------------------
    def known_shas(self, among: list[str] | None = None) -> set[str]:
        """Stored shas (only those of ``among`` when given: cheap for short lists)."""
        if among is None or len(among) > 20_000:
            return {r[0] for r in self.db.execute("SELECT sha FROM commits")}
        found: set[str] = set()
        for begin in range(0, len(among), 900):
            part = among[begin : begin + 900]
            marks = ",".join("?" * len(part))
            rows = self.db.execute(f"SELECT sha FROM commits WHERE sha IN ({marks})", part)
            found.update(r[0] for r in rows)
        return found

    def add_commit(self, record: CommitRecord, text_hash: str) -> int | None:
        """Insert one commit with its files; None when it is already stored."""
        row = self.db.execute(
            "INSERT OR IGNORE INTO commits(sha, parents, author_name, author_email,"
            " author_time, date, subject, body, detail, hash)"
            " VALUES (?,?,?,?,?,?,?,?,?,?) RETURNING id",
            (
                record.sha,
                " ".join(record.parents),
                record.author_name,
                record.author_email,
                record.author_time,
                record.date,
                record.subject,
                record.body,
                _pack(record.digest, record.added_identifiers, record.removed_identifiers),
                text_hash,
            ),
        ).fetchone()
        if row is None:
            return None
        commit_id = int(row[0])
        self.db.executemany(
            "INSERT INTO commit_files(commit_id, path, old_path, status, added, removed)"
            " VALUES (?,?,?,?,?,?)",
            [(commit_id, f.path, f.old_path, f.status, f.added, f.removed) for f in record.files],
        )
        return commit_id

    def clear(self) -> None:
        self.db.execute("DELETE FROM commits")
        self.db.execute("DELETE FROM state WHERE key='tips'")

    # -- reading ------------------------------------------------------------------------
    def commits_by_id(self, ids: Iterable[int]) -> dict[int, CommitRow]:
        ids = list(ids)
        out: dict[int, CommitRow] = {}
        for begin in range(0, len(ids), 900):
            part = ids[begin : begin + 900]
            marks = ",".join("?" * len(part))
            for r in self.db.execute(f"SELECT {_COLUMNS} FROM commits WHERE id IN ({marks})", part):
                out[r[0]] = _row(r)
            for commit_id, path, old, status, added, removed in self.db.execute(
                "SELECT commit_id, path, old_path, status, added, removed FROM commit_files"
                f" WHERE commit_id IN ({marks}) ORDER BY rowid",
                part,
            ):
                out[commit_id].files.append(FileChange(path, status, old, added, removed))
        return out

    def iter_commits(self, batch: int = 500) -> Iterator[CommitRow]:
        """Every commit with its files, by id, a batch at a time."""
        last = 0
        while True:
            ids = [
                r[0]
                for r in self.db.execute(
                    "SELECT id FROM commits WHERE id > ? ORDER BY id LIMIT ?", (last, batch)
                )
            ]
            if not ids:
                return
            rows = self.commits_by_id(ids)
            yield from (rows[i] for i in ids)
            last = ids[-1]

    def commit_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM commits").fetchone()[0]

    def ids_where(
        self,
        author: str | None = None,
        since: int | None = None,
        until: int | None = None,
        paths: list[str] | None = None,
    ) -> set[int]:
        """Ids of commits that pass the author, date and path filters."""
        clauses, args = [], []
        if author:
            clauses.append("(author_name LIKE ? OR author_email LIKE ?)")
            args += [f"%{author}%", f"%{author}%"]
        if since is not None:
            clauses.append("author_time >= ?")
            args.append(since)
        if until is not None:
            clauses.append("author_time <= ?")
            args.append(until)
        where = " AND ".join(clauses) or "1"
        ids = {r[0] for r in self.db.execute(f"SELECT id FROM commits WHERE {where}", args)}
        if paths is not None:
            # One scan of commit_files against a temporary table of the wanted paths.
            self.db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted_paths (path TEXT PRIMARY KEY)")
            self.db.execute("DELETE FROM wanted_paths")
            self.db.executemany(
                "INSERT OR IGNORE INTO wanted_paths(path) VALUES (?)", [(p,) for p in paths]
            )
            touching = {
                r[0]
                for r in self.db.execute(
                    "SELECT DISTINCT commit_id FROM commit_files"
                    " WHERE path IN wanted_paths OR old_path IN wanted_paths"
                )
            }
            ids &= touching
        return ids

    def all_paths(self) -> list[str]:
        """Every path any commit touched (old names of renames included)."""
        rows = self.db.execute(
            "SELECT path FROM commit_files UNION SELECT old_path FROM commit_files"
            " WHERE old_path != ''"
        )
        return [r[0] for r in rows]

    # -- vectors ------------------------------------------------------------------------
    def unembedded(self, limit: int) -> list[CommitRow]:
        ids = [
            r[0]
            for r in self.db.execute(
                "SELECT MIN(c.id) FROM commits c WHERE NOT EXISTS"
                " (SELECT 1 FROM embeddings e WHERE e.hash=c.hash)"
                " GROUP BY c.hash ORDER BY MIN(c.id) LIMIT ?",
                (limit,),
            )
        ]
        rows = self.commits_by_id(ids)
        return [rows[i] for i in ids]

    def pending_count(self) -> int:
        return self.db.execute(
            "SELECT COUNT(DISTINCT hash) FROM commits c WHERE NOT EXISTS"
            " (SELECT 1 FROM embeddings e WHERE e.hash=c.hash)"
        ).fetchone()[0]

    def put_embeddings(self, hashes: list[str], vectors: np.ndarray) -> None:
        data = vectors.astype(np.float16)
        self.db.executemany(
            "INSERT OR REPLACE INTO embeddings(hash, vector) VALUES (?, ?)",
            [(h, data[i].tobytes()) for i, h in enumerate(hashes)],
        )

    def embedded_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        """(commit ids, float16 vectors) of every commit that has a vector, by id."""
        rows = self.db.execute(
            "SELECT c.id, e.vector FROM commits c JOIN embeddings e ON e.hash=c.hash ORDER BY c.id"
        ).fetchall()
        return keyed_vectors(rows)

    def embedded_count(self) -> int:
        return self.db.execute(
            "SELECT COUNT(*) FROM commits c WHERE EXISTS"
            " (SELECT 1 FROM embeddings e WHERE e.hash=c.hash)"
        ).fetchone()[0]

    def clear_embeddings(self) -> None:
        self.db.execute("DELETE FROM embeddings")
