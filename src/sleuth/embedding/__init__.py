"""Embedders: the default is MiniLM; others implement the same protocol."""

from __future__ import annotations

import threading

from .base import Embedder
from .minilm import MODEL_ID as DEFAULT_MODEL_ID  # the module loads onnxruntime lazily

__all__ = ["DEFAULT_MODEL_ID", "Embedder", "load_embedder"]


_loaded: dict[str, Embedder] = {}
_loading = threading.Lock()


def load_embedder(model_id: str = DEFAULT_MODEL_ID) -> Embedder:
    """The embedder registered under ``model_id``, one per process: every index opened
    in a process (``sleuth bench``, an agent's workspace of several repositories) uses
    the same model, so it is loaded once and held in memory once."""
    with _loading:
        if model_id not in _loaded:
            if model_id != DEFAULT_MODEL_ID:
                raise ValueError(f"unknown embedding model: {model_id}")
            from .minilm import MiniLMEmbedder

            _loaded[model_id] = MiniLMEmbedder()
        return _loaded[model_id]
