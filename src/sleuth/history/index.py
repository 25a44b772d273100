"""History of one repository: index commits (only new ones), embed them, search them.

Stores live beside the code index in ``.sleuth/``: ``history.db`` (SQLite, the truth),
``history-lexical/`` (tantivy) and ``history-vectors.npy``. The lexical tier is written
in batches as commits stream out of git, so searches answer before any vector exists;
vectors fill in later, in a background process for big histories.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import config
from ..api import EMBED_CHOICES, check_query
from ..discover import find_root
from ..embedding import DEFAULT_MODEL_ID, Embedder, load_embedder
from ..embedding.cache import query_vectors
from ..errors import SleuthError
from ..indexer import Progress, _quiet
from ..results import percent
from ..search.classify import classify
from ..search.filters import Filters
from ..spawn import spawn_embedder
from ..store.layout import Layout
from ..store.lexical import LexicalStore
from ..store.lock import FileLock
from ..store.vectors import VectorStore
from ..tokens import TERMS_VERSION
from .dates import parse_date
from .documents import lexical_fields, record_hash, row_embed_text
from .gitlog import CommitRecord, GitRepo, RepoState
from .results import HistoryResponse
from .search import HistoryFilters, matching_hunks, run_search
from .store import HistoryStore

#: Commits per SQLite transaction while indexing.
BATCH_COMMITS = 500
#: Commits per model call batch group while embedding (one SQLite commit each).
EMBED_BATCH_COMMITS = 64
PUBLISH_EVERY_SECONDS = 5.0
#: Branch tips remembered, so switching branches only walks what is new.
MAX_TIPS = 20
#: 3: the lines of secret files are left out of the digests (history/digest.py).
HISTORY_SCHEMA_VERSION = 3
#: ``lexical_dirty`` when the terms changed (1: a run was interrupted).
TERMS_CHANGED = 2


@dataclass
class HistoryReport:
    head: str = ""
    branch: str = ""
    new_commits: int = 0
    total_commits: int = 0
    embedded: int = 0
    pending: int = 0
    background: bool = False
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HistoryLayout:
    directory: Path

    @property
    def db(self) -> Path:
        return self.directory / "history.db"

    @property
    def lexical(self) -> Path:
        return self.directory / "history-lexical"

    @property
    def vectors(self) -> Path:
        return self.directory / "history-vectors.npy"

    @property
    def write_lock(self) -> Path:
        return self.directory / "history.lock"

    @property
    def embed_lock(self) -> Path:
        return self.directory / "history-embed.lock"

    @property
    def embed_log(self) -> Path:
        return self.directory / "history-embed.log"


class HistoryIndex:
    """Commits of the repository at ``path`` (any folder inside its work tree)."""

    def __init__(self, path: str | os.PathLike[str] = ".", model_id: str = DEFAULT_MODEL_ID):
        self.root = find_root(path)
        self.index_layout = Layout(self.root)
        self.layout = HistoryLayout(self.index_layout.directory)
        self.repo = GitRepo(self.root)
        self.model_id = model_id
        self.notices: list[str] = []
        self._store: HistoryStore | None = None
        self._lexical: LexicalStore | None = None
        self._vectors: VectorStore | None = None
        self._embedder: Embedder | None = None

    # -- opening ------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.layout.db.exists()

    def _open(self) -> HistoryStore:
        if self._store is not None:
            return self._store
        self.index_layout.create()
        store = HistoryStore(self.layout.db)
        version = store.get("schema_version")
        if version is not None and version != str(HISTORY_SCHEMA_VERSION):
            store.close()
            self._remove_files()
            self.notices.append("history index format changed: rebuilding it")
            store = HistoryStore(self.layout.db)
        store.set("schema_version", HISTORY_SCHEMA_VERSION)
        stored_model = store.get("embed_model")
        if stored_model is not None and stored_model != self.model_id:
            with store.transaction():
                store.clear_embeddings()
            self.layout.vectors.unlink(missing_ok=True)
            self.notices.append("embedding model changed: commit vectors will be rebuilt")
        store.set("embed_model", self.model_id)
        lexical, reset = LexicalStore.open_or_reset(self.layout.lexical)
        if reset:
            store.set("lexical_dirty", 1)
        terms = store.get("terms_version")
        if terms != str(TERMS_VERSION) and (terms is not None or store.commit_count()):
            store.set("lexical_dirty", TERMS_CHANGED)  # the next update rebuilds it
        store.set("terms_version", TERMS_VERSION)
        self._store, self._lexical = store, lexical
        self._vectors = VectorStore(self.layout.vectors)
        return store

    def _remove_files(self) -> None:
        for path in (self.layout.db, self.layout.vectors):
            path.unlink(missing_ok=True)
            for suffix in ("-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        shutil.rmtree(self.layout.lexical, ignore_errors=True)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
        self._store = self._lexical = self._vectors = None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = load_embedder(self.model_id)
        return self._embedder

    # -- writing ------------------------------------------------------------------------
    def update(
        self,
        progress: Progress = _quiet,
        full: bool = False,
        embed: str = "background",
        lock_timeout: float | None = 600.0,
    ) -> HistoryReport:
        """Index the commits of HEAD not indexed yet (all of them with ``full``)."""
        if embed not in EMBED_CHOICES:
            raise SleuthError(f"--embed must be one of {', '.join(EMBED_CHOICES)}")
        state = self.repo.state()
        self.index_layout.create()
        with FileLock(self.layout.write_lock).hold(lock_timeout):
            store = self._open()
            report = HistoryReport(head=state.head, branch=state.branch)
            report.notices.extend(self._state_notices(state))
            self._write_new_commits(store, state, progress, full, report)
            report.total_commits = store.commit_count()
            report.notices = list(dict.fromkeys(self.notices + report.notices))
        if embed == "deep":
            report.embedded = self.embed(progress)
        report.pending = store.pending_count()
        if embed == "background" and report.pending:
            report.background = self.start_background_embedding()
        return report

    def _state_notices(self, state: RepoState) -> list[str]:
        notices = []
        if not state.branch:
            notices.append(
                f"detached HEAD at {state.head[:10]}: indexing the history of that commit"
            )
        if state.shallow:
            notices.append(
                "shallow clone: only the commits this clone holds are searched; "
                "`git fetch --unshallow` brings the rest"
            )
        return notices

    def _write_new_commits(
        self,
        store: HistoryStore,
        state: RepoState,
        progress: Progress,
        full: bool,
        report: HistoryReport,
    ) -> None:
        assert self._lexical is not None
        lexical = self._lexical
        if full:
            with store.transaction():
                store.clear()
            lexical.clear()
            lexical.commit()
            store.set("lexical_dirty", 0)
        elif store.get("lexical_dirty") in ("1", str(TERMS_CHANGED)):
            self._rebuild_lexical(store)
        tips = json.loads(store.get("tips", "[]") or "[]")
        if store.get("shallow_marker", "") != state.shallow_marker:
            tips = []  # deepened or re-cloned: walk everything, known commits are skipped
        progress("history", 0, 0)
        if store.commit_count():  # resume or update: list what is missing, then read it
            listed = self.repo.new_commits(state.head, tips)
            known = store.known_shas(listed) if listed else set()
            todo = [s for s in listed if s not in known]
            total = [len(todo)]
            records = self.repo.read_commits(todo)
        else:  # first run: stream at once; count in the background for the progress bar
            total = []
            counter = threading.Thread(
                target=lambda: total.append(len(self.repo.new_commits(state.head, tips))),
                daemon=True,
            )
            counter.start()
            records = self.repo.walk_commits(state.head, tips)
        progress("history", 0, total[0] if total else 0)
        batch: list[CommitRecord] = []
        last_commit = time.monotonic()
        done = 0
        for record in records:
            batch.append(record)
            if len(batch) >= BATCH_COMMITS:
                done += self._write_batch(store, batch)
                batch = []
                progress("history", done, max(total[0], done) if total else 0)
                if time.monotonic() - last_commit >= config.COMMIT_SECONDS:
                    lexical.commit()
                    store.set("lexical_dirty", 0)
                    last_commit = time.monotonic()
        done += self._write_batch(store, batch)
        progress("history", done, done)
        lexical.commit()
        store.set("lexical_dirty", 0)
        report.new_commits = done
        if self.repo.undiffable:
            report.notices.append(
                f"{len(self.repo.undiffable)} commits could not be fully diffed (objects "
                f"missing from this clone, first {self.repo.undiffable[0][:10]}): their "
                "messages are indexed, their diffs in part or not at all"
            )
        kept = [t for t in tips if t != state.head and not self.repo.is_ancestor(t, state.head)]
        store.set("tips", json.dumps([state.head, *kept][:MAX_TIPS]))
        store.set("shallow_marker", state.shallow_marker)
        if done or not self.layout.vectors.exists():
            self._publish(store)

    def _write_batch(self, store: HistoryStore, batch: list[CommitRecord]) -> int:
        if not batch:
            return 0
        merges = [r.sha for r in batch if len(r.parents) > 1]
        merge_files = self.repo.merge_files(merges)
        for record in batch:
            if record.sha in merge_files and not record.files:
                record.files = merge_files[record.sha]
        ids: list[int] = []
        with store.transaction():
            store.set("lexical_dirty", 1)
            for record in batch:
                commit_id = store.add_commit(record, record_hash(record))
                if commit_id is not None:
                    ids.append(commit_id)
        assert self._lexical is not None
        for commit_id, row in store.commits_by_id(ids).items():
            self._lexical.add(commit_id, commit_id, lexical_fields(row))
        return len(ids)

    def _rebuild_lexical(self, store: HistoryStore) -> None:
        """tantivy fell behind SQLite (a killed run), or terms are made otherwise now
        (``tokens.TERMS_VERSION``): rebuild it from SQLite."""
        assert self._lexical is not None
        terms_changed = store.get("lexical_dirty") == str(TERMS_CHANGED)
        self._lexical.clear()
        for row in store.iter_commits():
            self._lexical.add(row.id, row.id, lexical_fields(row))
        self._lexical.commit()
        store.set("lexical_dirty", 0)
        self.notices.append(
            "search terms are made differently now: the history's word index was rebuilt"
            if terms_changed
            else "an interrupted run left the history index behind: repaired"
        )

    def _publish(self, store: HistoryStore) -> int:
        keys, vectors = store.embedded_vectors()
        VectorStore.save(self.layout.vectors, keys, vectors)
        return len(keys)

    def embed(
        self,
        progress: Progress = _quiet,
        seconds: float | None = None,
        lock_timeout: float | None = None,
    ) -> int:
        """Embed commits that have no vector yet; one embedder per repository at a time."""
        store = self._open()
        with FileLock(self.layout.embed_lock).taken(lock_timeout) as taken:
            if not taken:
                return 0
            deadline = None if seconds is None else time.monotonic() + seconds
            total = store.pending_count()
            done = 0
            last_publish = time.monotonic()
            progress("history-embed", 0, total)
            while True:
                rows = store.unembedded(EMBED_BATCH_COMMITS)
                if not rows:
                    break
                vectors = self.embedder.embed([row_embed_text(r) for r in rows])
                with store.transaction():
                    store.put_embeddings([r.hash for r in rows], vectors)
                done += len(rows)
                progress("history-embed", done, max(total, done))
                now = time.monotonic()
                if now - last_publish >= PUBLISH_EVERY_SECONDS:
                    self._publish(store)
                    last_publish = now
                if deadline is not None and now >= deadline:
                    break
            self._publish(store)
            return done

    def background_embedder_pid(self) -> int | None:
        if not self.layout.directory.exists():
            return None
        return FileLock(self.layout.embed_lock).held_by_other()

    def start_background_embedding(self) -> bool:
        """A detached process embeds pending commits; False if one already runs."""
        if self.background_embedder_pid():
            return False
        self.index_layout.create()
        return spawn_embedder(
            "sleuth.history.background",
            [str(self.root), self.model_id],
            self.layout.embed_log,
            self.notices,
        )

    def clean(self) -> bool:
        """Delete the history stores only; True if there were any."""
        self.close()
        existed = self.exists()
        self._remove_files()
        return existed

    # -- reading ------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        *,
        mode: str = "hybrid",
        author: str | None = None,
        since: str | None = None,
        until: str | None = None,
        path: str | None = None,
        diff: bool = False,
    ) -> HistoryResponse:
        """Commits that best match ``query``; raises QueryError on bad queries or dates."""
        check_query(query, k, mode)
        since_time = parse_date(since) if since else None
        until_time = parse_date(until, end_of_day=True) if until else None
        plan = classify(query)
        response = HistoryResponse(query=plan.text, mode=mode, query_class=plan.kind)
        if not self.exists():
            response.reason = "history is not indexed yet: run `sleuth history` once"
            return response
        store = self._open()
        assert self._lexical is not None and self._vectors is not None
        self._lexical.index.reload()
        self._vectors.load()
        paths = None
        if path:
            wanted = Filters(path=path)
            paths = [p for p in store.all_paths() if wanted.accepts(p, "", "")]
        filters = HistoryFilters(author or None, since_time, until_time, paths)
        total = store.commit_count()
        embedded = len(self._vectors)
        fraction = min(1.0, embedded / total) if total else 0.0
        used = mode
        notices: list[str] = []
        if mode != "lexical" and embedded == 0:
            used = "lexical"
            if total:
                notices.append("no commit vectors yet: lexical results only" + self._note())
        elif mode != "lexical" and fraction < 0.999:
            notices.append(
                f"semantic tier {percent(fraction)} of commits: lexical results fill in"
                + self._note()
            )
        embed_query = self._embed_query if used != "lexical" else None
        result = run_search(
            plan, store, self._lexical, self._vectors, embed_query, k, filters, used
        )
        result.embedded_fraction = fraction
        result.commits_indexed = total
        result.notices = notices + result.notices
        if diff:
            for item in result.results:
                item.hunks = matching_hunks(self.repo.show_patch(item.sha), plan.terms)
        return result

    def _note(self) -> str:
        return " (embedding in the background)" if self.background_embedder_pid() else ""

    def _embed_query(self, text: str) -> np.ndarray:
        return query_vectors.get(self.model_id, text, lambda t: self.embedder.embed([t])[0])

    def status(self) -> dict:
        info: dict = {"root": str(self.root), "exists": self.exists()}
        if not self.exists():
            return info
        store = self._open()
        total = store.commit_count()
        embedded = store.embedded_count()
        info.update(
            commits=total,
            embedded_commits=embedded,
            embedded_fraction=round(embedded / total, 4) if total else 0.0,
            tips=json.loads(store.get("tips", "[]") or "[]"),
            background_embedder_pid=self.background_embedder_pid(),
        )
        return info
