"""SQLite in WAL mode: files, chunks, definitions, embeddings and state. The truth."""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from ..locales import translation_folders
from ..tokens import (
    code_terms_text,
    path_suffixes,
    path_terms,
    sorted_terms,
)
from .definitions import DefinitionLookups
from .sqlite import Transaction, escape_like, keyed_vectors, open_database

if TYPE_CHECKING:
    from ..prepare import ChunkValues, DefinitionValues

T = TypeVar("T")

#: Ranking rows kept in memory per open index (about 300 bytes each).
ROW_CACHE_SIZE = 200_000
#: Files whose term lists are kept in memory per open index (a few kB each).
TERMS_CACHE_SIZE = 4_096

SCHEMA = """
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT,
    language TEXT,
    skip_reason TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    symbol TEXT NOT NULL,
    parent TEXT NOT NULL,
    signature TEXT NOT NULL,
    symbols TEXT NOT NULL,
    text TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE TABLE IF NOT EXISTS definitions (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    parent TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    signature TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS definitions_name ON definitions(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS definitions_file ON definitions(file_id);
CREATE TABLE IF NOT EXISTS embeddings (hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS static_embeddings (hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS file_terms (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    terms TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS generated_files (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE
);
"""


#: Vector tables by tier: the deep model's and the static table's live side by side, so
#: switching tiers never throws the other tier's vectors away.
VECTOR_TABLES = {"deep": "embeddings", "static": "static_embeddings"}


def _squashed(expression: str, halvings: int = 7) -> str:
    """SQL for ``expression`` with line breaks and tabs as spaces and runs of spaces as one
    (each pass halves a run: seven passes take indentation of up to 128 spaces)."""
    for char in (13, 10, 9):
        expression = f"replace({expression}, char({char}), ' ')"
    for _ in range(halvings):
        expression = f"replace({expression}, '  ', ' ')"
    return expression


_SQUASHED_TEXT = _squashed("text")


@dataclass(frozen=True, slots=True)
class FileRow:
    id: int
    path: str
    size: int
    mtime_ns: int
    hash: str | None
    language: str | None
    skip_reason: str | None


@dataclass(frozen=True, slots=True)
class ChunkRow:
    id: int
    path: str
    language: str
    start_line: int
    end_line: int
    kind: str
    symbol: str
    parent: str
    signature: str
    symbols: str
    text: str
    hash: str


