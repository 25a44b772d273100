"""Follow a repository's files and keep its index current, batch by batch.

Events come from watchfiles (inotify, FSEvents, ReadDirectoryChangesW), grouped over
``debounce_ms``. Each batch goes through ``Index.update_paths``: only the named files
are read, and only chunks whose content changed get new vectors. A batch that touches
an ignore file, the checked-out branch (``.git/HEAD``) or very many files (a checkout,
a rebase, an unpacked archive) runs the full ``Index.index`` instead: one walk is
cheaper than thousands of single-path updates, and it re-applies every ignore rule.

The watcher writes through its own ``Index`` (its own SQLite connection and tantivy
writer), so the instance handed in stays a pure reader for the thread that searches.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import config
from ..discover import RULE_FILES, PathRules
from ..errors import IndexBusy, SleuthError

if TYPE_CHECKING:
    from ..api import Index, IndexReport

log = logging.getLogger("sleuth.watch")


class _RootGone(Exception):
    """The watched folder itself was removed or renamed."""


#: A batch naming more paths than this runs a full index run instead of path updates.
FULL_RUN_PATHS = 1_000
#: Seconds a batch waits for the write lock before it is kept for the next attempt.
LOCK_WAIT = 1.0
#: How often the loop wakes without events (to retry kept paths, and to see ``stop``).
TICK_MS = 1_000
#: Failures of the notify layer within a minute after which the watch ends.
NOTIFY_RESTARTS = 5
#: Seconds of inline embedding between two looks at new events.
INLINE_EMBED_SECONDS = 1.0
#: Embedding choices: ``background`` a detached process (as ``sleuth index``),
#: ``inline`` in the watcher thread (the model stays loaded), ``none`` lexical only.
EMBED_MODES = ("background", "inline", "none")


@dataclass
class WatchBatch:
    """What one batch of file events did to the index."""

    #: Repository-relative paths that exist after the batch (added or modified).
    changed: list[str] = field(default_factory=list)
    #: Repository-relative paths that were deleted or moved away.
    removed: list[str] = field(default_factory=list)
    #: Wall time from the batch's arrival until the index answered with it.
    seconds: float = 0.0
    #: The index generation after the batch (``Index.generation``).
    generation: int = 0
    #: True when the batch ran a full index run (branch switch, ignore file, burst).
    full: bool = False
    #: Files whose content changed and were re-chunked; files dropped from the index.
    indexed: int = 0
    dropped: int = 0
    #: Chunks written by this batch.
    chunks: int = 0
    #: Set when the batch could not be applied now (kept for the next attempt).
    error: str = ""


class Watcher:
    """Watch ``index.root`` and apply changes to the index as they happen.

    ``run(stop)`` blocks until ``stop`` is set; ``start()`` / ``stop()`` do the same in
    a background thread. ``on_batch`` is called (in the watcher thread) after every
    batch, also for batches that failed (``WatchBatch.error``).
    """

    def __init__(
        self,
        index: Index,
        debounce_ms: int = 200,
        on_batch: Callable[[WatchBatch], None] | None = None,
        *,
        embed: str = "background",
        catch_up: bool = True,
    ) -> None:
        if embed not in EMBED_MODES:
            raise SleuthError(f"embed must be one of {', '.join(EMBED_MODES)}")
        if not 10 <= debounce_ms <= 10_000:
            raise SleuthError("debounce_ms must be between 10 and 10000")
        self.index = index
        self.root: Path = index.root
        self.debounce_ms = debounce_ms
        self.on_batch = on_batch
        self.embed = embed
        self.catch_up = catch_up
        self.rules = PathRules(self.root)
        #: Set once the file-system watch is in place (and the catch-up run is done).
        self.ready = threading.Event()
        self._writer: Index | None = None
        self._pending: dict[str, None] = {}  # paths kept after a failed batch, in order
        self._pending_full = False
        self._stop_event = threading.Event()
        self._thread: threading.Thread | None = None
        self._embedding = False  # inline embedding has chunks left
        self._last_error = ""  # of the last batch, so a retried failure is reported once
        #: Why the watch ended, when it ended on its own (the folder vanished, ...).
        self.error = ""

    # -- background thread ----------------------------------------------------------------
    def start(self) -> None:
        """Run the watcher in a daemon thread (no-op when it runs already)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop_event = threading.Event()
        self.ready.clear()
        self._thread = threading.Thread(
            target=self.run, args=(self._stop_event,), name=f"sleuth-watch {self.root}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the background thread and wait for the batch in progress to finish."""
        self._stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- the loop -----------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Watch until ``stop`` is set. Errors of one batch are reported, not raised."""
        import watchfiles

        from ..api import Index

        self._writer = Index(self.root, model_id=self.index.model_id)
        try:
            try:
                self._watch_again_after_notify_errors(watchfiles, stop)
            except _RootGone as exc:  # an expected end: say why, without a traceback
                self.error = f"watching stopped: {exc}"
                log.info("watching %s stopped: %s", self.root, exc)
            except Exception as exc:  # no watches left, or a bug: end, say why
                self.error = f"watching stopped: {type(exc).__name__}: {exc}"
                log.exception("watching %s stopped", self.root)
            if self.error and self.on_batch is not None:
                self.on_batch(WatchBatch(error=self.error))
        finally:
            self.ready.set()
            self._writer.close()
            self._writer = None

    def _watch_again_after_notify_errors(self, watchfiles, stop: threading.Event) -> None:
        """``_watch``, started again when the notify layer fails on one event: it cannot
        decode a file name that is not UTF-8 (`bad\\xff.py`), and its watch ends there.
        Events may have been lost meanwhile, so each new watch begins with a full pass;
        more than ``NOTIFY_RESTARTS`` failures in a minute end the watch."""
        failures: list[float] = []
        while True:
            try:
                self._watch(watchfiles, stop)
                return
            except RuntimeError as exc:
                if type(exc).__name__ != "WatchfilesRustInternalError":
                    raise
                now = time.monotonic()
                failures = [t for t in failures if now - t < 60.0] + [now]
                if len(failures) > NOTIFY_RESTARTS or stop.is_set():
                    raise
                log.warning("watching %s: %s; watching again", self.root, exc)
                self.catch_up = True

    def _watch(self, watchfiles, stop: threading.Event) -> None:
        first = True
        idle_next = 0.0  # when a quiet turn may next retry kept paths or embed a slice
        # Events are filtered here, not by watchfiles: a batch it filters out whole is
        # not handed over, and a stream of them (the index's own files, rewritten while
        # a status is polled) would hold off the timeouts that retry and embed.
        for raw in watchfiles.watch(
            self.root,
            watch_filter=None,
            debounce=self.debounce_ms,
            step=min(50, self.debounce_ms),
            stop_event=stop,
            rust_timeout=TICK_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if first:  # the watch is in place: nothing saved from now on is missed
                first = False
                if self.catch_up:
                    self._apply(set(), full=True)
                self.ready.set()
            if stop.is_set():
                break
            if not self.root.is_dir():  # inotify goes quiet when the root itself is removed
                raise _RootGone(f"{self.root} no longer exists")
            changes = {path for change, path in raw if self._wanted(change, path)}
            if changes:
                self._apply(changes)
            elif (self._pending or self._pending_full or self._embedding) and (
                time.monotonic() >= idle_next
            ):
                idle_next = time.monotonic() + TICK_MS / 1000
                if self._pending or self._pending_full:
                    self._apply(set())
                else:
                    self._embed_slice()

    def _embed_slice(self) -> None:
        """Inline embedding, a slice at a time, so new events are never kept waiting."""
        writer = self._writer
        assert writer is not None
        writer.embed(seconds=INLINE_EMBED_SECONDS, lock_timeout=0)
        self._embedding = writer.pending() > 0

    def _wanted(self, change: object, path: str) -> bool:
        """Which events count: the files sleuth would index, ignore files, and HEAD."""
        rel = self._relative(path)
        if rel is None:
            return False
        if rel == ".git/HEAD":
            return True  # a branch switch: everything may differ
        top = rel.split("/", 1)[0]
        if top in (".git", config.INDEX_DIRNAME):
            return False
        name = rel.rsplit("/", 1)[-1]
        if name in RULE_FILES:
            return True
        is_dir = Path(path).is_dir()
        return not self.rules.excluded(rel, is_dir)

    def _relative(self, path: str) -> str | None:
        try:
            rel = Path(path).relative_to(self.root)
        except ValueError:
            return None
        text = rel.as_posix()
        return None if text in ("", ".") else text

    def _apply(self, paths: set[str], full: bool = False) -> None:
        """Apply one batch (plus anything kept from a failed one); report it."""
        started = time.monotonic()
        rels = [r for r in (self._relative(p) for p in paths) if r is not None]
        for rel in rels:
            self._pending[rel] = None
        todo = list(self._pending)
        names = {rel.rsplit("/", 1)[-1] for rel in todo}
        full = (
            full
            or self._pending_full
            or ".git/HEAD" in self._pending
            or bool(names & RULE_FILES)
            or len(todo) > FULL_RUN_PATHS
        )
        batch = WatchBatch(full=full)
        batch.changed = [r for r in todo if (self.root / r).exists() and r != ".git/HEAD"]
        batch.removed = [r for r in todo if not (self.root / r).exists()]
        writer = self._writer
        assert writer is not None
        try:
            report = self._update(writer, todo, full)
        except IndexBusy as exc:
            self._pending_full = full
            batch.error = str(exc)
        except SleuthError as exc:
            self._pending_full = full
            batch.error = str(exc)
            log.warning("watch batch failed: %s", exc)
        except Exception as exc:  # a broken batch must not end the watch
            self._pending_full = full
            batch.error = f"unexpected {type(exc).__name__}: {exc}"
            log.exception("watch batch failed")
        else:
            self._pending.clear()
            self._pending_full = False
            batch.indexed = report.update.changed
            batch.dropped = report.update.removed
            batch.chunks = report.update.chunks_written
            batch.generation = writer.generation()
            self._embedding = self.embed == "inline" and report.pending > 0
        batch.seconds = time.monotonic() - started
        # a batch kept for later (say, while `sleuth index` runs) is retried every tick;
        # it is reported once, not at every retry
        if self.on_batch is not None and (not batch.error or batch.error != self._last_error):
            try:
                self.on_batch(batch)
            except Exception:
                log.exception("on_batch callback failed")
        self._last_error = batch.error
        if self._embedding:
            self._embed_slice()

    def _update(self, writer: Index, todo: list[str], full: bool) -> IndexReport:
        embed = "background" if self.embed == "background" else "none"
        if full:
            self.rules.forget()
            return writer.index(embed=embed, lock_timeout=LOCK_WAIT)
        return writer.update_paths(todo, embed=embed, lock_timeout=LOCK_WAIT, rules=self.rules)
