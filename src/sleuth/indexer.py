"""The write pipeline: discover, diff against SQLite, chunk, write SQLite + tantivy.

Work is committed in units of a few seconds (``config.COMMIT_SECONDS``): one SQLite
transaction stays open while batches of files are written to it and to the tantivy
writer; at the end of the unit tantivy commits first, carrying the unit's number
(``LexicalStore.set_mark``), then SQLite. Readers therefore see both stores at the same
unit (they check the mark, see ``Index._read_view``). A kill before the tantivy commit
loses the open unit in both stores; a kill between the two commits leaves the tantivy
mark one ahead of SQLite, and whoever opens the index next rebuilds tantivy from
SQLite. Nothing SQLite committed is ever lost.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from . import config, parse_journal
from .discover import FoundFile, PathRules, Skipped, walk
from .errors import SleuthError
from .prepare import PreparedFile, lexical_fields, prepare_batch, ready, start_worker
from .store.layout import Layout
from .store.lexical import LexicalStore
from .store.meta import MetaStore

log = logging.getLogger("sleuth.index")

#: progress(phase, done, total, note): phases are "scan", "index", "embed"; the note
#: says what else grew (e.g. "1,204 chunks").
Progress = Callable[..., None]
#: finish(report): the caller's writes that go into a run's last unit (see ``update``).
Finish = Callable[["UpdateReport"], None]


def _quiet(phase: str, done: int, total: int, note: str = "") -> None:
    return None


def _nothing(report: UpdateReport) -> None:
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
    #: Files whose parse ended the process preparing them: indexed as line windows.
    parse_crashed: list[str] = field(default_factory=list)


class Indexer:
    def __init__(self, root: Path, meta: MetaStore, lexical: LexicalStore) -> None:
        self.root = root
        self.meta = meta
        self.lexical = lexical
        self._unit_started: float | None = None  # monotonic start of the open unit
        self._pool: ProcessPoolExecutor | None = None
        #: where each preparing process names the file it parses (``parse_journal``)
        self._journal = str(Layout(root).directory / "parsing")
        #: files named by a process that died parsing them: prepared apart
        self._suspects: set[str] = set()

    # -- commit units ---------------------------------------------------------------------
    def _begin(self) -> None:
        if self._unit_started is None:
            self.meta.lock.acquire()
            try:
                self.meta.db.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.meta.lock.release()
                raise
            self._unit_started = time.monotonic()

    def _commit(self) -> None:
        """End the open unit: tantivy commits (with the unit's mark), then SQLite."""
        if self._unit_started is None:
            return
        number = int(self.meta.get("lexical_commit", "0") or 0) + 1
        self.meta.set("lexical_commit", number)
        self.meta.set("lexical_dirty", 0)
        self.lexical.set_mark(number)
        self.lexical.commit(settle=False)
        self.meta.db.execute("COMMIT")
        self._unit_started = None
        self.meta.lock.release()
        self.lexical.settle()  # merges after both commits: readers never wait for them

    def _abort(self) -> None:
        """Drop the open unit from both stores (an exception, not a kill)."""
        if self._unit_started is not None:
            self._unit_started = None
            try:
                self.lexical.rollback()
                self.meta.db.execute("ROLLBACK")
            finally:
                self.meta.lock.release()

    def _maybe_commit(self) -> None:
        started = self._unit_started
        if started is not None and time.monotonic() - started >= config.COMMIT_SECONDS:
            self._commit()

    def lexical_in_step(self) -> bool:
        """False when tantivy must be rebuilt: flagged, or its mark differs from SQLite's."""
        if self.meta.get("lexical_dirty") == "1":
            return False
        self.lexical.index.reload()
        return self.lexical.mark() == int(self.meta.get("lexical_commit", "0") or 0)

    # -- runs -----------------------------------------------------------------------------
    def update(
        self,
        progress: Progress = _quiet,
        full: bool = False,
        finish: Finish = _nothing,
        finish_if_idle: bool = True,
    ) -> UpdateReport:
        """Bring every file up to date. ``finish(report)`` runs inside the last unit,
        before it commits (the caller's own writes that must land with the run). A run
        that finds nothing to change writes nothing, ``finish`` included, unless
        ``finish_if_idle``."""
        self._take_suspects()
        try:
            with ExitStack() as stack:  # shuts worker processes down, also on errors
                return self._update(progress, full, stack, finish, finish_if_idle)
        except BaseException:
            self._abort()
            raise
        finally:
            self._pool = None

    def _update(
        self, progress: Progress, full: bool, stack: ExitStack, finish: Finish, finish_if_idle: bool
    ) -> UpdateReport:
        report = UpdateReport()
        if not full and not self.lexical_in_step():
            report.lexical_rebuilt = True
            self.rebuild_lexical()
        known = {} if full else self.meta.files()
        found: list[FoundFile] = []
        todo: list[FoundFile] = []
        skipped: list[tuple[str, str]] = []
        progress("scan", 0, 0)
        early: list[Future] = []  # batches handed to the workers while the walk goes on
        held: list[FoundFile] = []  # suspects (``_take_suspects``)
        for item in walk(self.root):
            if isinstance(item, Skipped):
                skipped.append((item.path, item.reason))
                continue
            found.append(item)
            row = known.get(item.path)
            if full or row is None or row.size != item.size or row.mtime_ns != item.mtime_ns:
                if item.path in self._suspects:
                    held.append(item)  # prepared apart, first
                    continue
                todo.append(item)
                if len(todo) == config.PARALLEL_MIN_FILES:
                    # A big job: worker processes start now and import while the walk
                    # goes on (about 0.2 s each on a loaded 2-core machine).
                    self._pool = self._start_pool(stack)
                if self._pool is not None and len(early) < _window():
                    begin = len(early) * config.INDEX_BATCH_FILES
                    if len(todo) >= begin + config.INDEX_BATCH_FILES:
                        batch = todo[begin : begin + config.INDEX_BATCH_FILES]
                        items = _batch_items(batch, known, full)
                        early.append(_submit(self._pool, str(self.root), items))
            if len(found) % 500 == 0:
                progress("scan", len(found), 0)
        report.scanned = len(found)
        progress("scan", len(found), len(found))

        if full:  # both stores empty out in the first unit: readers never see it alone
            self._begin()
            self.meta.db.execute("DELETE FROM files")
            self.lexical.clear()
        report.removed = self._drop_gone(known, found)

        report.unchanged = len(found) - len(todo) - len(held)
        batches = self._suspects_first(
            held, known, full, self._prepared_batches(todo, known, full, early)
        )
        self._write_all(batches, len(todo) + len(held), known, report, progress)
        # A run that changed nothing (a search's refresh of an unchanged tree) writes
        # nothing: no lock on SQLite and no tantivy commit for a run with nothing to say.
        idle = self._unit_started is None and not (full or report.lexical_rebuilt)
        if not idle or finish_if_idle or self.meta.skipped_differ(skipped):
            self._begin()
            self.meta.replace_skipped(skipped)
            self.meta.backfill_file_terms()
            finish(report)
            self._commit()
        _count_skipped(report, (reason for _, reason in skipped))
        return report

    def _start_pool(self, stack: ExitStack) -> ProcessPoolExecutor | None:
        """Worker processes for preparing files, started at once; None on a single core."""
        if config.INDEX_WORKERS < 2:
            return None
        pool = stack.enter_context(_spawn_pool(config.INDEX_WORKERS, self._journal))
        for _ in range(config.INDEX_WORKERS):
            pool.submit(ready)  # workers spawn on demand: one task each starts them all
        return pool

    def update_paths(
        self,
        paths: list[str],
        rules: PathRules | None = None,
        progress: Progress = _quiet,
        finish: Finish = _nothing,
    ) -> UpdateReport:
        """Bring only these repository-relative paths (files or folders) up to date.

        What a watcher calls per batch of events: nothing else is walked. Every file
        found is read again (the content hash, not the mtime, decides whether it is
        re-chunked: two saves within one mtime tick must not be missed); indexed files
        at or under a path that are no longer found (deleted, renamed away, now
        ignored or secret) are dropped. Small batches commit as one unit, so a search
        sees a renamed file at its old path or at its new one, never at neither.
        """
        self._take_suspects()
        try:
            return self._update_paths(paths, rules or PathRules(self.root), progress, finish)
        except BaseException:
            self._abort()
            raise

    def _update_paths(
        self, paths: list[str], rules: PathRules, progress: Progress, finish: Finish
    ) -> UpdateReport:
        report = UpdateReport()
        if not self.lexical_in_step():
            report.lexical_rebuilt = True
            self.rebuild_lexical()
        found, skipped, scopes = rules.scan(paths)
        known = self.meta.files_at(scopes)
        report.scanned = len(found)
        report.removed = self._drop_gone(known, found)
        # no worker pool here: _prepare_here sets the suspects apart
        batches = self._prepared_batches(found, known, full=False)
        self._write_all(batches, len(found), known, report, progress)
        report.unchanged = len(found) - report.changed
        self._begin()
        self.meta.update_skipped(scopes, [(s.path, s.reason) for s in skipped])
        finish(report)
        self._commit()
        _count_skipped(report, (item.reason for item in skipped))
        return report

    def _write_all(
        self,
        batches: Iterator[list[PreparedFile]],
        total: int,
        known: dict,
        report: UpdateReport,
        progress: Progress,
    ) -> None:
        """Write prepared batches in commit units, counting into ``report``."""
        progress("index", 0, total)
        done = 0
        for batch in batches:
            changed, written = self._write_batch(batch, known)
            report.parse_crashed += [record.path for record in batch if record.parse_crashed]
            done += len(batch)
            report.changed += changed
            report.chunks_written += written
            progress("index", done, total, f"{report.chunks_written:,} chunks")
            self._maybe_commit()

    def _drop_gone(self, known: dict, found: list[FoundFile]) -> int:
        """Delete the known files not found again (in the open unit); returns how many."""
        present = {f.path for f in found}
        gone = [row.id for path, row in known.items() if path not in present]
        if gone:
            self._begin()
            self.meta.delete_files(gone)
            for file_id in gone:
                self.lexical.delete_file(file_id)
        return len(gone)

    def _suspects_first(
        self, held: list[FoundFile], known: dict, full: bool, batches: Iterator[list[PreparedFile]]
    ) -> Iterator[list[PreparedFile]]:
        """The suspects (``_take_suspects``) prepared apart, then the other batches."""
        if held:
            yield _prepare_suspects(str(self.root), _batch_items(held, known, full))
        yield from batches

    def _take_suspects(self) -> None:
        """Files named by the journals of processes that died parsing them: this run
        prepares them apart (``_prepare_suspects``), and parses in this process are
        journaled from now on too."""
        self._suspects.update(parse_journal.crashed(Path(self._journal)))
        parse_journal.use(self._journal)

    def _prepared_batches(
        self, todo: list[FoundFile], known: dict, full: bool, early: Sequence[Future] = ()
    ) -> Iterator[list[PreparedFile]]:
        """Prepared batches in order; on big jobs worker processes prepare ahead.

        ``early``: futures of the first batches, handed out during the walk.
        """
        size = config.INDEX_BATCH_FILES
        batches = [
            _batch_items(todo[begin : begin + size], known, full)
            for begin in range(len(early) * size, len(todo), size)
        ]
        root = str(self.root)
        pool = self._pool
        if pool is None:
            for items in batches:
                yield _prepare_here(root, items, self._suspects)
            return
        handed = [
            _batch_items(todo[number * size : (number + 1) * size], known, full)
            for number in range(len(early))
        ]
        window: deque[tuple[Future | None, list[tuple]]] = deque(zip(early, handed, strict=True))
        broken = False

        def settled(future: Future | None, items: list[tuple]) -> list[PreparedFile]:
            """The batch from its worker, or prepared here once the workers are gone."""
            nonlocal broken
            if future is not None and not broken:
                try:
                    return future.result()
                except BrokenProcessPool:
                    broken = True
                    log.warning(
                        "the index's worker processes ended early; this process prepares"
                        " the remaining files"
                    )
                    # A worker that died parsing named its file, but its journal is read
                    # only once the process is gone: one still tearing down (its pool
                    # already saw it go) looks alive, and this process would then parse
                    # that file itself. Shutting the broken pool down reaps its workers.
                    pool.shutdown(wait=True, cancel_futures=True)
                    self._take_suspects()
            return _prepare_here(root, items, self._suspects)

        for items in batches:  # keep a bounded number of batches in flight
            window.append((None if broken else _submit(pool, root, items), items))
            if len(window) >= _window():
                yield settled(*window.popleft())
        while window:
            yield settled(*window.popleft())
        pool.shutdown(wait=False)  # workers exit while the last batch is written

    def _write_batch(self, batch: list[PreparedFile], known: dict) -> tuple[int, int]:
        """Write one batch of files into the open unit (SQLite rows, tantivy documents)."""
        changed = written = 0
        stored: list[tuple[int, PreparedFile]] = []
        rows = []
        self._begin()
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
            rows.append((file_id, record.chunks, record.definitions, row is not None, record.terms))
        chunk_ids = self.meta.replace_chunks(rows)
        self.meta.mark_generated((file_id, record.generated) for file_id, record in stored)
        for (file_id, record), ids in zip(stored, chunk_ids, strict=True):
            self.lexical.delete_file(file_id)
            for chunk_id, fields in zip(ids, record.lexical, strict=True):
                self.lexical.add(chunk_id, file_id, fields)
            written += len(ids)
        return changed, written

    def rebuild_lexical(self) -> None:
        """Recreate tantivy from SQLite: the way out of any disagreement between them.

        Runs as one unit, so readers keep the old pair until both stores switch.
        """
        self._begin()
        try:
            self.lexical.clear()
            file_ids = dict(self.meta.db.execute("SELECT path, id FROM files").fetchall())
            for row in self.meta.iter_chunks():
                fields = lexical_fields(row.path, row.text, row.symbols.split())
                self.lexical.add(row.id, file_ids[row.path], fields)
            self._commit()
        except BaseException:
            self._abort()
            raise


def _window() -> int:
    """Batches in flight at most: two per worker, plus the one being handed out."""
    return config.INDEX_WORKERS * 2 + 1


#: (root, path) of the files whose parse gave up in this process. A parse that gives up
#: leaks what it took in the tree-sitter binding (about 20 MB for a bad file), and a
#: watcher prepares the same file again after every save: such files are prepared in a
#: child process from then on, which gives the memory back when it exits.
_HALTED: set[tuple[str, str]] = set()


def _submit(pool: ProcessPoolExecutor, root: str, items: list[tuple]) -> Future:
    """``prepare_batch`` handed to a worker; a pool already broken gives a future that
    says so (``_prepared_batches`` then prepares the batch itself)."""
    try:
        return pool.submit(prepare_batch, root, items)
    except BrokenProcessPool as exc:
        failed: Future = Future()
        failed.set_exception(exc)
        return failed


def refuse_in_worker_start() -> None:
    """Raise when called while a worker process is starting. A spawned worker begins
    by running the caller's main script again, so a script that uses sleuth at its top
    level (no ``if __name__ == "__main__":``) would index from inside every worker
    (each waiting on the lock its parent holds): it is told so, and its run goes on
    without the workers."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise SleuthError(
            "sleuth was called while one of its worker processes was starting: workers"
            " import the main script again, so put the script's calls under"
            ' `if __name__ == "__main__":`'
        )


def _spawn_pool(workers: int, journal: str | None = None) -> ProcessPoolExecutor:
    """Worker processes started afresh (``spawn``: no copy of this process's state),
    each ending as soon as this process is gone, and journaling its parses into
    ``journal``."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_worker,
        initargs=(os.getpid(), journal),
    )


def _prepare_here(root: str, items: list[tuple], suspects: set[str]) -> list[PreparedFile]:
    """``prepare_batch`` in this process, but for files whose parse gave up here before
    (in a child, which gives back what the parse leaked) and ``suspects``."""
    suspect = [item for item in items if item[0] in suspects]
    items = [item for item in items if item[0] not in suspects]
    apart = [item for item in items if (root, item[0]) in _HALTED]
    prepared = prepare_batch(root, [item for item in items if (root, item[0]) not in _HALTED])
    _HALTED.update((root, record.path) for record in prepared if record.parse_halted)
    if apart:
        try:
            with _spawn_pool(1) as child:
                prepared += child.submit(prepare_batch, root, apart).result()
        except BrokenProcessPool:  # the child died: one of them may crash the parser
            suspect += apart
        except OSError:  # no child to be had: here, leak and all
            prepared += prepare_batch(root, apart)
    return prepared + (_prepare_suspects(root, suspect) if suspect else [])


def _prepare_suspects(root: str, items: list[tuple]) -> list[PreparedFile]:
    """Files whose parse ended a process (``parse_journal``), each prepared in a child
    of its own; one whose child dies too is cut into line windows here, without a
    grammar: a file that crashes the parser must not crash every run."""
    prepared: list[PreparedFile] = []
    for item in items:
        try:
            with _spawn_pool(1) as child:
                prepared += child.submit(prepare_batch, root, [item]).result()
            continue
        except (BrokenProcessPool, OSError):
            log.warning("%s: its parse ended a process; indexed as line windows", item[0])
        prepared += prepare_batch(root, [item], windows_only=True)
    return prepared


def _batch_items(batch: list[FoundFile], known: dict, full: bool) -> list[tuple]:
    """Worker task arguments: (path, size, mtime_ns, known content hash or None)."""
    return [
        (f.path, f.size, f.mtime_ns, None if full or f.path not in known else known[f.path].hash)
        for f in batch
    ]


def _count_skipped(report: UpdateReport, reasons: Iterable[str]) -> None:
    for reason in reasons:
        report.skipped[reason] = report.skipped.get(reason, 0) + 1
