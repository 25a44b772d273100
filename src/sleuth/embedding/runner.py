"""Fill in vectors for chunks that lack them: resumable, cached by content hash.

Each batch commits to SQLite, so a killed run keeps every finished batch. The search
vectors file is republished from SQLite every few seconds and at the end, so searches
use vectors as they arrive.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..prepare import embed_text
from ..store.layout import Layout
from ..store.meta import VECTOR_TABLES, MetaStore
from ..store.vectors import VectorStore
from .base import Embedder

BATCH_CHUNKS = 64
#: The static tier is cheap per chunk: bigger batches, fewer transactions.
STATIC_BATCH_CHUNKS = 1024
PUBLISH_EVERY_SECONDS = 5.0


def pending_count(meta: MetaStore, tier: str = "deep") -> int:
    return meta.db.execute(
        "SELECT COUNT(DISTINCT hash) FROM chunks c WHERE NOT EXISTS"
        f" (SELECT 1 FROM {VECTOR_TABLES[tier]} e WHERE e.hash=c.hash)"
    ).fetchone()[0]


def publish_vectors(meta: MetaStore, layout: Layout, final: bool = True, tier: str = "deep") -> int:
    """Write the search vectors file from SQLite; returns how many chunks it holds.

    Interim publishes (``final`` False) skip the HNSW graph of very large indexes: the
    vectors they add are searched exactly until the last publish of the run.
    """
    keys, vectors = meta.embedded_vectors(tier)
    VectorStore.save(layout.vectors_of(tier), keys, vectors, graph=final)
    return len(keys)


def embed_pending(
    meta: MetaStore,
    layout: Layout,
    embedder: Embedder,
    progress: Callable[[str, int, int], None],
    deadline: float | None = None,
    tier: str = "deep",
    publish: bool = True,
) -> int:
    """Embed until nothing is pending (or the monotonic ``deadline``); returns chunks done.

    ``tier`` "static" fills the static table's vectors (its own table and file);
    ``publish`` False leaves the final publish to the caller.
    """
    total = pending_count(meta, tier)
    batch = STATIC_BATCH_CHUNKS if tier == "static" else BATCH_CHUNKS
    phase = "static" if tier == "static" else "embed"
    done = 0
    last_publish = time.monotonic()
    progress(phase, 0, total)
    while True:
        rows = meta.unembedded(batch, tier)
        if not rows:
            break
        vectors = embedder.embed([embed_text(r.path, r) for r in rows])
        with meta.transaction():
            meta.put_embeddings([r.hash for r in rows], vectors, tier)
        done += len(rows)
        progress(phase, done, max(total, done))
        now = time.monotonic()
        if now - last_publish >= PUBLISH_EVERY_SECONDS:
            publish_vectors(meta, layout, final=False, tier=tier)
            last_publish = now
        if deadline is not None and now >= deadline:
            break
    if publish:
        publish_vectors(meta, layout, tier=tier)
    return done
