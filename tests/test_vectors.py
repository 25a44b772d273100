"""The vector store: exact search, and the HNSW graph that large indexes switch to."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sleuth import config
from sleuth.store import vectors as vectors_module
from sleuth.store.vectors import VectorStore, graph_path


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(rows, 32)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "HNSW_MIN_VECTORS", 500)


def test_below_the_threshold_there_is_no_graph(tmp_path: Path) -> None:
    path = tmp_path / "vectors.npy"
    VectorStore.save(path, np.arange(100), _unit(100, 1))
    assert not graph_path(path).exists()


def test_graph_search_agrees_with_exact_search(tmp_path: Path, small_threshold: None) -> None:
    path = tmp_path / "vectors.npy"
    keys, vectors = np.arange(2000) * 3, _unit(2000, 2)
    VectorStore.save(path, keys, vectors)
    assert graph_path(path).exists()
    store = VectorStore(path)
    store.load()
    queries = _unit(50, 3)
    found_first = found_in_top = 0
    for query in queries:
        expected = int(keys[np.argmax(vectors @ query)])
        hits = [key for key, _ in store.search(query, 10)]
        found_first += hits[0] == expected
        found_in_top += expected in hits
    # an approximate graph may miss a neighbour now and then, never often
    assert found_in_top >= 48 and found_first >= 47


def test_vectors_added_after_the_graph_are_found_and_removed_ones_are_not(
    tmp_path: Path, small_threshold: None
) -> None:
    path = tmp_path / "vectors.npy"
    keys, vectors = np.arange(2000), _unit(2000, 4)
    VectorStore.save(path, keys, vectors)
    built = graph_path(path).stat().st_mtime_ns
    # 100 new vectors (5%: below the rebuild share), and chunk 0 deleted
    new_keys = np.concatenate([keys[1:], np.arange(5000, 5100)])
    new_vectors = np.concatenate([vectors[1:], _unit(100, 5)])
    VectorStore.save(path, new_keys, new_vectors)
    assert graph_path(path).stat().st_mtime_ns == built  # not rebuilt for a small change
    store = VectorStore(path)
    store.load()
    assert store.search(new_vectors[-1], 5)[0][0] == 5099
    assert all(key != 0 for key, _ in store.search(vectors[0], 50))


def test_a_large_change_rebuilds_the_graph(tmp_path: Path, small_threshold: None) -> None:
    path = tmp_path / "vectors.npy"
    VectorStore.save(path, np.arange(1000), _unit(1000, 6))
    built = graph_path(path).stat().st_mtime_ns
    VectorStore.save(path, np.arange(1000, 2000), _unit(1000, 7))
    assert graph_path(path).stat().st_mtime_ns != built


def test_unreadable_graph_falls_back_to_exact_search(tmp_path: Path, small_threshold: None) -> None:
    path = tmp_path / "vectors.npy"
    keys, vectors = np.arange(1000), _unit(1000, 8)
    VectorStore.save(path, keys, vectors)
    graph_path(path).write_bytes(b"not a graph")
    store = VectorStore(path)
    store.load()
    assert store.search(vectors[7], 3)[0][0] == 7


def test_a_file_of_the_older_format_is_read_until_the_next_publish(tmp_path: Path) -> None:
    path = tmp_path / "vectors.npy"
    keys, vectors = np.arange(50), _unit(50, 6)
    np.savez(path.with_suffix(".npz"), keys=keys, vectors=vectors.astype(np.float16))
    store = VectorStore(path)
    store.load()
    assert store.search(vectors[7], 1)[0][0] == 7
    VectorStore.save(path, keys[:10], vectors[:10])
    assert path.exists() and not path.with_suffix(".npz").exists()
    store.load()
    assert len(store) == 10 and store.search(vectors[3], 1)[0][0] == 3


def test_an_index_run_builds_the_graph_after_its_commit(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run publishes its vectors inside its last unit without the graph (minutes on a
    real index would hold the transaction); the graph follows once the unit is in."""
    from sleuth import Index

    index = Index(sample_repo)
    index.index(embed="deep")
    vectors_file = index.layout.vectors
    count = len(np.load(vectors_file, mmap_mode="r"))
    monkeypatch.setattr(config, "HNSW_MIN_VECTORS", max(2, count // 2))
    graph_path(vectors_file).unlink(missing_ok=True)
    (sample_repo / "src" / "added.py").write_text("def added_helper():\n    return 1\n")

    report = index.index(embed="none")

    assert report.update.changed == 1
    assert graph_path(vectors_file).exists()
    store = VectorStore(vectors_file)
    store.load()
    assert store._graph is not None


def test_a_scan_split_over_two_threads_answers_exactly_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon splits a large exact scan in halves (``SCAN_THREADS``): the same hits,
    in the same order, with the same similarities as one product over all rows."""
    path = tmp_path / "vectors.npy"
    keys, vectors = np.arange(3001) * 7, _unit(3001, 9)
    VectorStore.save(path, keys, vectors)
    store = VectorStore(path)
    store.load()
    queries = _unit(20, 10)
    whole = [store.search(query, 50) for query in queries]
    monkeypatch.setattr(vectors_module, "SPLIT_SCAN_ROWS", 1000)
    monkeypatch.setattr(vectors_module, "SCAN_THREADS", 2)
    split = [store.search(query, 50) for query in queries]
    assert split == whole
    # and the split is taken: the second half is computed on the scan thread
    assert vectors_module._scan_pool()._threads


def test_a_zero_query_is_close_to_nothing_with_or_without_a_graph(
    tmp_path: Path, small_threshold: None
) -> None:
    """The static table gives a question of unknown words a zero vector, and a chunk of
    such words too: every chunk is equally far (similarity 0), where the graph's cosine
    called the zero chunk identical to the zero question."""
    path = tmp_path / "vectors.npy"
    vectors = _unit(2000, 11)
    vectors[7] = 0.0
    VectorStore.save(path, np.arange(2000), vectors)
    store = VectorStore(path)
    store.load()
    assert store._graph is not None
    hits = store.search(np.zeros(32, dtype=np.float32), 20)
    assert len(hits) == 20 and {similarity for _, similarity in hits} == {0.0}
