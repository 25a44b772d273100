"""The library API. The CLI (and later MCP and HTTP) are thin shells over ``Index``.

>>> from sleuth import Index
>>> index = Index(".")
>>> index.index()                       # lexical tier; vectors per `embed`
>>> index.search("where are failed uploads retried", k=5).results
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import config
from .discover import find_root
from .embedding import DEFAULT_MODEL_ID, Embedder, load_embedder
from .embedding.runner import embed_pending, pending_count, publish_vectors
from .errors import IndexCorrupt, QueryError, SleuthError
from .indexer import Indexer, Progress, UpdateReport, _quiet
from .results import SearchResponse
from .search.classify import classify
from .search.engine import search as run_search
from .search.filters import Filters
from .store.layout import Layout
from .store.lexical import LexicalStore
from .store.lock import FileLock
from .store.meta import MetaStore, schema_version_of
from .store.vectors import VectorStore

if TYPE_CHECKING:
    from .graph import Graph
    from .history import HistoryIndex, HistoryReport, HistoryResponse

MODES = ("hybrid", "semantic", "lexical")
EMBED_CHOICES = ("none", "background", "deep")


@dataclass
class IndexReport:
    update: UpdateReport
    embedded: int = 0
    pending: int = 0
    background: bool = False
    notices: list[str] = field(default_factory=list)


def check_query(query: str, k: int = 10, mode: str = "hybrid") -> None:
    """Raise QueryError for an empty or unsearchable query, a bad k or mode."""
    if mode not in MODES:
        raise QueryError(f"mode must be one of {', '.join(MODES)}")
    if k < 1:
        raise QueryError("k must be at least 1")
    if not query or not query.strip():
        raise QueryError("the query is empty")
    if not any(ch.isalnum() for ch in query):
        raise QueryError(f"nothing searchable in the query {query!r}")


class Index:
    """One repository's index, in ``<root>/.sleuth/``. Opens stores lazily."""

    def __init__(self, path: str | os.PathLike[str] = ".", model_id: str = DEFAULT_MODEL_ID):
        self.root: Path = find_root(path)
        self.layout = Layout(self.root)
        self.model_id = model_id
        self.notices: list[str] = []
        self._meta: MetaStore | None = None
        self._lexical: LexicalStore | None = None
        self._vectors = None
        self._embedder: Embedder | None = None
        self._write_lock = FileLock(self.layout.write_lock)
        self._rechunk = False
        self._history: HistoryIndex | None = None

    # -- opening ------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.layout.exists()

    def _open(self) -> MetaStore:
        """Open (creating if needed) all stores; rebuild on schema or model change."""
        if self._meta is not None:
            return self._meta
        version = schema_version_of(self.layout.meta)
        if version is not None and version != config.SCHEMA_VERSION:
            self.notices.append(
                f"index format {version} is not {config.SCHEMA_VERSION}: rebuilding from scratch"
            )
            self._wipe()
        self.layout.create()
        meta = MetaStore(self.layout.meta)
        if meta.get("schema_version") is None:
            meta.set("schema_version", config.SCHEMA_VERSION)
        stored_model = meta.get("embed_model")
        if stored_model is not None and stored_model != self.model_id:
            self.notices.append(
                f"embedding model changed ({stored_model} -> {self.model_id}): vectors will be "
                "rebuilt"
            )
            with meta.transaction():
                meta.clear_embeddings()
            self.layout.vectors.unlink(missing_ok=True)
        meta.set("embed_model", self.model_id)
        chunker = meta.get("chunker_version")
        if chunker != str(config.CHUNKER_VERSION) and meta.chunk_count():
            self.notices.append("chunking changed since this index was built: re-chunking")
            self._rechunk = True
        meta.set("chunker_version", config.CHUNKER_VERSION)
        lexical, reset = LexicalStore.open_or_reset(self.layout.lexical)
        if reset:
            meta.set("lexical_dirty", 1)
            self.notices.append("lexical index was unreadable: rebuilt from the database")
        self._vectors = VectorStore(self.layout.vectors)
        self._meta, self._lexical = meta, lexical
        return meta

    def _wipe(self) -> None:
        self.close()
        keep = {".gitignore"}
        if self.layout.directory.exists():
            for entry in self.layout.directory.iterdir():
                if entry.name in keep or entry.name.endswith(".lock"):
                    continue
                if entry.is_dir():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)

    def close(self) -> None:
        if self._meta is not None:
            self._meta.close()
        self._meta = self._lexical = self._vectors = None
        if self._history is not None:
            self._history.close()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = load_embedder(self.model_id)
        return self._embedder

    # -- writing ------------------------------------------------------------------------
    def index(
        self,
        progress: Progress = _quiet,
        full: bool = False,
        embed: str = "background",
        lock_timeout: float | None = 600.0,
    ) -> IndexReport:
        """Bring the index up to date with the files.

        ``embed``: ``none`` leaves vectors alone, ``deep`` embeds every chunk before
        returning, ``background`` starts (or leaves running) a background embedder.
        """
        if embed not in EMBED_CHOICES:
            raise SleuthError(f"--embed must be one of {', '.join(EMBED_CHOICES)}")
        self.layout.create()
        with self._write_lock.hold(lock_timeout):
            if full:
                self._wipe_for_full()
            meta = self._open()
            assert self._lexical is not None
            full = full or self._rechunk
            update = Indexer(self.root, meta, self._lexical).update(progress, full=full)
            self._rechunk = False
            report = IndexReport(update, notices=list(self.notices))
            if update.changed or update.removed or full or not self.layout.vectors.exists():
                publish_vectors(meta, self.layout)
        if embed == "deep":
            report.embedded = self.embed(progress)
        report.pending = pending_count(meta)
        if embed == "background" and report.pending:
            report.background = self.start_background_embedding()
        return report

    def _wipe_for_full(self) -> None:
        """--full starts over; the embedding cache survives when the database is sound."""
        try:
            meta = self._open()
            with meta.transaction():
                meta.db.execute("DELETE FROM files")
            self.close()
        except IndexCorrupt:
            self.close()
            shutil.rmtree(self.layout.directory, ignore_errors=True)
            self.notices.append("damaged index removed; rebuilding from scratch")

    def embed(
        self,
        progress: Progress = _quiet,
        seconds: float | None = None,
        lock_timeout: float | None = None,
    ) -> int:
        """Compute missing vectors in this process (optionally for at most ``seconds``).

        Holds .sleuth/embed.lock, so only one process embeds a repository at a time;
        with ``lock_timeout`` 0 it returns 0 at once when another one is embedding.
        """
        meta = self._open()
        lock = FileLock(self.layout.embed_lock)
        if not lock.acquire(lock_timeout):
            return 0
        try:
            deadline = None if seconds is None else time.monotonic() + seconds
            return embed_pending(meta, self.layout, self.embedder, progress, deadline)
        finally:
            lock.release()

    def background_embedder_pid(self) -> int | None:
        if not self.layout.directory.exists():
            return None
        return FileLock(self.layout.embed_lock).held_by_other()

    def start_background_embedding(self) -> bool:
        """Start a detached process that embeds what is pending; False if one runs."""
        if self.background_embedder_pid():
            return False
        self.layout.create()
        try:
            with open(self.layout.embed_log, "ab") as log:
                subprocess.Popen(
                    [sys.executable, "-m", "sleuth.background", str(self.root), self.model_id],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,
                    close_fds=True,
                )
        except OSError as exc:
            self.notices.append(
                f"could not start the background embedder ({exc.strerror}); "
                "run `sleuth index --embed deep`"
            )
            return False
        return True

    def clean(self) -> bool:
        """Delete the whole index folder; True if there was one."""
        self.close()
        if not self.layout.directory.exists():
            return False
        shutil.rmtree(self.layout.directory)
        return True

    # -- reading ------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        *,
        mode: str = "hybrid",
        path: str | None = None,
        language: str | None = None,
        kind: str | None = None,
        category: str | None = None,
    ) -> SearchResponse:
        """Best chunks for ``query``. Raises QueryError on an empty or unsearchable query."""
        check_query(query, k, mode)
        plan = classify(query)
        if not self.exists():
            response = SearchResponse(query=plan.text, mode=mode, query_class=plan.kind)
            response.reason = "there is no index yet: run `sleuth index`"
            return response
        meta = self._open()
        assert self._lexical is not None and self._vectors is not None
        self._repair_after_crash(meta)
        self._lexical.index.reload()
        self._vectors.load()
        chunk_count = meta.chunk_count()
        embedded = len(self._vectors)
        fraction = min(1.0, embedded / chunk_count) if chunk_count else 0.0
        used = mode
        notices: list[str] = []
        if mode != "lexical" and embedded == 0:
            used = "lexical"
            if chunk_count:
                notices.append("no vectors yet: lexical results only" + self._background_note())
        elif mode != "lexical" and fraction < 0.999:
            notices.append(
                f"semantic tier {fraction:.0%} built: lexical results fill in"
                + self._background_note()
            )
        embed_query = self._embed_query if used != "lexical" else None
        response = run_search(
            plan,
            meta,
            self._lexical,
            self._vectors,
            embed_query,
            k,
            Filters(path, language, kind, category),
            used,
        )
        response.embedded_fraction = fraction
        response.notices = notices + response.notices
        if chunk_count == 0:
            response.reason = "the index is empty: no indexable files were found"
        return response

    def _repair_after_crash(self, meta: MetaStore) -> None:
        """A writer that died between commits leaves tantivy behind SQLite: catch it up."""
        if meta.get("lexical_dirty") != "1" or not self._write_lock.acquire(timeout=0):
            return  # clean, or a live writer is still at work
        try:
            if meta.get("lexical_dirty") == "1":
                assert self._lexical is not None
                Indexer(self.root, meta, self._lexical).rebuild_lexical()
                self.notices.append("an interrupted run left the lexical index behind: repaired")
        finally:
            self._write_lock.release()

    def _background_note(self) -> str:
        return " (embedding in the background)" if self.background_embedder_pid() else ""

    def _embed_query(self, text: str) -> np.ndarray:
        return self.embedder.embed([text])[0]

    def status(self) -> dict:
        """Counts, embedding progress, skipped files by reason, sizes."""
        info: dict = {
            "root": str(self.root),
            "index": str(self.layout.directory),
            "exists": self.exists(),
        }
        if not self.exists():
            return info
        meta = self._open()
        counts = meta.counts()
        info.update(counts)
        info["embedding_model"] = meta.get("embed_model")
        info["embedded_fraction"] = (
            round(counts["embedded_chunks"] / counts["chunks"], 4) if counts["chunks"] else 0.0
        )
        info["background_embedder_pid"] = self.background_embedder_pid()
        info["skipped"] = meta.skip_counts()
        info["size_bytes"] = sum(
            f.stat().st_size for f in self.layout.directory.rglob("*") if f.is_file()
        )
        history = self.history_index()
        if history.exists():
            info["history"] = history.status()
        return info

    # -- history --------------------------------------------------------------------------
    def history_index(self) -> HistoryIndex:
        """The repository's commit history index (stores in .sleuth/history*)."""
        if self._history is None:
            from .history import HistoryIndex

            self._history = HistoryIndex(self.root, model_id=self.model_id)
        return self._history

    def index_history(self, progress: Progress = _quiet, **options) -> HistoryReport:
        """Index commits not indexed yet; see HistoryIndex.update for ``options``."""
        return self.history_index().update(progress, **options)

    def history(self, query: str, k: int = 10, **options) -> HistoryResponse:
        """Commits matching ``query``: author, since, until, path, diff, mode as options."""
        return self.history_index().search(query, k, **options)

    # -- graph ----------------------------------------------------------------------------
    def graph(
        self, type: str = "all", k: int = 5, threshold: float = 0.5, path: str | None = None
    ) -> Graph:
        """Similarity graph of files (``type`` all, code, docs or tests) from stored vectors.

        Nothing is embedded here: files without vectors yet are left out and counted in
        ``Graph.missing_vectors``.
        """
        from .graph import TYPES, build_graph

        if type not in TYPES:
            raise QueryError(f"type must be one of {', '.join(TYPES)}")
        if k < 1:
            raise QueryError("k must be at least 1")
        if not -1.0 <= threshold <= 1.0:
            raise QueryError("threshold is a cosine similarity: between -1 and 1")
        if not self.exists():
            raise SleuthError("there is no index yet: run `sleuth index --embed deep` first")
        meta = self._open()
        return build_graph(meta, str(self.root), self.model_id, type, k, threshold, path)
