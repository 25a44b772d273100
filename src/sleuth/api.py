"""The library API. The CLI (and later MCP and HTTP) are thin shells over ``Index``.

>>> from sleuth import Index
>>> index = Index(".")
>>> index.index()                       # lexical tier; vectors per `embed`
>>> index.search("where are failed uploads retried", k=5).results
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import tantivy

from . import config, navigation
from .discover import PathRules, find_root
from .embedding import DEFAULT_MODEL_ID, Embedder, load_embedder
from .embedding.cache import query_vectors
from .embedding.runner import embed_pending, pending_count, publish_vectors
from .embedding.static import StaticEmbedder
from .embedding.static import table_id as static_table_id
from .errors import IndexBusy, IndexCorrupt, QueryError, SleuthError
from .freshness import ChangeDetector
from .handles import Expansion, Handle
from .indexer import Indexer, Progress, UpdateReport, _quiet, refuse_in_worker_start
from .results import Result, SearchResponse, percent
from .search.classify import QueryPlan, as_name, classify
from .search.engine import VectorSide
from .search.engine import search as run_search
from .search.filters import Filters
from .search.query_syntax import ParsedQuery, parse_query
from .search.ranking.asked_names import TYPE_KINDS
from .search.spelling import respell
from .search.symbols import NAME_CHARACTERS, definitions_named, split_symbol
from .spawn import spawn_embedder
from .store.layout import Layout
from .store.lexical import LexicalStore
from .store.lock import FileLock
from .store.meta import MetaStore
from .store.sqlite import schema_version_of
from .store.vectors import VectorStore, graph_path, refresh_graph_of
from .tokens import last_part

if TYPE_CHECKING:
    from .check import CheckReport
    from .graph import Graph
    from .history import HistoryIndex, HistoryReport, HistoryResponse

MODES = ("hybrid", "semantic", "lexical")
#: Tries to find tantivy and SQLite at the same commit before a search: 1 ms apart at
#: first (a writer's two commits follow each other within a millisecond or two), then up
#: to 10 ms apart, about half a second in all.
VIEW_ATTEMPTS = 60
EMBED_CHOICES = ("none", "static", "background", "deep")
#: Which vectors answer the semantic side: ``auto`` takes the deep tier once it is
#: complete (or covers more chunks than the static one), with the static tier blended
#: in when that is complete too, else the static tier alone; ``static`` and ``deep``
#: use one tier only.
TIERS = ("auto", "static", "deep")


@dataclass
class IndexReport:
    update: UpdateReport
    embedded: int = 0
    pending: int = 0
    #: Static-tier vectors computed by this run, and whether the index has that tier.
    static_embedded: int = 0
    static: bool = False
    background: bool = False
    notices: list[str] = field(default_factory=list)
    #: After a whole run (``index``; a watcher's ``update_paths`` leaves them empty):
    #: files in the index, and files skipped by reason, walk or read, as `status` shows.
    files_indexed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)


def _callable_only(name: str, meta: MetaStore) -> bool:
    """Whether the index defines ``name`` only as functions or methods (no type)."""
    return meta.defines_name(name) and not meta.defines_name(name, TYPE_KINDS)


def _names_a_type(name: str, meta: MetaStore) -> bool:
    """Whether the index defines a type named ``name`` (class, interface, ..), in the case
    written when it defines the name so (``Config`` the class, not ``config`` the function
    beside it)."""
    rows = meta.definitions_named(name, like=False, limit=200)
    kinds = {row.kind for row in rows if row.name == name} or {row.kind for row in rows}
    return bool(kinds & TYPE_KINDS)


def _owns_anything(name: str, meta: MetaStore) -> bool:
    """Whether the index defines a type named ``name`` or anything owned by it."""
    short = last_part(name)
    return bool(meta.definitions_in([short], TYPE_KINDS, None) or meta.members_of(short, 1))


def _use_of_what_is_defined(plan: QueryPlan, name: str, meta: MetaStore) -> QueryPlan:
    """The question about uses as fits what the index defines ``name`` as: a function or
    method is implemented by its definitions ("implementations of handle_request": the
    name alone) and called, not built; "where is Store used" asks, of a type, for every
    mention in code (a field's type, a parameter's; its calls too, when a method shares
    the name: gin's ``Engine`` struct and ``Engine()``), of anything else for its
    calls."""
    if plan.use_kind in ("extend", "construct") and _callable_only(name, meta):
        return classify(name) if plan.use_kind == "extend" else replace(plan, use_kind="call")
    if plan.use_kind == "use":
        return replace(plan, use_kind="mention" if _names_a_type(name, meta) else "call")
    return plan


def check_query(query: str, k: int = 10, mode: str = "hybrid", *, name: bool = False) -> None:
    """Raise QueryError for an empty or unsearchable query, a bad k or mode. ``name``:
    the query is a symbol name, which may be made of ``NAME_CHARACTERS`` alone."""
    if mode not in MODES:
        raise QueryError(f"mode must be one of {', '.join(MODES)}")
    if k < 1:
        raise QueryError("k must be at least 1")
    if not query or not query.strip():
        raise QueryError("the query is empty")
    check_text(query, "query")
    if len(query) > config.MAX_QUERY_CHARS:
        raise QueryError(
            f"the query is {len(query):,} characters long: at most {config.MAX_QUERY_CHARS:,}"
        )
    if not any(ch.isalnum() or (name and ch in NAME_CHARACTERS) for ch in query):
        raise QueryError(f"nothing searchable in the query {query[:80]!r}")


def check_text(text: str, what: str) -> None:
    """QueryError for text that is not Unicode: bytes that are not UTF-8 reach Python
    as lone surrogates (a shell argument, a JSON ``\\ud800``), which no tokenizer takes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise QueryError(f"the {what} holds bytes that are not UTF-8 text") from None


class Index:
    """One repository's index, in ``<root>/.sleuth/``. Opens stores lazily."""

    def __init__(
        self,
        path: str | os.PathLike[str] = ".",
        model_id: str = DEFAULT_MODEL_ID,
        tier: str = "auto",
    ):
        if tier not in TIERS:
            raise SleuthError(f"tier must be one of {', '.join(TIERS)}")
        refuse_in_worker_start()
        self.root: Path = find_root(path)
        self.layout = Layout(self.root)
        self.model_id = model_id
        self.tier = tier
        self.notices: list[str] = []
        self._meta: MetaStore | None = None
        self._lexical: LexicalStore | None = None
        self._vectors = None
        self._static_vectors: VectorStore | None = None
        self._embedder: Embedder | None = None
        self._static_embedder: StaticEmbedder | None = None
        self._static_id: str | None = None
        self._write_lock = FileLock(self.layout.write_lock)
        self._rechunk = False
        self._history: HistoryIndex | None = None
        self._embedder_seen = (-1.0, False)  # (monotonic time, running): _background_note

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
            graph_path(self.layout.vectors).unlink(missing_ok=True)
        meta.set("embed_model", self.model_id)
        self._check_static_table(meta)
        chunker = meta.get("chunker_version")
        if chunker != str(config.CHUNKER_VERSION) and meta.chunk_count():
            self.notices.append("chunking changed since this index was built: re-chunking")
            self._rechunk = True  # the version is stored once the re-chunking run ends
        elif chunker != str(config.CHUNKER_VERSION):
            meta.set("chunker_version", config.CHUNKER_VERSION)
        lexical, reset = LexicalStore.open_or_reset(self.layout.lexical)
        if reset:
            meta.set("lexical_dirty", 1)
            self.notices.append("lexical index was unreadable: rebuilt from the database")
        self._vectors = VectorStore(self.layout.vectors)
        self._static_vectors = VectorStore(self.layout.static_vectors)
        self._meta, self._lexical = meta, lexical
        return meta

    def _static_table_id(self) -> str | None:
        """The id of the static table in use; None (with a notice) when it cannot be read."""
        if self._static_id is None:
            try:
                self._static_id = static_table_id()
            except (OSError, KeyError, ValueError) as exc:
                self.notices.append(f"static table unavailable ({exc}): static tier off")
                self._static_id = ""
        return self._static_id or None

    def _check_static_table(self, meta: MetaStore) -> None:
        """A different static table than the one the vectors came from: drop them."""
        stored = meta.get("static_model")
        if stored is None:
            return
        current = self._static_table_id()
        if current is None or current == stored:
            return
        self.notices.append(
            f"static table changed ({stored} -> {current}): static vectors will be rebuilt"
        )
        with meta.transaction():
            meta.clear_embeddings("static")
            meta.set("static_model", current)
        self.layout.static_vectors.unlink(missing_ok=True)

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
        self._meta = self._lexical = self._vectors = self._static_vectors = None
        if self._history is not None:
            self._history.close()

    @property
    def model_loaded(self) -> bool:
        """The transformer is in memory (a query can be embedded without loading it)."""
        return self._embedder is not None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = load_embedder(self.model_id)
        return self._embedder

    @property
    def static_embedder(self) -> StaticEmbedder:
        if self._static_embedder is None:
            self._static_embedder = StaticEmbedder()
        return self._static_embedder

    def has_static_tier(self) -> bool:
        """True once the static tier was asked for (or it is the default instant tier)."""
        return config.STATIC_DEFAULT or self._open().get("static_model") is not None

    # -- writing ------------------------------------------------------------------------
    def index(
        self,
        progress: Progress = _quiet,
        full: bool = False,
        embed: str = "background",
        lock_timeout: float | None = 600.0,
    ) -> IndexReport:
        """Bring the index up to date with the files.

        ``embed``: ``none`` leaves vectors alone; ``static`` also builds the static tier
        (and keeps it current in later runs); ``deep`` embeds every chunk with the
        transformer before returning; ``background`` starts (or leaves running) a
        background embedder. The static tier, when the index has it, is brought up to
        date by every run except ``none``.
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
            update = Indexer(self.root, meta, self._lexical).update(
                progress,
                full=full,
                finish=lambda done: self._finish_run(meta, done, full),
                finish_if_idle=not self.layout.vectors.exists(),
            )
            if self._rechunk:
                meta.set("chunker_version", config.CHUNKER_VERSION)
                self._rechunk = False
            report = IndexReport(update, notices=list(self.notices) + _crash_notices(update))
            report.files_indexed = meta.indexed_file_count()
            report.skipped = meta.skip_counts()
            self._publish(meta, update, full, report, embed, progress)
        return self._after_update(report, meta, embed, progress)

    def update_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        embed: str = "background",
        lock_timeout: float | None = 600.0,
        rules: PathRules | None = None,
    ) -> IndexReport:
        """Bring only these files or folders up to date (a watcher's batch of events).

        Paths are absolute or relative to the root; those outside it are ignored. Only
        the given paths are stat'ed and read, so the cost follows the batch, not the
        repository. Falls back to a full ``index`` when there is no index yet or the
        chunker changed.
        """
        if embed not in EMBED_CHOICES:
            raise SleuthError(f"--embed must be one of {', '.join(EMBED_CHOICES)}")
        relative = self._relative_paths(paths)
        if self.exists():
            self._open()  # notes a chunker change in self._rechunk
        if not self.exists() or self._rechunk:
            return self.index(embed=embed, lock_timeout=lock_timeout)
        with self._write_lock.hold(lock_timeout):
            meta = self._open()
            assert self._lexical is not None
            update = Indexer(self.root, meta, self._lexical).update_paths(
                relative, rules, finish=lambda done: self._finish_run(meta, done, False)
            )
            report = IndexReport(update, notices=list(self.notices) + _crash_notices(update))
            self._publish(meta, update, False, report, embed, _quiet)
        return self._after_update(report, meta, embed, _quiet)

    def _relative_paths(self, paths: Iterable[str | os.PathLike[str]]) -> list[str]:
        root = self.root.resolve()
        out: list[str] = []
        for raw in paths:
            path = Path(raw)
            path = path if path.is_absolute() else root / path
            # resolve only the parent: the file itself may be gone or a symlink
            parent = path.parent.resolve()
            if not parent.is_relative_to(root):
                continue
            full = parent / path.name
            if full == root:
                continue
            out.append(full.relative_to(root).as_posix())
        return out

    def _publish(
        self,
        meta: MetaStore,
        update: UpdateReport,
        full: bool,
        report: IndexReport,
        embed: str,
        progress: Progress,
    ) -> None:
        """After a run (write lock held): the static tier fills in (thousands of chunks
        a second); vectors and generation moved with the run's last unit (``_finish_run``)."""
        changed = _run_changed(update, full)
        if changed:  # the HNSW graph of a very large index, outside the run's transaction
            refresh_graph_of(self.layout.vectors)
        if embed in ("static", "deep") or (embed != "none" and self.has_static_tier()):
            report.static_embedded = self._fill_static(meta, progress, changed)
            report.notices = list(self.notices)
        report.static = meta.get("static_model") is not None

    def _finish_run(self, meta: MetaStore, update: UpdateReport, full: bool) -> None:
        """In a run's last unit, just before it commits: vectors follow SQLite (read in
        the open transaction) and the generation moves, so a reader sees the run land
        once instead of three times (content, vectors, generation), and a daemon's
        answer cache is invalidated once per run. Vectors published ahead of a commit
        that then fails hold a few ids SQLite lacks: searches drop those, and the next
        run publishes again. The HNSW graph of a very large index (minutes to build)
        is left to ``_publish``, after the commit: the embedder's writes would time out
        behind this transaction."""
        changed = _run_changed(update, full)
        if changed or not self.layout.vectors.exists():
            publish_vectors(meta, self.layout, final=False)
        if changed:
            meta.set("generation", int(meta.get("generation", "0") or 0) + 1)

    def _after_update(
        self, report: IndexReport, meta: MetaStore, embed: str, progress: Progress
    ) -> IndexReport:
        if embed == "deep":
            report.embedded = self.embed(progress)
        report.pending = pending_count(meta)
        if embed == "background" and report.pending:
            report.background = self.start_background_embedding()
        return report

    def _fill_static(self, meta: MetaStore, progress: Progress, changed: bool) -> int:
        """Static vectors for every chunk lacking one (thousands a second)."""
        table = self._static_table_id()
        if table is None:
            return 0
        if meta.get("static_model") != table:
            meta.set("static_model", table)
        done = embed_pending(
            meta, self.layout, self.static_embedder, progress, tier="static", publish=False
        )
        if done or changed or not self.layout.static_vectors.exists():
            publish_vectors(meta, self.layout, tier="static")
        return done

    def _wipe_for_full(self) -> None:
        """--full starts over; the embedding cache survives when the database is sound.

        A sound database keeps its rows until the run's first commit empties both stores
        (Indexer.update with ``full``), so readers never see an empty index alone.
        """
        try:
            self._open()
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
        """Compute missing vectors in this process (optionally for at most ``seconds``);
        returns how many chunks got transformer vectors.

        The static tier is filled in first (thousands of chunks a second): it answers
        while the transformer works, and then joins it (``_static_side``). Holds
        .sleuth/embed.lock, so only one process embeds a repository at a time; with
        ``lock_timeout`` 0 it returns 0 at once when another one is embedding.
        """
        meta = self._open()
        with FileLock(self.layout.embed_lock).taken(lock_timeout) as taken:
            if not taken:
                return 0
            deadline = None if seconds is None else time.monotonic() + seconds
            self._fill_static(meta, progress, changed=False)
            return embed_pending(meta, self.layout, self.embedder, progress, deadline)

    def embed_static(self, progress: Progress = _quiet) -> int:
        """The static tier alone, in this process (thousands of chunks a second): what a
        first search answers with while the transformer works in the background.
        Returns how many chunks got static vectors (0 when another process embeds)."""
        meta = self._open()
        with FileLock(self.layout.embed_lock).taken(0) as taken:
            return self._fill_static(meta, progress, changed=False) if taken else 0

    def embed_static_if_quick(self, pending: int, progress: Progress = _quiet) -> bool:
        """``embed_static`` for ``pending`` chunks when that is estimated at
        ``config.FOREGROUND_STATIC_SECONDS`` or less (a new index's first answers then
        rank by meaning too); whether it ran and gave vectors."""
        quick = pending / config.STATIC_ASSUMED_RATE <= config.FOREGROUND_STATIC_SECONDS
        return quick and self.embed_static(progress) > 0

    def pending(self) -> int:
        """Distinct chunk texts that have no vector yet."""
        return pending_count(self._open())

    def background_embedder_pid(self) -> int | None:
        if not self.layout.directory.exists():
            return None
        return FileLock(self.layout.embed_lock).held_by_other()

    def start_background_embedding(self) -> bool:
        """Start a detached process that embeds what is pending; False if one runs."""
        if self.background_embedder_pid():
            return False
        self.layout.create()
        return spawn_embedder(
            "sleuth.background",
            [str(self.root), self.model_id],
            self.layout.embed_log,
            self.notices,
            "; run `sleuth index --embed deep`",
        )

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
        with meta.lock:  # its reads share the connection with other threads' snapshots
            if plan.named_word and meta.defines_name(plan.named_word[0]):
                plan = as_name(plan)
            if plan.uses_of:
                plan = _use_of_what_is_defined(plan, plan.uses_of, meta)
            if plan.members_of and not _owns_anything(plan.members_of, meta):
                # "GraphQL fields", "computed properties": words, when no type is so named
                plan = classify(plan.text, forms=False)
            respelled = respell(plan, meta, self._lexical.occurs)
        if respelled is not None:
            asked, plan = plan.text, respelled.plan
        # The tier is chosen before the read view opens, so the query vector and the
        # chunk vectors it is compared with always come from the same model.
        tier, vectors = self._semantic_tier(meta.committed_chunk_count())
        vector = None
        if mode != "lexical" and len(vectors) and not plan.lookup:
            vector = self._query_vector(plan, tier)
        with self._read_view(meta) as searcher:
            response = self._search_in_view(
                plan, meta, searcher, k, mode, path, language, kind, category, tier, vector
            )
        if respelled is not None:
            response.respelled_from = asked
            response.notices.insert(0, respelled.notice())
        return response

    def _query_vector(self, plan: QueryPlan, tier: str) -> Callable[[], np.ndarray]:
        """The query's vector, for the ranking to read when it needs it. It is computed
        here, before the read view opens: loading the model can take a second, and
        threads sharing this instance wait for the view, not for that. A question about
        uses is embedded later, and only if no chunk holds the name: the vectors do not
        rank its answers otherwise."""
        embed = self._query_embedder(tier)
        if plan.uses_of:
            return functools.cache(lambda: embed(plan.text))
        vector = embed(plan.text)
        return lambda: vector

    def prefetch_query(self, query: str, mode: str = "hybrid") -> Callable[[], None]:
        """Start embedding ``query`` on a thread when a search for it would use the
        transformer, so that the model loads while the caller does other work (a
        command-line search refreshes the index meanwhile). The vector lands in the
        query cache; returns a function that waits for the thread."""
        if mode == "lexical" or not self._answers_with_model():
            return _nothing
        try:
            parsed = parse_query(query)
        except QueryError:
            return _nothing  # the search itself says what is wrong
        if parsed.symbol or not parsed.text.strip():
            return _nothing
        text = classify(parsed.text).text
        thread = query_vectors.prefetch(self.model_id, text, self._model_vector)
        return thread.join if thread is not None else _nothing

    def warm_model(self) -> bool:
        """Load the transformer and its query session now, when searches here would use
        it, so that the first question in words does not wait for them (a server calls
        this in the background once its index is ready). True when it loaded."""
        if not self._answers_with_model():
            return False
        self.embedder.embed(["warm up"])
        return True

    def _answers_with_model(self) -> bool:
        """Whether a search in words would embed its query with the transformer (the
        deep tier answers), rather than with the static table or not at all."""
        if not self.exists():
            return False
        meta = self._open()
        tier, vectors = self._semantic_tier(meta.committed_chunk_count())
        return tier == "deep" and len(vectors) > 0

    def _search_in_view(
        self,
        plan: QueryPlan,
        meta: MetaStore,
        searcher: tantivy.Searcher,
        k: int,
        mode: str,
        path: str | None,
        language: str | None,
        kind: str | None,
        category: str | None,
        tier: str,
        vector: Callable[[], np.ndarray] | None,
    ) -> SearchResponse:
        assert self._lexical is not None and self._vectors is not None
        assert self._static_vectors is not None
        vectors = self._static_vectors if tier == "static" else self._vectors
        vectors.load()
        chunk_count = meta.committed_chunk_count()
        embedded = len(vectors)
        fraction = min(1.0, embedded / chunk_count) if chunk_count else 0.0
        used = mode
        notices: list[str] = []
        # a lookup asks no retriever, so no tier has a say
        tiers_speak = mode != "lexical" and not plan.lookup
        if tiers_speak and embedded == 0:
            used = "lexical"
            if chunk_count:
                notices.append("no vectors yet: lexical results only" + self._background_note())
        elif tiers_speak and fraction < 0.999:
            notices.append(
                f"semantic tier {percent(fraction)} built: lexical results fill in"
                + self._background_note()
            )
        elif tiers_speak and tier == "static" and self.tier == "auto":
            deep = min(1.0, len(self._vectors) / chunk_count) if chunk_count else 0.0
            notices.append(
                f"semantic side from the static table (deep tier {deep:.0%} built)"
                + self._background_note()
            )
        embed_query = None
        if used != "lexical":
            embed_query = self._query_embedder(tier)
            if vector is not None:
                embed_query = lambda _text: vector()  # noqa: E731
        if used == "hybrid" and tier == "static":
            plan = replace(plan, semantic_weight=plan.semantic_weight * config.STATIC_WEIGHT)
        static = self._static_side(tier, used, chunk_count)
        response = run_search(
            plan,
            meta,
            self._lexical,
            vectors,
            embed_query,
            k,
            Filters(path, language, kind, category),
            used,
            searcher=searcher,
            static=static,
        )
        response.embedded_fraction = fraction
        if used != "lexical":
            response.vectors = [tier] + (["static"] if static else [])
        response.notices = notices + response.notices
        if chunk_count == 0:
            response.reason = "the index is empty: no indexable files were found"
        return response

    @contextlib.contextmanager
    def _read_view(self, meta: MetaStore) -> Iterator[tantivy.Searcher]:
        """One generation of the index for a whole search.

        A tantivy searcher pinned to its last commit, and an SQLite read transaction
        (a WAL snapshot) whose ``lexical_commit`` equals that commit's mark: the writer
        commits both in step (indexer.py), so every id tantivy returns is a row of the
        snapshot, and no row of the snapshot is missing from tantivy. A mismatch lasts
        only between the writer's two commits: retried for a moment. A mismatch with no
        live writer is a crash between the two: tantivy is rebuilt from SQLite first.
        Vectors may lag (republished after each run): ids the snapshot lacks drop out.
        """
        assert self._lexical is not None
        with meta.lock:  # one transaction at a time on this connection
            searcher = None
            for attempt in range(VIEW_ATTEMPTS):
                self._lexical.index.reload()
                searcher = self._lexical.index.searcher()
                mark = self._lexical.mark(searcher)
                meta.db.execute("BEGIN")
                state = meta.get("lexical_commit", "0") or "0"
                if int(state) == mark and meta.get("lexical_dirty") != "1":
                    break
                meta.db.execute("ROLLBACK")
                if not self._repair_after_crash(meta):
                    time.sleep(
                        min(0.01, 0.001 * (attempt + 1)) if attempt < VIEW_ATTEMPTS - 2 else 0
                    )
            else:  # a live writer stays between its two commits: answer from the newest pair
                meta.db.execute("BEGIN")
            try:
                yield searcher
            finally:
                meta.db.execute("COMMIT")  # ends the read snapshot; nothing was written

    def _repair_after_crash(self, meta: MetaStore) -> bool:
        """Rebuild tantivy when it is out of step with SQLite and no writer is alive.

        A writer killed between its two commits leaves the tantivy mark ahead of SQLite
        (tantivy may hold ids SQLite rolled back); a damaged tantivy folder is flagged
        ``lexical_dirty`` when it is reset. Returns True when it rebuilt.
        """
        assert self._lexical is not None
        indexer = Indexer(self.root, meta, self._lexical)
        if indexer.lexical_in_step() or not self._write_lock.acquire(timeout=0):
            return False  # in step, or a live writer is still at work
        try:
            if indexer.lexical_in_step():
                return False
            indexer.rebuild_lexical()
            self.notices.append("an interrupted run left the lexical index behind: repaired")
            return True
        finally:
            self._write_lock.release()

    def _semantic_tier(self, chunk_count: int) -> tuple[str, VectorStore]:
        """Which tier's vectors find and rank the semantic candidates.

        Cosines of different models are not comparable, so they never share one list:
        ``auto`` takes the deep vectors once they cover every chunk (or more chunks than
        the static ones), and the static vectors while the deep tier is still being
        built. With both complete, ``_static_side`` adds the static view, each model's
        cosines scaled on their own before they are blended.
        """
        assert self._vectors is not None and self._static_vectors is not None
        self._vectors.load()
        if self.tier == "deep":
            return "deep", self._vectors
        self._static_vectors.load()
        deep, static = len(self._vectors), len(self._static_vectors)
        complete = chunk_count and deep >= 0.999 * chunk_count
        if self.tier == "auto" and (static == 0 or complete or deep > static):
            return "deep", self._vectors
        if self._static_table_id() is None:  # no usable table: no static queries either
            return "deep", self._vectors
        return "static", self._static_vectors

    def _static_side(self, tier: str, mode: str, chunk_count: int) -> VectorSide | None:
        """With ``auto`` and both tiers complete, the static vectors join the deep ones:
        two models' views of the same candidates rank better than either alone."""
        assert self._static_vectors is not None
        if self.tier != "auto" or tier != "deep" or mode == "lexical" or not chunk_count:
            return None
        self._static_vectors.load()
        if len(self._static_vectors) < 0.999 * chunk_count or self._static_table_id() is None:
            return None
        return VectorSide(self._static_vectors, self._embed_static_query)

    def _query_embedder(self, tier: str) -> Callable[[str], np.ndarray]:
        """What embeds a query for the tier whose vectors it is compared with."""
        return self._embed_static_query if tier == "static" else self._embed_query

    def _embed_static_query(self, text: str) -> np.ndarray:
        return self.static_embedder.embed_query(text)

    def _background_note(self) -> str:
        """Said on every search of a partly embedded index: the embedder's lock is
        looked at once a second, not on each of them (a lock try is a file open)."""
        now = time.monotonic()
        if now - self._embedder_seen[0] >= 1.0:
            self._embedder_seen = (now, self.background_embedder_pid() is not None)
        return " (embedding in the background)" if self._embedder_seen[1] else ""

    def _embed_query(self, text: str) -> np.ndarray:
        return query_vectors.get(self.model_id, text, self._model_vector)

    def _model_vector(self, text: str) -> np.ndarray:
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
        info["static_model"] = meta.get("static_model")
        # nothing to embed is all embedded, as the index state of an answer says
        info["embedded_fraction"] = (
            round(counts["embedded_chunks"] / counts["chunks"], 4) if counts["chunks"] else 1.0
        )
        info["background_embedder_pid"] = self.background_embedder_pid()
        info["writer_pid"] = FileLock(self.layout.write_lock).held_by_other()
        info["generation"] = int(meta.get("generation", "0") or 0)
        info["skipped"] = meta.skip_counts()
        info["size_bytes"] = folder_size(self.layout.directory)
        history = self.history_index()
        if history.exists():
            info["history"] = history.status()
        return info

    def check(self, repair: bool = True, lock_timeout: float = 10.0) -> CheckReport:
        """Do SQLite, tantivy and the vectors file agree? Rebuild the derived ones if not.

        See check.py. ``report.ok`` is False when something could not be repaired.
        """
        from .check import check_index

        if not self.exists():
            raise SleuthError("there is no index yet: run `sleuth index`")
        return check_index(self, repair, lock_timeout)

    # -- agents: generations, freshness, structured queries, symbols, handles -----------
    #: Shared by the refresh checks of one long-lived process (see freshness.py).
    _detector: ChangeDetector | None = None
    #: Handles given out by this instance, so a stale one can be located again.
    _issued: dict[int, Handle] | None = None

    def generation(self) -> int:
        """The index run counter: bumped by every run that changed something."""
        if not self.exists():
            return 0
        return int(self._open().get("generation", "0") or 0)

    def refresh(
        self,
        lock_timeout: float = 0.5,
        detector: ChangeDetector | None = None,
        embed: str = "background",
    ) -> str:
        """Re-index when a cheap stat check finds changed files (see freshness.py).

        Returns ``fresh`` (nothing changed), ``refreshed`` (changed files were
        re-indexed, or the index was built; vectors follow in the background) or
        ``stale`` (changes found but another process holds the write lock).
        """
        if detector is None:
            if self._detector is None:
                self._detector = ChangeDetector(self.root)
            detector = self._detector
        known = self._open().files() if self.exists() else {}
        if self.exists() and not detector.changes(known, limit=1):
            return "fresh"
        detector.mark(known)
        try:
            report = self.index(embed=embed, lock_timeout=lock_timeout)
        except IndexBusy:
            detector.forget()
            return "stale"
        detector.mark(self._open().files(), keep_known=True)
        update = report.update
        return "refreshed" if update.changed or update.removed else "fresh"

    def reindex(
        self, path_glob: str | None = None, lock_timeout: float = 5.0, embed: str = "background"
    ) -> IndexReport:
        """Index changed files now; files matching ``path_glob`` are re-read even when
        their size and mtime look unchanged (content hashes still skip real no-ops)."""
        if path_glob and self.exists():
            meta = self._open()
            wanted = Filters(path=path_glob)
            forced = [row.id for p, row in meta.files().items() if wanted.accepts(p, "", "")]
            with meta.transaction():
                meta.db.executemany(
                    "UPDATE files SET mtime_ns=-1 WHERE id=?", [(i,) for i in forced]
                )
        return self.index(embed=embed, lock_timeout=lock_timeout)

    def index_state(self, freshness: str = "fresh", embeds: bool = True) -> dict:
        """What an answer can promise: ``complete``, ``embedding``, ``lexical`` or ``stale``.

        ``embedding``: some chunks have no vector yet, so lexical results fill in for
        them. ``lexical``: the same, but no vectors are on their way (the caller computes
        none, ``embeds`` False, and no background embedder runs). ``stale``: files changed
        that could not be re-indexed yet (``freshness`` from ``refresh``).
        """
        if not self.exists():
            return {"state": "stale", "note": "there is no index yet", "generation": 0}
        meta = self._open()
        assert self._vectors is not None
        self._vectors.load()
        chunks = meta.chunk_count()
        fraction = min(1.0, len(self._vectors) / chunks) if chunks else 1.0
        state = "complete"
        note = ""
        if freshness == "stale":
            state, note = "stale", "files changed since the last index run; another process is "
            note += "indexing, so answers may point at old code"
        elif fraction < 0.999:
            background = self._background_note()
            state = "embedding" if embeds or background else "lexical"
            note = f"vectors {percent(fraction)} built: lexical results fill in"
            if state == "lexical":
                note += "; none are being computed (--embed none)"
            note += background
        return {
            "state": state,
            "generation": self.generation(),
            "chunks": chunks,
            "embedded_fraction": round(fraction, 4),
            "note": note,
        }

    def structured_search(
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
        """``search`` with filters written in the query (search/query_syntax.py).

        ``symbol:NAME`` restricts hits to definitions of NAME (``*`` globs allowed),
        ranked by the other words. An empty semantic answer falls back to lexical.
        """
        parsed = parse_query(query).with_options(
            path=path, language=language, kind=kind, category=category
        )
        if not parsed.search_text:
            if not query.strip():
                raise QueryError("the query is empty")
            raise QueryError("the query holds only filters: add words or symbol:NAME")
        check_query(parsed.search_text, k, mode, name=bool(parsed.symbol and not parsed.text))
        if parsed.symbol:
            response = self._symbol_search(parsed, k, mode)
        else:
            response = self.search(
                parsed.text,
                k,
                mode=mode,
                path=parsed.path,
                language=parsed.language,
                kind=parsed.kind,
                category=parsed.category,
            )
        if not response.results and mode == "semantic" and not parsed.symbol:
            fallback = self.search(
                parsed.text,
                k,
                mode="lexical",
                path=parsed.path,
                language=parsed.language,
                kind=parsed.kind,
                category=parsed.category,
            )
            if fallback.results:
                fallback.notices.insert(0, "no semantic match: showing lexical matches")
                response = fallback
        return response

    def _symbol_search(self, parsed: ParsedQuery, k: int, mode: str) -> SearchResponse:
        assert parsed.symbol is not None
        glob = any(ch in parsed.symbol for ch in "*?")
        definitions = self.find_symbol(
            parsed.symbol,
            exact=not glob,
            kind=parsed.kind,
            language=parsed.language,
            k=200,
            path=parsed.path,
            category=parsed.category,
        )
        plan = classify(parsed.search_text)
        response = SearchResponse(query=parsed.search_text, mode=mode, query_class=plan.kind)
        if not definitions:
            response.reason = f"no definition named {parsed.symbol!r} matches the filters"
            return response
        picked: list[Result] = []
        if parsed.text:
            words = parsed.symbol.replace("*", " ").replace("?", " ")
            ranked = self.search(
                f"{words} {parsed.text}",
                max(50, k * 5),
                mode=mode,
                path=parsed.path,
                language=parsed.language,
                category=parsed.category,
            )
            response.mode, response.notices = ranked.mode, ranked.notices
            response.embedded_fraction = ranked.embedded_fraction
            response.vectors = ranked.vectors
            for result in ranked.results:
                if any(_overlaps(result, d) for d in definitions):
                    picked.append(result)
        for definition in definitions:
            if len(picked) >= k:
                break
            if not any(_overlaps(p, definition) for p in picked):
                picked.append(definition)
        response.results = picked[:k]
        return response

    def find_symbol(
        self,
        name: str,
        exact: bool = True,
        kind: str | None = None,
        language: str | None = None,
        k: int = 20,
        *,
        path: str | None = None,
        category: str | None = None,
    ) -> list[Result]:
        """Definitions named ``name`` from the parser's ``definitions`` table.

        ``exact``: the name in any case (exact case first). Otherwise fuzzy: substring
        matches, then close spellings; ``*`` and ``?`` globs work in both. A qualified
        name (``Config.load``, ``Rails::Engine``) also matches the enclosing name.
        """
        if k < 1:
            raise QueryError("k must be at least 1")
        check_text(name, "name")
        base, qualifier = split_symbol(name)
        if not self.exists():
            return []
        filters = Filters(path, language, kind, category)
        return definitions_named(self._open(), base, qualifier, exact, kind, filters, k)

    def handles(self, results: list[Result]) -> list[Handle]:
        """Compact handles for results (search, find_symbol, related), newest generation."""
        return navigation.issue_handles(self, results)

    def expand(self, target: str | Handle, context_lines: int = 0) -> Expansion:
        """The code behind a handle id, ``path``, ``path:line`` or ``path:start-end``.

        Read from disk now. A handle whose file changed since it was issued answers
        ``stale`` with the fresh location when the symbol can be found again. Paths
        outside the repository, and files the index does not hold (ignored, secret,
        binary), are refused with PathError.
        """
        return navigation.expand(self, target, context_lines)

    def related(
        self, target: str | Handle, k: int = 10, category: str | None = None
    ) -> SearchResponse:
        """Chunks similar to a handle's chunk or to the chunk at ``path:line``.

        Similarity comes from the stored vectors (nothing is embedded); a chunk
        without a vector yet is compared lexically, by its own terms.
        """
        return navigation.related(self, target, k, category)

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


def _crash_notices(update: UpdateReport) -> list[str]:
    """What a run says of the files whose parse ended a process (``parse_journal``)."""
    return [
        f"{path}: its parse ended the process reading it; indexed as line windows"
        for path in update.parse_crashed
    ]


def _nothing() -> None:
    return None


def _run_changed(update: UpdateReport, full: bool) -> bool:
    """Whether an index run changed what searches read (it moves the generation)."""
    return bool(update.changed or update.removed or full)


def _overlaps(result: Result, other: Result) -> bool:
    return (
        result.path == other.path
        and result.start_line <= other.end_line
        and result.end_line >= other.start_line
    )


def folder_size(folder: Path) -> int:
    """Bytes of the files below ``folder``. A writer's temporary files come and go while
    it is read (tantivy's ``.tmp`` files during a commit): one that vanishes counts 0."""
    total = 0
    for parent, _, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                total += os.stat(os.path.join(parent, name)).st_size
    return total
