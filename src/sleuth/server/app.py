"""The HTTP API: a FastAPI app over a registry of hot indexes (``sleuth serve``).

Endpoints mirror the MCP tools and answer with the same dicts (``sleuth.service``);
/search answers in the `sleuth search --json` schema plus ``index`` (state and
generation). Reads of one repository take its lock in turn: /search, /symbols and
/related on the event loop when the answer is cached or needs nothing but CPU
(``serve_read``), the other endpoints and anything that may wait in FastAPI's thread
pool; an index run asked for over /reindex runs in a child process so reads go on
meanwhile.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Query, Response
from starlette.concurrency import run_in_threadpool

from .. import __version__, service
from ..embedding.cache import query_vectors
from .guards import BearerAuth, BodyLimit, LoopbackOnly, install_error_handlers
from .models import (
    ExpandRequest,
    HistoryRequest,
    ReindexRequest,
    RelatedRequest,
    SearchRequest,
    SymbolsRequest,
    error_responses,
)
from .registry import Registry, ServedRepository
from .replies import (
    ExpandReply,
    HealthReply,
    HistoryReply,
    ReindexReply,
    SearchReply,
    StatusReply,
    SymbolsReply,
)
from .write_job import run_in_child

log = logging.getLogger("sleuth.server")

DESCRIPTION = """\
Local code search over HTTP: the indexes stay open in memory between requests.

