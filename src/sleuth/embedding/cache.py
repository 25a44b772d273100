"""An LRU of query vectors, keyed by model id and query text.

A long-lived process (the daemon, the MCP server) sees the same queries again and
again; embedding one costs milliseconds of model time, a lookup microseconds. Shared by
every ``Index`` of the process, so the history index and the code index reuse entries.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

#: Query vectors kept (384 float32 each: about 1.5 kB, so 4,096 take about 6 MB).
QUERY_CACHE_SIZE = 4096


class QueryVectorCache:
    def __init__(self, size: int = QUERY_CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        #: vectors being computed ahead (``prefetch``): a ``get`` waits for them
        self._pending: dict[tuple[str, str], threading.Event] = {}
        self.hits = 0
        self.misses = 0

    def get(self, model_id: str, text: str, compute: Callable[[str], np.ndarray]) -> np.ndarray:
        """The cached vector of ``text`` under ``model_id``, computed on a miss."""
        key = (model_id, text)
        with self._lock:
            pending = self._pending.get(key)
        if pending is not None:
            pending.wait()
        with self._lock:
            vector = self._items.get(key)
            if vector is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return vector
            self.misses += 1
        vector = compute(text)
        self._store(key, vector)
        return vector

    def prefetch(
        self, model_id: str, text: str, compute: Callable[[str], np.ndarray]
    ) -> threading.Thread | None:
        """Compute the vector of ``text`` on a thread of its own (the model's sessions
        let go of the interpreter while they load and run), for a ``get`` that comes
        later; None when it is cached or on its way already. Join the thread before the
        process exits."""
        key = (model_id, text)
        with self._lock:
            if key in self._items or key in self._pending:
                return None
            done = self._pending[key] = threading.Event()

        def work() -> None:
            try:
                self._store(key, compute(text))
            except Exception:
                pass  # the later get computes it again, and raises what went wrong
            finally:
                with self._lock:
                    del self._pending[key]
                done.set()

        thread = threading.Thread(target=work, name="sleuth-query-prefetch", daemon=True)
        thread.start()
        return thread

    def _store(self, key: tuple[str, str], vector: np.ndarray) -> None:
        vector.setflags(write=False)  # shared between callers: nobody may change it
        with self._lock:
            self._items[key] = vector
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0


#: The process-wide cache.
query_vectors = QueryVectorCache()
