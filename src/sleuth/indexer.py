"""The write pipeline: discover, diff against SQLite, chunk, write SQLite + tantivy.

Work is committed in batches of files. SQLite commits each batch with ``lexical_dirty``
set; tantivy commits every few seconds (a commit costs ~0.1 s) and at the end, and only
then is the flag cleared. A crash in between leaves the flag set, and the next run
rebuilds tantivy from SQLite: nothing SQLite holds is lost.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from . import config
from .discover import FoundFile, Skipped, walk
from .prepare import PreparedFile, lexical_fields, prepare_batch, ready, watch_parent
from .store.lexical import LexicalStore
from .store.meta import MetaStore

#: progress(phase, done, total, note): phases are "scan", "index", "embed"; the note
#: says what else grew (e.g. "1,204 chunks").
Progress = Callable[..., None]


def _quiet(phase: str, done: int, total: int, note: str = "") -> None:
    return None


@dataclass
class UpdateReport:
    scanned: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    chunks_written: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    lexical_rebuilt: bool = False


class Indexer:
    def __init__(self, root: Path, meta: MetaStore, lexical: LexicalStore) -> None:
        self.root = root
        self.meta = meta
        self.lexical = lexical
        self._last_commit = time.monotonic()
        self._pool: ProcessPoolExecutor | None = None

    def update(self, progress: Progress = _quiet, full: bool = False) -> UpdateReport:
        report = UpdateReport()
        if full:
            self.lexical.clear()
            self.lexical.commit()
        elif self.meta.get("lexical_dirty") == "1":
            report.lexical_rebuilt = True
            self.rebuild_lexical()
        known = self.meta.files()
        with ExitStack() as stack:  # shuts worker processes down, also on errors
            self._update(report, known, progress, full, stack)
        self._pool = None
        return report

    def _update(
        self, report: UpdateReport, known: dict, progress: Progress, full: bool, stack: ExitStack
    ) -> None:
        found: list[FoundFile] = []
        todo: list[FoundFile] = []
        skipped: list[tuple[str, str]] = []
        progress("scan", 0, 0)
        for item in walk(self.root):
            if isinstance(item, Skipped):
                skipped.append((item.path, item.reason))
                continue
            found.append(item)
            row = known.get(item.path)
            if full or row is None or row.size != item.size or row.mtime_ns != item.mtime_ns:
                todo.append(item)
                if len(todo) == config.PARALLEL_MIN_FILES:
                    # A big job: worker processes start now and import while the walk
                    # goes on (about 0.2 s each on a loaded 2-core machine).
                    self._pool = self._start_pool(stack)
            if len(found) % 500 == 0:
                progress("scan", len(found), 0)
        report.scanned = len(found)
        progress("scan", len(found), len(found))

        present = {f.path for f in found}
        gone = [row.id for path, row in known.items() if path not in present]
        if gone:
            with self.meta.transaction():
                self.meta.set("lexical_dirty", 1)
                self.meta.delete_files(gone)
            for file_id in gone:
                self.lexical.delete_file(file_id)
            self.lexical.commit()
            self.meta.set("lexical_dirty", 0)
        report.removed = len(gone)

        report.unchanged = len(found) - len(todo)
        progress("index", 0, len(todo))
        done = 0
        for batch in self._prepared_batches(todo, known, full):
            changed, written = self._write_batch(batch, known)
            done += len(batch)
            report.changed += changed
            report.chunks_written += written
            progress("index", done, len(todo), f"{report.chunks_written:,} chunks")
        if self.meta.get("lexical_dirty") == "1":
            self._commit_lexical()
        with self.meta.transaction():
            self.meta.replace_skipped(skipped)
        for _, reason in skipped:
            report.skipped[reason] = report.skipped.get(reason, 0) + 1

    @staticmethod
    def _start_pool(stack: ExitStack) -> ProcessPoolExecutor | None:
        """Worker processes for preparing files, started at once; None on a single core."""
        if config.INDEX_WORKERS < 2:
            return None
        context = multiprocessing.get_context("spawn")
        pool = stack.enter_context(
            ProcessPoolExecutor(
                max_workers=config.INDEX_WORKERS,
                mp_context=context,
                initializer=watch_parent,
                initargs=(os.getpid(),),
            )
        )
        for _ in range(config.INDEX_WORKERS):
            pool.submit(ready)  # workers spawn on demand: one task each starts them all
        return pool

    def _prepared_batches(
        self, todo: list[FoundFile], known: dict, full: bool
    ) -> Iterator[list[PreparedFile]]:
        """Prepared batches in order; on big jobs worker processes prepare ahead."""
        batches = []
        for begin in range(0, len(todo), config.INDEX_BATCH_FILES):
            batch = todo[begin : begin + config.INDEX_BATCH_FILES]
            batches.append(
                [
                    (
                        f.path,
                        f.size,
                        f.mtime_ns,
                        None if full or f.path not in known else known[f.path].hash,
                    )
                    for f in batch
                ]
            )
        root = str(self.root)
        pool = self._pool
        if pool is None:
            for items in batches:
                yield prepare_batch(root, items)
            return
        window: deque = deque()
        for items in batches:  # keep a bounded number of batches in flight
            window.append(pool.submit(prepare_batch, root, items))
            if len(window) > config.INDEX_WORKERS * 2:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
        pool.shutdown(wait=False)  # workers exit while the last batch is written

    def _write_batch(self, batch: list[PreparedFile], known: dict) -> tuple[int, int]:
        """One SQLite transaction, then the matching tantivy documents."""
        changed = written = 0
        stored: list[tuple[int, PreparedFile]] = []
        rows = []
        with self.meta.transaction():
            self.meta.set("lexical_dirty", 1)
            for record in batch:
                row = known.get(record.path)
                if row is not None and not record.changed and row.skip_reason is None:
                    self.meta.touch_file(row.id, record.size, record.mtime_ns)
                    continue
                changed += 1
                file_id = self.meta.upsert_file(
                    record.path,
                    record.size,
                    record.mtime_ns,
                    record.hash,
                    record.language,
                    record.skip_reason,
                )
                stored.append((file_id, record))
                rows.append((file_id, record.chunks, record.definitions, row is not None))
            chunk_ids = self.meta.replace_chunks(rows)
        for (file_id, record), ids in zip(stored, chunk_ids, strict=True):
            self.lexical.delete_file(file_id)
            for chunk_id, fields in zip(ids, record.lexical, strict=True):
                self.lexical.add(chunk_id, file_id, fields)
            written += len(ids)
        if time.monotonic() - self._last_commit >= config.LEXICAL_COMMIT_SECONDS:
            self._commit_lexical()
        return changed, written

    def _commit_lexical(self) -> None:
        self.lexical.commit()
        self.meta.set("lexical_dirty", 0)
        self._last_commit = time.monotonic()

    def rebuild_lexical(self) -> None:
        """Recreate tantivy from SQLite: the way out of any disagreement between them."""
        self.lexical.clear()
        file_ids = dict(self.meta.db.execute("SELECT path, id FROM files").fetchall())
        for row in self.meta.iter_chunks():
            fields = lexical_fields(row.path, row.text, row.symbols.split())
            self.lexical.add(row.id, file_ids[row.path], fields)
        self.lexical.commit()
        self.meta.set("lexical_dirty", 0)
