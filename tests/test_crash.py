"""A kill at any moment keeps finished batches; the next run completes the index."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from sleuth import Index
from sleuth.store.lexical import LexicalStore

from .conftest import write_tree


def _count(db: Path, sql: str) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute(sql).fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _start(args: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sleuth.cli.main", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
    )


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (worker processes of an indexer)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name.isdigit() and int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def _wait_for(db: Path, sql: str, minimum: int, timeout: float = 120) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        n = _count(db, sql)
        if n >= minimum:
            return n
        time.sleep(0.02)
    raise AssertionError(f"{sql} never reached {minimum}")


def test_killed_indexer_keeps_batches_and_resumes(tmp_path: Path) -> None:
    root = tmp_path / "many"
    files = {
        f"pkg{i // 100}/mod_{i}.py": f"def function_{i}(x):\n    return x + {i}\n"
        for i in range(3000)
    }
    write_tree(root, files)
    meta = root / ".sleuth" / "meta.db"
    proc = _start(["index", "--embed", "none", str(root)], {"SLEUTH_BATCH_FILES": "50"})
    _wait_for(meta, "SELECT COUNT(*) FROM files", 200)
    workers = _children(proc.pid)
    assert workers  # 3,000 files: prepared in worker processes
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = _count(meta, "SELECT COUNT(*) FROM files")
    assert 0 < kept < 3000
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)  # none outlives it

    # the interrupted index opens and answers
    index = Index(root)
    assert index.search("function_1", mode="lexical").results
    index.close()

    report = Index(root).index(embed="none").update
    assert report.changed <= 3000 - kept + 50  # at most one unfinished batch redone
    index = Index(root)
    assert index.status()["chunks"] == 3000
    assert LexicalStore(index.layout.lexical).num_docs() == 3000
    assert index.search("function_2999", mode="lexical").results[0].path == "pkg29/mod_2999.py"


def test_killed_embedder_keeps_vectors_and_resumes(tmp_path: Path) -> None:
    root = tmp_path / "embed"
    files = {
        f"m{i}.py": f"def handler_{i}(request):\n    return render(request, {i})\n"
        for i in range(400)
    }
    write_tree(root, files)
    Index(root).index(embed="none")
    meta = root / ".sleuth" / "meta.db"
    proc = _start(["index", "--embed", "deep", str(root)], {})
    _wait_for(meta, "SELECT COUNT(*) FROM embeddings", 64)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = _count(meta, "SELECT COUNT(*) FROM embeddings")
    assert 0 < kept < 400
    index = Index(root)
    report = index.index(embed="deep")
    assert report.embedded == 400 - kept
    assert index.status()["embedded_fraction"] == 1.0
    assert index.search("handler_7").results[0].path == "m7.py"