Errors are JSON: `{"error": "one line", "status": 422, "type": "invalid_request"}`.
Over TCP every endpoint but /health and /openapi.json needs `Authorization: Bearer <token>`
(the token is in `.sleuth/daemon.token`, mode 0600) unless the daemon runs with `--no-auth`.
"""


def create_app(
    registry: Registry,
    token: str | None = None,
    warm: bool = True,
    on_shutdown: Callable[[], None] | None = None,
    loopback_only: bool = False,
) -> FastAPI:
    """The app over ``registry``; ``token`` set = bearer auth required;
    ``loopback_only``: requests must name this machine as host and origin (TCP on a
    loopback address).

    ``on_shutdown`` runs when the server stops: uvicorn re-raises SIGTERM once it has
    shut down, so code after ``Server.run`` may never run.
    """

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        registry.start()
        if warm:
            _warm_up(registry)  # freezes the heap once the model is in
        else:
            _freeze_heap()
        try:
            yield
        finally:
            if on_shutdown is not None:
                on_shutdown()
            registry.close()

    app = FastAPI(
        title="sleuth",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # Swagger UI loads its script from a CDN: nothing leaves the machine
        redoc_url=None,
    )
    install_error_handlers(app)
    # what a body endpoint may answer besides 200; /status and /health take no body
    body_errors = error_responses(400, 401, 404, 413, 422, 500, 503)
    query_errors = error_responses(401, 404, 422, 500, 503)

    def replies(model: type, errors: dict) -> dict[int | str, dict[str, Any]]:
        """The OpenAPI answers of a route: ``model`` for 200 (documented, not enforced:
        bodies are sent as built), then its errors."""
        return {200: {"model": model, "description": "The answer."}, **errors}

    async def serve_read(
        repo: ServedRepository,
        key: tuple,
        refresh: bool,
        work: Callable[[], dict[str, Any]],
        needs_model: bool = False,
    ) -> Response:
        """An answer from the cache when there is one at the current stamp; else
        ``work`` under the repository lock: on the event loop itself when nothing makes
        it wait (``ServedRepository.answers_at_once``) and the lock is free, else in the
        thread pool.

        Answers are cached serialized, with the index state of their stamp, so a hit
        costs one SQLite read, three stats and a dict lookup. A search costs a few
        milliseconds of CPU: computed in a pool thread it also had to win the
        interpreter lock back from the event loop again and again, which doubled the
        99th percentile under load (docs/benchmarks.md).
        """
        body = repo.peek(key, refresh)
        at_once = body is None and repo.answers_at_once(refresh, needs_model)
        if at_once and repo.lock.acquire(blocking=False):
            try:
                body = answer(repo, key, refresh, work)
            finally:
                repo.lock.release()
        if body is None:
            body = await run_in_threadpool(compute, repo, key, refresh, work)
        return Response(body, media_type="application/json")

    def answer(
        repo: ServedRepository, key: tuple, refresh: bool, work: Callable[[], dict[str, Any]]
    ) -> bytes:
        """The answer with the lock held."""
        return repo.answer(key, refresh, lambda state: _json({**work(), "index": state}))

    def compute(
        repo: ServedRepository, key: tuple, refresh: bool, work: Callable[[], dict[str, Any]]
    ) -> bytes:
        with repo.lock:
            return answer(repo, key, refresh, work)

    async def serve_query(
        name: str,
        request: SearchRequest | SymbolsRequest | RelatedRequest,
        refresh: bool,
        call: Callable[..., dict[str, Any]],
    ) -> Response:
        """A cached read whose options are the request's fields (``type`` as the
        library's ``category``), keyed by the endpoint and those options."""
        repo = registry.get(request.repo)
        options = request.model_dump(exclude={"repo", "refresh"})
        options["category"] = options.pop("type")
        key = (name, tuple(sorted(options.items())))
        needs_model = options.get("mode", "lexical") != "lexical"  # a query to embed
        return await serve_read(repo, key, refresh, lambda: call(repo, **options), needs_model)

    @app.post(
        "/search",
        summary="Search code (the `sleuth search --json` schema)",
        responses=replies(SearchReply, body_errors),
    )
    async def search(request: SearchRequest) -> Response:
        return await serve_query("search", request, request.refresh, service.search)

    @app.post(
        "/symbols",
        summary="Where a symbol is defined",
        responses=replies(SymbolsReply, body_errors),
    )
    async def symbols(request: SymbolsRequest) -> Response:
        return await serve_query("symbols", request, request.refresh, service.find_symbol)

    @app.post(
        "/expand",
        summary="The code behind handles or path:start-end, as on disk now",
        response_model=None,
        responses=replies(ExpandReply, body_errors),
    )
    def expand(request: ExpandRequest) -> dict[str, Any]:
        repo = registry.get(request.repo)
        with repo.lock:
            state = repo.prepare()
            body = service.expand(
                repo,
                request.handles,
                context_lines=request.context_lines,
                max_tokens=request.max_tokens,
                state=state,
            )
        return {**body, "index": state}

    @app.post(
        "/related",
        summary="Code similar to a handle or path:line",
        responses=replies(SearchReply, body_errors),
    )
    async def related(request: RelatedRequest) -> Response:
        return await serve_query("related", request, True, service.related)

    @app.post(
        "/history",
        summary="Search the git history (the `sleuth history --json` schema)",
        response_model=None,
        responses=replies(HistoryReply, body_errors),
    )
    def history(request: HistoryRequest) -> dict[str, Any]:
        repo = registry.get(request.repo)
        options = request.model_dump(exclude={"repo"})
        with repo.lock:
            state = repo.prepare(wait=0, refresh=False)
            return {**service.history(repo, **options), "index": state}

    @app.post(
        "/reindex",
        summary="Index changed files now; searches go on meanwhile",
        response_model=None,
        responses=replies(ReindexReply, body_errors),
    )
    async def reindex(request: ReindexRequest) -> dict[str, Any]:
        repo = registry.get(request.repo)

        def write() -> dict[str, Any]:
            return run_in_child(repo.root, repo.embed, request.path_glob, request.full)

        body = await asyncio.wrap_future(repo.writes.submit(write))
        state = await run_in_threadpool(current_state, repo)
        return {**body, "index": state}

    def current_state(repo: ServedRepository) -> dict[str, Any]:
        with repo.lock:
            return repo.prepare(wait=0, refresh=False)

    @app.get(
        "/status",
        summary="Counts, vector progress, caches and watcher of a repository",
        response_model=None,
        responses=replies(StatusReply, query_errors),
    )
    def status(repo: str | None = Query(None, description="Repository root or name.")) -> Any:
        served = registry.get(repo)
        with served.lock:
            state = served.prepare(wait=0, refresh=False)
            info = service.status(served)
        return {
            **info,
            "index": state,
            "watching": served.watching,
            "watcher_pid": served.watcher.pid if served.watching else None,
            "watch_note": served.watch_note,
            "caches": {
                "results": served.results.stats(),
                "query_vectors": {"hits": query_vectors.hits, "misses": query_vectors.misses},
            },
        }

    @app.get(
        "/health",
        summary="Liveness: version, pid and the repositories served",
        response_model=None,
        responses=replies(HealthReply, {}),
    )
    def health() -> dict[str, Any]:
        # anyone may ask (no token): behind a token, folder names only, not where they are
        return {
            "ok": True,
            "version": __version__,
            "pid": os.getpid(),
            "repositories": [r.root.name if token else str(r.root) for r in registry.repositories],
        }

    if token:
        app.add_middleware(BearerAuth, token=token)
    if loopback_only:
        app.add_middleware(LoopbackOnly)
    app.add_middleware(BodyLimit)
    return app


def _json(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def _warm_up(registry: Registry) -> None:
    """Load the model in the background, so the first semantic query does not pay for it;
    then set the heap aside from garbage collection (``_freeze_heap``)."""
    import threading

    def load() -> None:
        try:
            load_model()
        finally:
            _freeze_heap()

    def load_model() -> None:
        """One model for every served repository (they share the model id)."""
        served = [r for r in registry.repositories if r.embed != "none"]
        if not served:
            return
        from ..embedding import load_embedder

        with served[0].lock:
            model_id = served[0].index.model_id
        try:
            embedder = load_embedder(model_id)
            embedder.embed(["warm up"])
        except Exception as exc:  # the model is optional for lexical answers
            log.warning("could not load the embedding model: %s", exc)
            return
        for repo in served:
            with repo.lock:
                index = repo.index
                if index._embedder is None and index.model_id == model_id:
                    index._embedder = embedder

    threading.Thread(target=load, daemon=True, name="sleuth-warm-up").start()


def _freeze_heap() -> None:
    """Keep the objects alive after start-up (modules, model, open indexes) out of
    garbage collection: a full collection over them paused every request for 30-60 ms,
    every few seconds under load (docs/benchmarks.md)."""
    gc.collect()
    gc.freeze()