class MetaStore(DefinitionLookups):
    """Thin typed access to the SQLite file; every write goes through a transaction."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: Held for every transaction on this connection, read views included: threads
        #: sharing one MetaStore take turns instead of nesting BEGINs.
        self.lock = threading.RLock()
        self.db = open_database(path, SCHEMA)
        #: Ranking rows by chunk id, kept between searches: a chunk id is never reused and
        #: its row never changes (an edited file gets new chunks), so no entry goes stale.
        self._rows: dict[int, ChunkRow] = {}
        #: What every search reads, by name: (lexical commit mark, value at that mark).
        self._per_commit: dict[str, tuple[str, object]] = {}
        #: (lexical commit mark, sorted term lists by path at that mark).
        self._terms: tuple[str, dict[str, list[str]]] = ("", {})
        #: The indexed paths, one list object for as long as the set of paths stays the
        #: same (most commits only change what files hold), and what was derived from
        #: them by name: (that list, the value derived from it).
        self._paths: list[str] = []
        self._from_paths: dict[str, tuple[list[str], object]] = {}

    def close(self) -> None:
        self.db.close()

    def _commit_mark(self) -> str:
        """The lexical commit this connection's snapshot is at: what the caches key on."""
        return self.get("lexical_commit", "0") or "0"

    def _once_per_commit(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()``, kept until the next commit: read once, not on every search."""
        mark = self._commit_mark()
        held = self._per_commit.get(name)
        if held is None or held[0] != mark:
            held = self._per_commit[name] = (mark, compute())
        return held[1]  # type: ignore[return-value]

    # -- state --------------------------------------------------------------------------
    def get(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM state WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set(self, key: str, value: object) -> None:
        self.db.execute("INSERT OR REPLACE INTO state(key, value) VALUES (?, ?)", (key, str(value)))

    def transaction(self) -> Transaction:
        return Transaction(self.db, self.lock)

    # -- files --------------------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        rows = self.db.execute(
            "SELECT id, path, size, mtime_ns, hash, language, skip_reason FROM files"
        )
        return {r[1]: FileRow(*r) for r in rows}

    def files_at(self, scopes: Iterable[str]) -> dict[str, FileRow]:
        """Rows of the files at or under each scope path (a file, or a folder)."""
        out: dict[str, FileRow] = {}
        for scope in scopes:
            # '/' sorts just before '0': the range is everything under "scope/".
            rows = self.db.execute(
                "SELECT id, path, size, mtime_ns, hash, language, skip_reason FROM files"
                " WHERE path=? OR (path>=? AND path<?)",
                (scope, scope + "/", scope + "0"),
            )
            out.update((r[1], FileRow(*r)) for r in rows)
        return out

    def upsert_file(
        self,
        path: str,
        size: int,
        mtime_ns: int,
        file_hash: str | None,
        language: str | None,
        skip_reason: str | None,
    ) -> int:
        row = self.db.execute(
            "INSERT INTO files(path, size, mtime_ns, hash, language, skip_reason)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET size=excluded.size,"
            " mtime_ns=excluded.mtime_ns, hash=excluded.hash, language=excluded.language,"
            " skip_reason=excluded.skip_reason RETURNING id",
            (path, size, mtime_ns, file_hash, language, skip_reason),
        ).fetchone()
        return int(row[0])

    def touch_file(self, file_id: int, size: int, mtime_ns: int) -> None:
        self.db.execute("UPDATE files SET size=?, mtime_ns=? WHERE id=?", (size, mtime_ns, file_id))

    def delete_files(self, file_ids: Iterable[int]) -> None:
        self.db.executemany("DELETE FROM files WHERE id=?", [(i,) for i in file_ids])

    def replace_chunks(
        self,
        files: list[tuple[int, list[ChunkValues], list[DefinitionValues], bool, str]],
    ) -> list[list[int]]:
        """Store the chunks, definitions and terms of several files; return each file's
        chunk ids.

        Each item is (file id, chunk rows, definition rows, replaces, terms): the old
        chunks and definitions of a file are dropped first only when it had some
        (``replaces``).
        One statement per table for the whole batch: per-file statements cost the
        writer, the slowest process of a first build, a third more.
        """
        old = [(file_id,) for file_id, _, _, replaces, _ in files if replaces]
        if old:
            self.db.executemany("DELETE FROM chunks WHERE file_id=?", old)
            self.db.executemany("DELETE FROM definitions WHERE file_id=?", old)
        # Ids are assigned here (one writer holds the lock) so one executemany inserts
        # them all; they continue the AUTOINCREMENT sequence, so ids are never reused.
        next_id = self.last_chunk_id() + 1
        ids: list[list[int]] = []
        chunk_rows: list[tuple] = []
        definition_rows: list[tuple] = []
        for file_id, chunks, definitions, _, _ in files:
            file_ids = list(range(next_id, next_id + len(chunks)))
            next_id += len(chunks)
            ids.append(file_ids)
            chunk_rows.extend(
                (chunk_id, file_id, *values)
                for chunk_id, values in zip(file_ids, chunks, strict=True)
            )
            definition_rows.extend((file_id, *values) for values in definitions)
        self.db.executemany(
            "INSERT INTO chunks(id, file_id, start_line, end_line, kind, symbol, parent,"
            " signature, symbols, text, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            chunk_rows,
        )
        self.db.executemany(
            "INSERT INTO definitions(file_id, name, kind, parent, start_line, end_line,"
            " signature) VALUES (?,?,?,?,?,?,?)",
            definition_rows,
        )
        self._put_file_terms([(file_id, terms) for file_id, _, _, _, terms in files])
        return ids

    def mark_generated(self, files: Iterable[tuple[int, bool]]) -> None:
        """Record which of these files a tool wrote (``generated``), by file id."""
        rows = list(files)
        self.db.executemany("DELETE FROM generated_files WHERE file_id=?", [(i,) for i, _ in rows])
        self.db.executemany(
            "INSERT INTO generated_files(file_id) VALUES (?)", [(i,) for i, made in rows if made]
        )

    def generated_paths(self) -> frozenset[str]:
        """The paths of the files a tool wrote (a handful per tree, if any), kept in
        memory until the next commit: every search reads them."""
        query = "SELECT f.path FROM generated_files g JOIN files f ON f.id=g.file_id"
        with self.lock:
            return self._once_per_commit(
                "generated", lambda: frozenset(path for (path,) in self.db.execute(query))
            )

    def translation_folders(self) -> frozenset[str]:
        """The folders of translated docs (``locales.translation_folders``) among the
        indexed files, kept in memory until the next commit: every search reads them."""
        return self.from_indexed_paths("translations", translation_folders)

    def from_indexed_paths(self, name: str, derive: Callable[[list[str]], T]) -> T:
        """``derive(the paths of the indexed files)``, kept under ``name`` until the set
        of paths changes: what searches need from the whole file list is worked out
        once, not again after each commit that only edits files (a watched tree)."""
        with self.lock:
            paths = self._once_per_commit("paths", self._indexed_paths)
            held = self._from_paths.get(name)
            if held is None or held[0] is not paths:
                held = self._from_paths[name] = (paths, derive(paths))
            return held[1]  # type: ignore[return-value]

    def _indexed_paths(self) -> list[str]:
        """The paths of the indexed files; the list held already when they are the same."""
        query = "SELECT path FROM files WHERE skip_reason IS NULL ORDER BY id"
        paths = [path for (path,) in self.db.execute(query)]
        if paths != self._paths:
            self._paths = paths
        return self._paths

    def replace_skipped(self, skipped: Iterable[tuple[str, str]]) -> None:
        self.db.execute("DELETE FROM skipped")
        self.db.executemany("INSERT OR REPLACE INTO skipped(path, reason) VALUES (?, ?)", skipped)

    def skipped_differ(self, skipped: Iterable[tuple[str, str]]) -> bool:
        """Whether a walk's skipped files differ from the stored ones, or some indexed
        file still lacks its terms (``backfill_file_terms``): a run must then write."""
        stored = self.db.execute("SELECT path, reason FROM skipped ORDER BY path").fetchall()
        if stored != sorted(dict(skipped).items()):
            return True
        missing_terms = self.db.execute(
            "SELECT 1 FROM files WHERE skip_reason IS NULL"
            " AND id NOT IN (SELECT file_id FROM file_terms) LIMIT 1"
        ).fetchone()
        return missing_terms is not None

    def update_skipped(self, scopes: Iterable[str], skipped: Iterable[tuple[str, str]]) -> None:
        """Replace the skipped entries at or under ``scopes`` (a path-scoped update)."""
        for scope in scopes:
            self.db.execute(
                "DELETE FROM skipped WHERE path=? OR (path>=? AND path<?)",
                (scope, scope + "/", scope + "0"),
            )
        self.db.executemany("INSERT OR REPLACE INTO skipped(path, reason) VALUES (?, ?)", skipped)

    # -- chunks -------------------------------------------------------------------------
    _CHUNK_COLUMNS = (
        "c.id, f.path, f.language, c.start_line, c.end_line, c.kind, c.symbol,"
        " c.parent, c.signature, c.symbols, c.text, c.hash"
    )

    #: ``_CHUNK_COLUMNS`` with text only for ``block`` chunks and for functions that end
    #: in ``;`` (see ``candidate_rows``).
    _RANKING_COLUMNS = _CHUNK_COLUMNS.replace(
        "c.text",
        "CASE WHEN c.kind='block' OR (c.kind IN ('function','method')"
        " AND rtrim(c.text, ' '||char(9,10,13)) LIKE '%;') THEN c.text ELSE '' END",
    )

    def chunks_by_id(self, ids: Iterable[int]) -> dict[int, ChunkRow]:
        return self._rows_by_id(list(ids), self._CHUNK_COLUMNS)

    def _rows_by_id(self, ids: list[int], columns: str) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        for begin in range(0, len(ids), 900):
            part = ids[begin : begin + 900]
            marks = ",".join("?" * len(part))
            rows = self.db.execute(
                f"SELECT {columns} FROM chunks c JOIN files f ON f.id=c.file_id"
                f" WHERE c.id IN ({marks})",
                part,
            )
            out.update((r[0], ChunkRow(*r)) for r in rows)
        return out

    def candidate_rows(self, ids: Iterable[int]) -> dict[int, ChunkRow]:
        """Rows of these chunks for ranking, from memory where it can.

        Text is kept only for ``block`` chunks (the imports prior reads it) and for
        functions whose text ends in ``;`` (declarations without a body); the texts of
        the few chunks shown come from ``texts``. Every id asked for must exist in the
        caller's snapshot (``live_chunk_ids`` tells): a kept row outlives its chunk.
        """
        out: dict[int, ChunkRow] = {}
        missing: list[int] = []
        for chunk_id in ids:
            row = self._rows.get(chunk_id)
            if row is None:
                missing.append(chunk_id)
            else:
                out[chunk_id] = row
        out.update(self._rows_by_id(missing, self._RANKING_COLUMNS))
        if len(self._rows) + len(missing) > ROW_CACHE_SIZE:
            self._rows.clear()  # rare (huge repositories): refilled by the next searches
        self._rows.update((i, out[i]) for i in missing if i in out)
        return out

    def chunks_in_files(self, names: Iterable[str], limit: int) -> list[tuple[int, str]]:
        """(id, path) of the chunks of files whose path ends in one of ``names`` in any
        case; callers keep those ``tokens.names_path`` accepts. The files are found first
        and their chunks through ``chunks_file``: a join ordered by chunk id made SQLite
        read every chunk (112 ms at 174k chunks, 6 ms this way)."""
        where, values = [], []
        for name in names:
            forms = path_suffixes(name)
            where.append(f"f.path COLLATE NOCASE IN ({','.join('?' * len(forms))})")
            where.append("f.path LIKE ? ESCAPE '\\'")
            values += [*forms, "%/" + escape_like(name)]
        if not where:
            return []
        rows = self.db.execute(
            "SELECT c.id, f.path FROM chunks c JOIN files f ON f.id=c.file_id"
            f" WHERE c.file_id IN (SELECT f.id FROM files f WHERE {' OR '.join(where)})"
            " ORDER BY c.id LIMIT ?",
            (*values, limit),
        )
        return rows.fetchall()

    def chunks_holding(
        self, ids: Iterable[int], needle: str, squash_spaces: bool = False
    ) -> set[int]:
        """Of these chunks, those whose text holds ``needle`` (lower case) in any ASCII case;
        compared in SQLite, so no text crosses into Python (by ``LIKE``, which ignores
        ASCII case as ``lower`` does, without copying each text: 0.6x the time).
        ``squash_spaces``: line breaks, tabs and runs of spaces in the text count as one
        space (``needle`` has them so), for snippets pasted over several lines."""
        ids = list(ids)
        if not ids or not needle:
            return set()
        marks = ",".join("?" * len(ids))
        text = _SQUASHED_TEXT if squash_spaces else "text"
        rows = self.db.execute(
            f"SELECT id FROM chunks WHERE id IN ({marks}) AND {text} LIKE ? ESCAPE '\\'",
            (*ids, f"%{escape_like(needle)}%"),
        )
        return {row[0] for row in rows}

    def texts(self, ids: Iterable[int]) -> dict[int, str]:
        ids = list(ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(f"SELECT id, text FROM chunks WHERE id IN ({marks})", ids)
        return dict(rows.fetchall())

    def languages_of(self, ids: Iterable[int]) -> dict[int, str]:
        """chunk id -> the language of its file."""
        ids = list(ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(
            "SELECT c.id, f.language FROM chunks c JOIN files f ON f.id=c.file_id"
            f" WHERE c.id IN ({marks})",
            ids,
        )
        return dict(rows.fetchall())

    def live_chunk_ids(self) -> np.ndarray:
        """Sorted ids of the chunks in the current snapshot (read once per commit)."""
        return self._once_per_commit("live", self._sorted_chunk_ids)

    def _sorted_chunk_ids(self) -> np.ndarray:
        ids = np.array([r[0] for r in self.db.execute("SELECT id FROM chunks")], np.int64)
        ids.sort()
        return ids

    def file_terms(self, paths: Iterable[str]) -> dict[str, list[str]]:
        """Sorted distinct terms of each file (``PreparedFile.terms``), kept in memory
        until the next commit. A file indexed before the table existed has no row: its
        terms are read from its chunks instead."""
        paths = list(paths)  # read twice below: a generator would be empty the second time
        mark = self._commit_mark()
        if self._terms[0] != mark or len(self._terms[1]) > TERMS_CACHE_SIZE:
            self._terms = (mark, {})
        cache = self._terms[1]
        wanted = [path for path in set(paths) if path not in cache]
        if wanted:
            marks = ",".join("?" * len(wanted))
            rows = self.db.execute(
                "SELECT f.path, t.terms FROM files f JOIN file_terms t ON t.file_id=f.id"
                f" WHERE f.path IN ({marks})",
                wanted,
            ).fetchall()
            found = dict(rows)
            found.update(self._terms_from_chunks([p for p in wanted if p not in found]))
            cache.update((path, _interned(terms)) for path, terms in found.items())
        return {path: cache[path] for path in paths if path in cache}

    def backfill_file_terms(self) -> None:
        """Write the terms of indexed files that have none (an index written before the
        table existed). Call inside a transaction."""
        rows = self.db.execute(
            "SELECT id, path FROM files WHERE skip_reason IS NULL"
            " AND id NOT IN (SELECT file_id FROM file_terms)"
        ).fetchall()
        for start in range(0, len(rows), 200):
            part = rows[start : start + 200]
            terms = self._terms_from_chunks([path for _, path in part])
            # a file without chunks gets an empty row, so it is not looked at again
            self._put_file_terms([(file_id, terms.get(path, "")) for file_id, path in part])

    def _put_file_terms(self, rows: list[tuple[int, str]]) -> None:
        self.db.executemany("INSERT OR REPLACE INTO file_terms(file_id, terms) VALUES (?, ?)", rows)

    def _terms_from_chunks(self, paths: list[str]) -> dict[str, str]:
        """``PreparedFile.terms`` of each file, computed again from its stored chunks."""
        texts: dict[str, list[str]] = {}
        if paths:
            marks = ",".join("?" * len(paths))
            for path, text in self.db.execute(
                "SELECT f.path, c.text FROM chunks c JOIN files f ON f.id=c.file_id"
                f" WHERE f.path IN ({marks})",
                paths,
            ):
                texts.setdefault(path, [path_terms(path)]).append(code_terms_text(text))
        return {path: sorted_terms(bodies) for path, bodies in texts.items()}

    def iter_chunks(self) -> Iterator[ChunkRow]:
        yield from (
            ChunkRow(*r)
            for r in self.db.execute(
                f"SELECT {self._CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id=c.file_id"
                " ORDER BY c.id"
            )
        )

    def unembedded(self, limit: int, tier: str = "deep") -> list[ChunkRow]:
        """Chunks whose content hash has no vector yet, one per distinct hash."""
        table = VECTOR_TABLES[tier]
        rows = self.db.execute(
            f"SELECT {self._CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id=c.file_id"
            f" WHERE NOT EXISTS (SELECT 1 FROM {table} e WHERE e.hash=c.hash)"
            " GROUP BY c.hash ORDER BY MIN(c.id) LIMIT ?",
            (limit,),
        )
        return [ChunkRow(*r) for r in rows]

    def put_embeddings(self, hashes: list[str], vectors: np.ndarray, tier: str = "deep") -> None:
        data = vectors.astype(np.float16)
        self.db.executemany(
            f"INSERT OR REPLACE INTO {VECTOR_TABLES[tier]}(hash, vector) VALUES (?, ?)",
            [(h, data[i].tobytes()) for i, h in enumerate(hashes)],
        )

    def embedded_vectors(self, tier: str = "deep") -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids, float16 vectors) of every chunk that has a vector, by id."""
        rows = self.db.execute(
            f"SELECT c.id, e.vector FROM chunks c JOIN {VECTOR_TABLES[tier]} e ON e.hash=c.hash"
            " ORDER BY c.id"
        ).fetchall()
        return keyed_vectors(rows)

    def clear_embeddings(self, tier: str = "deep") -> None:
        self.db.execute(f"DELETE FROM {VECTOR_TABLES[tier]}")

    def embedded_count(self, tier: str = "deep") -> int:
        """Chunks that have a vector of this tier."""
        return self.db.execute(
            "SELECT COUNT(*) FROM chunks c WHERE EXISTS"
            f" (SELECT 1 FROM {VECTOR_TABLES[tier]} e WHERE e.hash=c.hash)"
        ).fetchone()[0]

    # -- counts -------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        one = self.db.execute
        return {
            "files": self.indexed_file_count(),
            "chunks": self.chunk_count(),
            "definitions": one("SELECT COUNT(*) FROM definitions").fetchone()[0],
            "embedded_chunks": self.embedded_count("deep"),
            "static_chunks": self.embedded_count("static"),
        }

    def chunk_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def committed_chunk_count(self) -> int:
        """``chunk_count`` at the current lexical commit, counted once per commit: every
        search asks for it twice, and a count reads the whole table (1.5 ms at 174k
        chunks). Searches only; a writer mid-run counts afresh."""
        return self._once_per_commit("chunk_count", self.chunk_count)

    def indexed_file_count(self) -> int:
        """Files in the index (read and chunked; not those skipped on reading)."""
        return self.db.execute("SELECT COUNT(*) FROM files WHERE skip_reason IS NULL").fetchone()[0]

    def skip_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for reason, n in self.db.execute(
            "SELECT reason, COUNT(*) FROM skipped GROUP BY reason UNION ALL "
            "SELECT skip_reason, COUNT(*) FROM files WHERE skip_reason IS NOT NULL"
            " GROUP BY skip_reason"
        ):
            counts[reason] = counts.get(reason, 0) + n
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))

    # -- lookups for handles, symbols and expansion -------------------------------------
    def file_row(self, path: str) -> FileRow | None:
        row = self.db.execute(
            "SELECT id, path, size, mtime_ns, hash, language, skip_reason FROM files WHERE path=?",
            (path,),
        ).fetchone()
        return FileRow(*row) if row else None

    def chunks_in_file(self, path: str) -> list[ChunkRow]:
        rows = self.db.execute(
            f"SELECT {self._CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id=c.file_id"
            " WHERE f.path=? ORDER BY c.start_line",
            (path,),
        )
        return [ChunkRow(*r) for r in rows]

    def last_chunk_id(self) -> int:
        """The highest chunk id ever given out (ids are never reused)."""
        row = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name='chunks'").fetchone()
        return int(row[0]) if row else 0

    def words_like(self, first: str, shortest: int, longest: int) -> set[str]:
        """Terms of the indexed files (``file_terms``: lower case, unstemmed, whole
        identifiers and their words) that start with ``first`` (one character) and are
        ``shortest`` to ``longest`` characters long. Each file's terms are sorted, so
        those starting with one character stand together: one search finds where they
        start and one match takes them all. Still reads every file's terms (about 100 ms
        for 30 MB of them), so this serves the rare respelling, not every search."""
        first = first.lower()
        together = re.compile(rf"{re.escape(first)}\S*(?: {re.escape(first)}\S*)*")
        found: set[str] = set()
        for (terms,) in self.db.execute("SELECT terms FROM file_terms"):
            at = 0 if terms.startswith(first) else terms.find(" " + first) + 1
            run = together.match(terms, at)
            if run is not None:
                found.update(w for w in run.group().split(" ") if shortest <= len(w) <= longest)
        return found


def _interned(terms: str) -> list[str]:
    """The words of a space-joined term list, each the one shared copy of that string:
    files repeat each other's words, and thousands of lists are kept (curl's 371 files:
    3.7 MB against 9.1 MB for separate copies)."""
    return [sys.intern(word) for word in terms.split()]
