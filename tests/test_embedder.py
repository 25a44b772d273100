"""The single-text (query) session and the batch session are the same model."""

from __future__ import annotations

import numpy as np

from sleuth.embedding.minilm import MiniLMEmbedder


def test_a_query_alone_embeds_as_in_a_batch() -> None:
    embedder = MiniLMEmbedder()
    texts = ["how are routes matched", "def retry(fn, attempts=3): ...", "parse a config file"]
    together = embedder.embed(texts)
    for i, text in enumerate(texts):
        alone = embedder.embed([text])[0]
        assert np.allclose(alone, together[i], atol=1e-4)
        assert abs(float(np.linalg.norm(alone)) - 1.0) < 1e-4
    # and unrelated texts are not embedded alike
    assert float(together[0] @ together[1]) < 0.9
