"""The Embedder protocol: anything that turns texts into unit vectors can plug in."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    #: Stored with the index; a different id means every vector is rebuilt.
    model_id: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in input order."""
        ...
