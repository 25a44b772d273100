"""Embedders: the default is MiniLM; others implement the same protocol."""

from __future__ import annotations

from .base import Embedder
from .minilm import MODEL_ID as DEFAULT_MODEL_ID  # the module loads onnxruntime lazily

__all__ = ["DEFAULT_MODEL_ID", "Embedder", "load_embedder"]


def load_embedder(model_id: str = DEFAULT_MODEL_ID) -> Embedder:
    """The embedder registered under ``model_id``."""
    if model_id == DEFAULT_MODEL_ID:
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    raise ValueError(f"unknown embedding model: {model_id}")
