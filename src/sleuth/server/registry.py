"""The repositories a daemon serves: one hot ``Index`` each, a result cache, a watcher.

Reads go through one ``Index`` per repository under the workspace lock (SQLite
connection, tantivy searcher and loaded vectors stay open between requests). Index
runs asked for over HTTP run in a child process (``write_job.py``), so searches go on
while files are re-indexed; the file lock (``store/lock.py``) keeps one writer.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..errors import SleuthError
from ..mcp.workspace import FIRST_ANSWER_WAIT, Workspace

log = logging.getLogger("sleuth.server")

#: Seconds between two stat checks for changed files when no watcher runs.
REFRESH_INTERVAL = 1.0
#: Answers kept per repository.
RESULT_CACHE_SIZE = 1024


class UnknownRepository(SleuthError):
    """A request named a repository this daemon does not serve."""


class ResultCache:
    """LRU of answers, each stored with the index stamp it was computed at.

    The stamp (``ServedRepository.stamp``) changes whenever anything a search reads
    changes: an index run, new vectors, a commit of new content. An entry of an
    older stamp is never served.
    """

    def __init__(self, size: int = RESULT_CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, tuple[Hashable, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get_or_compute(self, key: Hashable, stamp: Hashable, compute: Callable[[], Any]) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is not None and found[0] == stamp:
                self._items.move_to_end(key)
                self.hits += 1
                return found[1]
            self.misses += 1
        value = compute()
        with self._lock:
            self._items[key] = (stamp, value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def peek(self, key: Hashable, stamp: Hashable) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is None or found[0] != stamp:
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found[1]

    def stats(self) -> dict[str, int]:
        return {"entries": len(self._items), "hits": self.hits, "misses": self.misses}


class ServedRepository(Workspace):
    """A workspace that a daemon serves: cached answers, optional watcher, writer apart."""

    refresh_wait = 0.0

    def __init__(self, root: Path, embed: str = "background", watch: bool = True) -> None:
        super().__init__(root, embed)
        self.name = root.name
        self.watch = watch
        self.watcher: Any = None
        self.watch_note = ""
        self.results = ResultCache()
        #: Index runs asked for over HTTP wait here, one at a time, for their child
        #: process (server/write_job.py).
        self.writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sleuth-write")
        self._last_check = 0.0
        self._state: tuple[Hashable, dict[str, Any]] | None = None
        self._stamp_db: tuple[int, sqlite3.Connection] | None = None
        self._stamp_lock = threading.Lock()

    # -- freshness ------------------------------------------------------------------------
    @property
    def watching(self) -> bool:
        """A watcher follows the files now (one that ended on its own does not)."""
        if self.watcher is None:
            return False
        if self.watcher.running:
            return True
        self.watch_note = f"the watcher stopped: {self.watcher.error or 'unknown reason'}"
        return False

    def start_watching(self) -> None:
        """Follow the repository's files, so answers need no stat check of their own.

        The one place a watcher starts: `sleuth watch` as a child process
        (``watch_process.py``); if it cannot start, the daemon checks for changed files
        itself (at most once per REFRESH_INTERVAL).
        """
        if not self.watch or self.watcher is not None:
            return
        from .watch_process import WatcherProcess

        watcher = WatcherProcess(self.root, self.index.layout.directory / "watch.log", self.embed)
        try:
            watcher.start()
        except OSError as exc:  # a watcher that cannot start leaves the stat check
            self.watch_note = f"watcher failed to start: {exc}"
            log.warning("%s: %s", self.root, self.watch_note)
            return
        self.watcher = watcher

    def stop_watching(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def prepare(self, wait: float = FIRST_ANSWER_WAIT, refresh: bool = True) -> dict[str, Any]:
        """The index state for a reply; re-index changed files first when asked and due.

        A watcher keeps the index fresh by itself; without one, a stat check runs at
        most once per REFRESH_INTERVAL, so a stream of queries does not stat the
        repository for each of them.
        """
        return self._prepared(wait, refresh)[0]

    def _prepared(self, wait: float, refresh: bool) -> tuple[dict[str, Any], Hashable]:
        """``prepare``, and the stamp the state belongs to (read once)."""
        now = time.monotonic()
        if refresh and not self.watching and now - self._last_check >= REFRESH_INTERVAL:
            self._last_check = now
            return super().prepare(wait), self.stamp()
        self.start()
        if self.building:
            return super().prepare(wait), self.stamp()
        stamp = self.stamp()
        if self._state is None or self._state[0] != stamp:
            self._state = (stamp, self.index.index_state(embeds=self.embeds))
        return dict(self._state[1]), stamp

    # -- caching ----------------------------------------------------------------------------
    def stamp(self) -> tuple[Hashable, ...]:
        """Changes whenever a search could answer differently (see ResultCache).

        The generation and the lexical commit number (both in SQLite: the number moves
        with every tantivy commit of new content, not with the merges tantivy publishes
        after it), meta.db's inode (a rebuild) and the vectors files (the background
        embedder publishes between runs; an index run publishes within its last unit,
        so a run moves the stamp about once). Read through a connection of its own, not
        the reader ``Index``'s: a cached answer is then served from the event loop while
        a search holds the lock.
        """
        layout = self.index.layout
        return (
            *self._counters(layout.meta),
            _inode(layout.meta),
            _mtime(layout.vectors),
            _mtime(layout.vectors_of("static")),
        )

    def _counters(self, meta: Path) -> tuple[str, str]:
        """(generation, lexical commit) as stored; ("-", "-") when unreadable now."""
        with self._stamp_lock:
            inode = _inode(meta)
            if inode < 0:
                return "0", "0"
            if self._stamp_db is None or self._stamp_db[0] != inode:
                if self._stamp_db is not None:
                    self._stamp_db[1].close()
                db = sqlite3.connect(f"file:{meta}?mode=ro", uri=True, check_same_thread=False)
                self._stamp_db = (inode, db)
            try:
                rows = dict(
                    self._stamp_db[1].execute(
                        "SELECT key, value FROM state WHERE key IN ('generation', 'lexical_commit')"
                    )
                )
            except sqlite3.Error:
                return "-", "-"  # not readable now: a stamp no cached answer has
            return str(rows.get("generation", "0")), str(rows.get("lexical_commit", "0"))

    def answer(self, key: Hashable, refresh: bool, compute: Callable[[dict], Any]) -> Any:
        """The cached answer at the current stamp, or ``compute(index state)`` stored at
        it; the freshness check (``prepare``) runs first. Call with the lock held."""
        state, stamp = self._prepared(FIRST_ANSWER_WAIT, refresh)
        return self.results.get_or_compute(key, stamp, lambda: compute(state))

    def peek(self, key: Hashable, refresh: bool) -> Any:
        """A cached answer, without waiting for the lock (a search may hold it): None
        when a refresh is due, the first build runs, or nothing is cached at the
        current stamp."""
        if self._must_prepare(refresh):
            return None
        return self.results.peek(key, self.stamp())

    def answers_at_once(self, refresh: bool, needs_model: bool) -> bool:
        """Whether an answer needs nothing but CPU: no first build to wait for, no stat
        check due, and the model in memory when the query is to be embedded (loading it
        takes a quarter of a second)."""
        if self._must_prepare(refresh):
            return False
        return not needs_model or self.index.model_loaded

    def _must_prepare(self, refresh: bool) -> bool:
        """A stat check is due, or there is no open index or a first build runs."""
        due = time.monotonic() - self._last_check >= REFRESH_INTERVAL
        return (refresh and not self.watching and due) or self._index is None or self.building

    def close(self) -> None:
        self.stop_watching()
        with self._stamp_lock:
            if self._stamp_db is not None:
                self._stamp_db[1].close()
                self._stamp_db = None
        self.writes.shutdown(wait=True, cancel_futures=True)
        with self.lock:
            if self._index is not None:
                self._index.close()


class Registry:
    """The served repositories, in the order given; the first is the default."""

    def __init__(self, repositories: list[ServedRepository]) -> None:
        if not repositories:
            raise SleuthError("nothing to serve: give at least one repository")
        self.repositories = repositories
        self.started = time.time()

    def get(self, name: str | None) -> ServedRepository:
        """The repository named by its root path, a folder inside it, or its folder name."""
        if name is None or not name.strip():
            return self.repositories[0]
        for repo in self.repositories:
            if name == str(repo.root):
                return repo
        named = [repo for repo in self.repositories if name == repo.name]
        if len(named) > 1:
            roots = ", ".join(str(r.root) for r in named)
            raise UnknownRepository(f"{name!r} names {len(named)} served repositories: {roots}")
        if named:
            return named[0]
        candidate = Path(name).expanduser()
        if candidate.is_absolute():
            resolved = candidate.resolve()
            for repo in self.repositories:
                if resolved == repo.root or resolved.is_relative_to(repo.root):
                    return repo
        served = ", ".join(str(r.root) for r in self.repositories)
        raise UnknownRepository(f"unknown repository {name!r}: this daemon serves {served}")

    def start(self) -> None:
        for repo in self.repositories:
            repo.start()
            repo.start_watching()

    def close(self) -> None:
        for repo in self.repositories:
            repo.close()


def _inode(path: Path) -> int:
    try:
        return path.stat().st_ino
    except OSError:
        return -1


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1
