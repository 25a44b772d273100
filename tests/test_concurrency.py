"""One writer, many readers: searches during indexing see one generation; processes
coordinate through the write lock, whose holder is named and whose leftovers are taken
over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sleuth import Index, IndexBusy
from sleuth.store.lexical import LexicalStore

from .conftest import write_tree

FILES = 20


def _version(root: Path, version: int) -> None:
    write_tree(
        root,
        {
            f"pkg/handler_{i}.py": (
                f"def handler_{i}_v{version}(request):\n"
                f"    # shared_marker_word appears in every file\n"
                f"    return request.respond({i}, {version})\n"
            )
            for i in range(FILES)
        },
    )


def _versions_seen(index: Index) -> tuple[int, set[str]]:
    results = index.search("shared_marker_word", k=100, mode="lexical").results
    return len({r.path for r in results}), {r.symbol.rsplit("_v", 1)[-1] for r in results}


@pytest.mark.parametrize("how", ["update_paths", "index"])
def test_searches_during_indexing_see_one_generation(tmp_path: Path, how: str) -> None:
    root = tmp_path / "repo"
    _version(root, 0)
    Index(root).index(embed="none")
    reader = Index(root)
    stop = threading.Event()
    failures: list[str] = []
    searches = 0

    def read() -> None:
        nonlocal searches
        while not stop.is_set():
            try:
                files, versions = _versions_seen(reader)
            except Exception as exc:  # any error is a failure of isolation
                failures.append(f"{type(exc).__name__}: {exc}")
                return
            searches += 1
            if files != FILES or len(versions) != 1:
                failures.append(f"{files} files, versions {sorted(versions)}")

    thread = threading.Thread(target=read)
    thread.start()
    writer = Index(root)
    try:
        for version in range(1, 16):
            _version(root, version)
            if how == "update_paths":
                writer.update_paths([root / "pkg"], embed="none")
            else:
                writer.index(embed="none")
            time.sleep(0.01)
    finally:
        stop.set()
        thread.join(60)
        writer.close()
    assert not failures, failures[:5]
    assert searches > 20
    assert _versions_seen(reader) == (FILES, {"15"})
    reader.close()


def test_a_reader_process_never_sees_a_mix_while_a_cli_indexer_runs(tmp_path: Path) -> None:
    """A separate process rewrites and re-indexes; this process searches meanwhile."""
    root = tmp_path / "repo"
    _version(root, 0)
    Index(root).index(embed="none")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from sleuth import Index\n"
        "from tests.test_concurrency import _version\n"
        "root = Path(sys.argv[1]); index = Index(root)\n"
        "for v in range(1, 11):\n"
        "    _version(root, v); index.index(embed='none')\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(root)], cwd=Path(__file__).parent.parent
    )
    reader = Index(root)
    seen: set[str] = set()
    try:
        while proc.poll() is None:
            files, versions = _versions_seen(reader)
            assert files == FILES and len(versions) == 1, (files, versions)
            seen |= versions
    finally:
        proc.wait(120)
    assert proc.returncode == 0
    assert _versions_seen(reader) == (FILES, {"10"})
    assert len(seen) > 1  # the reader did overlap the writer
    reader.close()


def _hold_lock(root: Path, name: str = "write.lock") -> subprocess.Popen:
    """Another process that takes a lock of the index (the write lock) and keeps it."""
    script = (
        "import sys, time\n"
        "from sleuth.store.lock import FileLock\n"
        "lock = FileLock(__import__('pathlib').Path(sys.argv[1]))\n"
        "assert lock.acquire(5)\n"
        "print('held', flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(root / ".sleuth" / name)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_live_lock_holder_is_named_and_a_dead_ones_lock_is_taken_over(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"a.py": "def alpha():\n    pass\n"})
    Index(root).index(embed="none")
    holder = _hold_lock(root)
    try:
        index = Index(root)
        with pytest.raises(IndexBusy, match=rf"pid {holder.pid}\b"):
            index.index(embed="none", lock_timeout=0.2)
        assert index.status()["writer_pid"] == holder.pid
        # readers are not blocked by a writer
        assert index.search("alpha", mode="lexical").results
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    lock_file = root / ".sleuth" / "write.lock"
    assert lock_file.read_text().strip() == str(holder.pid)  # left behind by the dead holder
    index = Index(root)
    assert index.status()["writer_pid"] is None
    write_tree(root, {"b.py": "def beta():\n    pass\n"})
    report = index.index(embed="none", lock_timeout=0)  # taken over at once
    assert report.update.changed == 1
    assert lock_file.read_text().strip() == str(os.getpid())


def test_embedding_skips_at_once_while_another_process_embeds(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"a.py": "def retry_upload(upload):\n    return upload.send()\n"})
    index = Index(root)
    index.index(embed="none")
    holder = _hold_lock(root, "embed.lock")
    try:
        assert index.background_embedder_pid() == holder.pid
        assert index.embed(lock_timeout=0) == 0
        assert index.embed_static() == 0
        assert index.pending() == 1
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert index.background_embedder_pid() is None
    assert index.embed_static() == 1  # the static tier only: the transformer's is pending
    assert index.pending() == 1
    assert index.embed(lock_timeout=0) == 1
    assert index.pending() == 0
    assert index.search("retrying uploads", mode="semantic").results[0].symbol == "retry_upload"


def test_the_cli_says_who_holds_the_lock(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"a.py": "def alpha():\n    pass\n"})
    Index(root).index(embed="none")
    holder = _hold_lock(root)
    try:
        from .conftest import run_cli

        done = run_cli("index", str(root), "--wait", "0.3")
        assert done.returncode == 1
        assert f"pid {holder.pid}" in done.stderr and "Traceback" not in done.stderr
        search = run_cli("search", "alpha", str(root), "--mode", "lexical")
        assert search.returncode == 0 and "a.py" in search.stdout
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()


def test_two_writer_processes_take_turns_and_the_index_stays_whole(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(
        root, {f"m{i}.py": f"def module_function_{i}():\n    return {i}\n" for i in range(300)}
    )
    from .conftest import run_cli

    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "sleuth.cli.main", "index", "--embed", "none", str(root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    index = Index(root)
    assert index.status()["chunks"] == 300
    assert LexicalStore(index.layout.lexical).num_docs() == 300
    assert run_cli("status", "--check", str(root)).returncode == 0


def test_a_folder_and_a_file_inside_it_in_one_batch_write_the_file_once(tmp_path: Path) -> None:
    """A watcher batch may name a new folder and the files in it: each file once."""
    root = tmp_path / "repo"
    write_tree(root, {"app.py": "def main():\n    pass\n"})
    index = Index(root)
    index.index(embed="none")
    write_tree(root, {f"pkg/unit_{i}.py": f"def unit_{i}():\n    return {i}\n" for i in range(5)})
    named = [root / "pkg", root / "pkg/unit_0.py", root / "pkg/unit_3.py"]
    for _ in range(2):  # the second pass re-reads the same files: still one copy each
        index.update_paths(named, embed="none")
    assert index.status()["chunks"] == 6
    hits = index.search("unit_3", k=10, mode="lexical").results
    assert [r.path for r in hits].count("pkg/unit_3.py") == 1
    index.close()


def test_a_detached_embedder_outlasts_a_look_at_its_lock(tmp_path: Path) -> None:
    """Another process looks at embed.lock now and then (a status, a search noting the
    embedder) and holds it while it looks: a detached embedder starting at that moment
    waits the look out instead of leaving the vectors undone."""
    from sleuth import config
    from sleuth.store.lock import FileLock

    root = tmp_path / "repo"
    write_tree(root, {"a.py": "def retry_upload(upload):\n    return upload.send()\n"})
    index = Index(root)
    index.index(embed="none")
    assert index.pending() == 1
    lock_path = str(index.layout.embed_lock)
    look = FileLock(index.layout.embed_lock)
    assert look.acquire(timeout=0)
    try:
        embedder = subprocess.Popen(
            [sys.executable, "-m", "sleuth.background", str(root), index.model_id]
        )
        # the look lasts until the embedder has the lock file open, trying to take it
        deadline = time.monotonic() + 60
        while embedder.poll() is None and time.monotonic() < deadline:
            if lock_path in _open_files(embedder.pid):
                break
            time.sleep(0.01)
        time.sleep(config.EMBEDDER_LOCK_WAIT / 10)
    finally:
        look.release()
    assert embedder.wait(timeout=300) == 0
    assert index.pending() == 0


def _open_files(pid: int) -> set[str]:
    folder = Path(f"/proc/{pid}/fd")
    try:
        return {os.readlink(folder / fd) for fd in os.listdir(folder)}
    except OSError:  # it ended, or a descriptor closed while listed
        return set()
