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


def test_a_quick_start_embeds_a_query_as_the_optimised_session_does() -> None:
    """A one-query process (a command-line search) skips the graph optimisations; the
    vector it gets is the one a long-lived process gets."""
    import onnxruntime

    quick, tuned = MiniLMEmbedder(quick_start=True), MiniLMEmbedder()
    for text in ("how are routes matched", "parse_config", "def retry(fn, attempts=3): ..."):
        assert np.allclose(quick.embed([text])[0], tuned.embed([text])[0], atol=1e-5)
    levels = onnxruntime.GraphOptimizationLevel
    assert quick._sessions["single"].get_session_options().graph_optimization_level == (
        levels.ORT_DISABLE_ALL
    )
    assert tuned._sessions["single"].get_session_options().graph_optimization_level == (
        levels.ORT_ENABLE_ALL
    )
    # indexing in the same process keeps the optimised batch session
    quick.embed(["one text", "and another"])
    assert quick._sessions["batch"].get_session_options().graph_optimization_level == (
        levels.ORT_ENABLE_ALL
    )


def test_indexes_in_one_process_share_one_model(tmp_path) -> None:
    """Opening several repositories (an agent's workspace, `sleuth bench`) loads the
    model once; threads that embed at once build each session once."""
    import threading

    from sleuth import Index

    from .conftest import SAMPLE_REPO, write_tree

    roots = []
    for name in ("one", "two"):
        root = tmp_path / name
        write_tree(root, SAMPLE_REPO)
        roots.append(root)
    first, second = (Index(root) for root in roots)
    assert first.embedder is second.embedder
    embedder = first.embedder
    assert isinstance(embedder, MiniLMEmbedder)
    embedder._sessions.clear()  # as if nothing had embedded yet in this process
    sessions = []
    barrier = threading.Barrier(4)

    def embed() -> None:
        barrier.wait()
        embedder.embed(["retry a failed upload"])
        sessions.append(embedder._session(single=True))

    threads = [threading.Thread(target=embed) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(sessions) == 4 and all(s is sessions[0] for s in sessions)
