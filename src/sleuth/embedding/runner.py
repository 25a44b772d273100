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
from ..store.meta import MetaStore
from ..store.vectors import VectorStore
from .base import Embedder

BATCH_CHUNKS = 64
PUBLISH_EVERY_SECONDS = 5.0


def pending_count(meta: MetaStore) -> int:
    return meta.db.execute(
        "SELECT COUNT(DISTINCT hash) FROM chunks c WHERE NOT EXISTS"
        " (SELECT 1 FROM embeddings e WHERE e.hash=c.hash)"
    ).fetchone()[0]


def publish_vectors(meta: MetaStore, layout: Layout, final: bool = True) -> int:
    """Write the search vectors file from SQLite; returns how many chunks it holds.

    Interim publishes (``final`` False) skip the HNSW graph of very large indexes: the
    vectors they add are searched exactly until the last publish of the run.
    """
    keys, vectors = meta.embedded_vectors()
    VectorStore.save(layout.vectors, keys, vectors, graph=final)
    return len(keys)


def embed_pending(
    meta: MetaStore,
    layout: Layout,
    embedder: Embedder,
    progress: Callable[[str, int, int], None],
    deadline: float | None = None,
) -> int:
    """Embed until nothing is pending (or the monotonic ``deadline``); returns chunks done."""
    total = pending_count(meta)
    done = 0
    last_publish = time.monotonic()
    progress("embed", 0, total)
    while True:
        rows = meta.unembedded(BATCH_CHUNKS)
        if not rows:
            break
        vectors = embedder.embed([embed_text(r.path, r) for r in rows])
        with meta.transaction():
            meta.put_embeddings([r.hash for r in rows], vectors)
        done += len(rows)
        progress("embed", done, max(total, done))
        now = time.monotonic()
        if now - last_publish >= PUBLISH_EVERY_SECONDS:
            publish_vectors(meta, layout, final=False)
            last_publish = now
        if deadline is not None and now >= deadline:
            break
    publish_vectors(meta, layout)
    return done
