"""Embedders: the default is MiniLM; others implement the same protocol."""

from __future__ import annotations

import threading

from .base import Embedder
from .minilm import MODEL_ID as DEFAULT_MODEL_ID  # the module loads onnxruntime lazily

__all__ = ["DEFAULT_MODEL_ID", "Embedder", "expect_few_queries", "load_embedder"]


_loaded: dict[str, Embedder] = {}
_loading = threading.Lock()
_few_queries = False


def expect_few_queries() -> None:
    """Say that this process embeds a query or two and exits (a search from the command
    line): the model is then loaded for a quick start rather than for fast runs
    (``MiniLMEmbedder``). Indexing is not affected. Call before the first search."""
    global _few_queries
    _few_queries = True


def load_embedder(model_id: str = DEFAULT_MODEL_ID) -> Embedder:
    """The embedder registered under ``model_id``, one per process: every index opened
    in a process (``sleuth bench``, an agent's workspace of several repositories) uses
    the same model, so it is loaded once and held in memory once."""
    with _loading:
        if model_id not in _loaded:
            if model_id != DEFAULT_MODEL_ID:
                raise ValueError(f"unknown embedding model: {model_id}")
            from .minilm import MiniLMEmbedder

            _loaded[model_id] = MiniLMEmbedder(quick_start=_few_queries)
        return _loaded[model_id]
