"""The watcher on real file-system events: saves, renames, deletions, ignore rules,
bursts and branch switches end in an index that matches the files."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sleuth import Index
from sleuth.live import WatchBatch, Watcher
from sleuth.store.lexical import LexicalStore
from sleuth.store.meta import MetaStore

from .conftest import git_init, write_tree
from .gitrepo import git

WAIT = 30.0  # generous: the machine is shared; a pass takes well under a second


def _until(check: Callable[[], bool], what: str, timeout: float = WAIT) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return time.monotonic() - started
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for: {what}")


def _paths(index: Index, query: str) -> set[str]:
    return {r.path for r in index.search(query, k=50, mode="lexical").results}


def _indexed_files(index: Index) -> set[str]:
    meta = MetaStore(index.layout.meta)
    try:
        return {r[0] for r in meta.db.execute("SELECT path FROM files WHERE skip_reason IS NULL")}
    finally:
        meta.close()


def _embedding_rows(index: Index) -> int:
    meta = MetaStore(index.layout.meta)
    try:
        return meta.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    finally:
        meta.close()


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, Index, list[WatchBatch]]]:
    root = tmp_path / "repo"
    write_tree(
        root,
        {
            "src/app.py": "def start_application():\n    return 'ok'\n",
            ".gitignore": "generated/\n*.tmp\n",
        },
    )
    git_init(root)
    index = Index(root)
    batches: list[WatchBatch] = []
    watcher = Watcher(index, debounce_ms=100, on_batch=batches.append, embed="none")
    watcher.start()
    assert watcher.ready.wait(WAIT)
    try:
        yield root, index, batches
    finally:
        watcher.stop()
        assert not watcher.running
        index.close()


def test_save_rename_and_delete_follow_the_files(watched) -> None:
    root, index, batches = watched
    assert "src/app.py" in _paths(index, "start_application")  # the catch-up run

    (root / "src/billing.py").write_text("def compute_invoice_total(lines):\n    return 0\n")
    _until(lambda: "src/billing.py" in _paths(index, "compute_invoice_total"), "new file")

    app = root / "src/app.py"
    app.write_text(app.read_text() + "\n\ndef stop_application_gracefully():\n    pass\n")
    _until(lambda: "src/app.py" in _paths(index, "stop_application_gracefully"), "edit")

    (root / "src/billing.py").rename(root / "src/invoices.py")
    _until(lambda: _paths(index, "compute_invoice_total") == {"src/invoices.py"}, "rename replaces")

    (root / "src/invoices.py").unlink()
    _until(lambda: not _paths(index, "compute_invoice_total"), "deletion")
    assert _indexed_files(index) == {"src/app.py"}
    assert all(not b.error for b in batches)
    assert batches[-1].generation > batches[0].generation


def test_ignored_and_secret_files_are_never_indexed(watched) -> None:
    root, index, batches = watched
    write_tree(
        root,
        {
            "generated/out.py": "def ignored_by_folder_rule():\n    pass\n",
            "notes.tmp": "ignored_by_glob_rule\n",
            ".env": "API_TOKEN=never_indexed_secret_value\n",
            "node_modules/pkg/index.js": "function excludedByDefault() {}\n",
            "src/visible.py": "def visible_marker_function():\n    pass\n",
        },
    )
    _until(lambda: "src/visible.py" in _paths(index, "visible_marker_function"), "visible file")
    time.sleep(0.5)  # let any stray event of the ignored files arrive
    for word in ("ignored_by_folder_rule", "ignored_by_glob_rule", "never_indexed_secret_value"):
        assert not _paths(index, word), word
    assert not _paths(index, "excludedByDefault")
    assert _indexed_files(index) == {"src/app.py", "src/visible.py"}
    seen = {p for b in batches for p in b.changed}
    assert not any(p.startswith(("generated/", "node_modules/", ".sleuth/")) for p in seen)


def test_a_file_named_with_bytes_that_are_not_utf8_does_not_stop_the_watcher(watched) -> None:
    root, index, batches = watched
    with open(os.path.join(os.fsencode(root), b"src", b"bad\xff.py"), "wb") as handle:
        handle.write(b"def never_stored_name():\n    pass\n")
    (root / "src/after.py").write_text("def written_after_the_bad_name():\n    pass\n")
    _until(lambda: "src/after.py" in _paths(index, "written_after_the_bad_name"), "next file")
    assert _indexed_files(index) == {"src/app.py", "src/after.py"}
    assert all(not b.error for b in batches)


def test_a_new_ignore_rule_drops_files_and_a_removed_one_adds_them(watched) -> None:
    root, index, _ = watched
    write_tree(root, {"scratch/draft.py": "def draft_idea_function():\n    pass\n"})
    _until(lambda: "scratch/draft.py" in _paths(index, "draft_idea_function"), "draft indexed")
    (root / ".gitignore").write_text("generated/\n*.tmp\nscratch/\n")
    _until(lambda: not _paths(index, "draft_idea_function"), "newly ignored file dropped")
    (root / ".gitignore").write_text("generated/\n*.tmp\n")
    _until(lambda: _paths(index, "draft_idea_function"), "no longer ignored file back")


def test_a_folder_moved_in_and_out_is_indexed_and_dropped(watched, tmp_path: Path) -> None:
    root, index, _ = watched
    outside = tmp_path / "elsewhere" / "plugin"
    write_tree(outside, {f"mod{i}.py": f"def plugin_hook_{i}():\n    pass\n" for i in range(5)})
    shutil.move(str(outside), str(root / "plugin"))
    _until(lambda: len(_indexed_files(index)) == 6, "moved-in folder")
    _until(lambda: "plugin/mod3.py" in _paths(index, "plugin_hook_3"), "moved-in searchable")
    shutil.move(str(root / "plugin"), str(tmp_path / "gone"))
    _until(lambda: not _paths(index, "plugin_hook_3"), "moved-out folder dropped")
    assert _indexed_files(index) == {"src/app.py"}


def test_a_burst_of_2000_writes_ends_consistent(watched) -> None:
    root, index, batches = watched
    for i in range(2000):
        path = root / f"pkg{i // 200}" / f"unit_{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"def burst_function_{i}(value):\n    return value * {i}\n")

    def complete() -> bool:
        return len(_indexed_files(index)) == 2001

    _until(complete, "all 2,000 files indexed", timeout=120)
    _until(lambda: not any(b for b in batches[-1:] if b.error), "last batch applied")
    time.sleep(0.5)
    meta = MetaStore(index.layout.meta)
    try:
        chunks = meta.chunk_count()
    finally:
        meta.close()
    assert chunks == 2001
    assert LexicalStore(index.layout.lexical).num_docs() == chunks
    top = index.search("burst_function_1999", mode="lexical").results[0]
    assert top.path == "pkg9/unit_1999.py"


def test_a_branch_switch_re_walks_the_tree(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"common.py": "def shared_helper():\n    pass\n"})
    git_init(root)
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    git(root, "add", "-A")
    git(root, *ident, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "feature")
    write_tree(
        root, {f"feature/f{i}.py": f"def feature_only_{i}():\n    pass\n" for i in range(300)}
    )
    git(root, "add", "-A")
    git(root, *ident, "commit", "-q", "-m", "feature")
    git(root, "checkout", "-q", "-")  # back on the first branch: no feature files

    index = Index(root)
    watcher = Watcher(index, debounce_ms=100, embed="none")
    watcher.start()
    try:
        assert watcher.ready.wait(WAIT)
        assert _indexed_files(index) == {"common.py"}
        git(root, "checkout", "-q", "feature")
        _until(lambda: len(_indexed_files(index)) == 301, "feature branch indexed")
        git(root, "checkout", "-q", "-")
        _until(lambda: _indexed_files(index) == {"common.py"}, "back on the first branch")
        assert not _paths(index, "feature_only_7")  # no file holds the words any more
    finally:
        watcher.stop()
        index.close()


def test_catch_up_indexes_what_changed_while_nobody_watched(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"a.py": "def before_watching():\n    pass\n"})
    Index(root).index(embed="none")
    (root / "a.py").unlink()
    write_tree(root, {"b.py": "def while_unwatched():\n    pass\n"})
    index = Index(root)
    batches: list[WatchBatch] = []
    watcher = Watcher(index, on_batch=batches.append, embed="none")
    watcher.start()
    try:
        assert watcher.ready.wait(WAIT)
        assert batches and batches[0].full and batches[0].dropped == 1
        assert _paths(index, "while_unwatched") == {"b.py"}
        assert not _paths(index, "before_watching")
    finally:
        watcher.stop()
        index.close()


def _as_from_a_terminal() -> None:
    """Ctrl-C reaches the child even when this run was started in the background (which
    hands children SIGINT ignored, and Python then installs no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_watch(root: Path, log: Path) -> subprocess.Popen:
    """`sleuth watch --embed none` on a one-file repository, its batches going to ``log``."""
    write_tree(root, {"a.py": "def first_function():\n    pass\n"})
    with open(log, "w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "sleuth.cli.main", "watch", str(root), "--embed", "none"],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
            preexec_fn=_as_from_a_terminal,
        )


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl_c", "sigterm"])
def test_watch_command_prints_batches_and_stops_on_a_signal(tmp_path: Path, stop: int) -> None:
    root, log = tmp_path / "repo", tmp_path / "out.txt"
    proc = _start_watch(root, log)
    try:
        _until(lambda: "full run" in log.read_text(), "catch-up run reported")
        (root / "b.py").write_text("def second_function():\n    pass\n")
        _until(lambda: "1 changed, 0 removed: 1 re-indexed" in log.read_text(), "edit reported")
        assert _paths(Index(root), "second_function") == {"b.py"}
    finally:
        proc.send_signal(stop)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            output = log.read_text()
            raise AssertionError(f"no exit 60 s after signal {stop}\n{output}{err}") from None
    assert proc.returncode == 0, err
    assert "stopping: finishing the batch in progress" in err
    assert "Traceback" not in err


def test_inline_embedding_gives_new_chunks_vectors(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"a.py": "def parse_settings(text):\n    return dict(line.split('='))\n"})
    index = Index(root)
    watcher = Watcher(index, debounce_ms=100, embed="inline")
    watcher.start()
    try:
        assert watcher.ready.wait(WAIT)
        (root / "b.py").write_text(
            "def retry_upload(upload, attempts=3):\n"
            "    for _ in range(attempts):\n"
            "        if upload.send():\n"
            "            return True\n"
            "    return False\n"
        )
        _until(lambda: index.status()["chunks"] == 2, "new file indexed")
        _until(lambda: index.status()["embedded_fraction"] == 1.0, "vectors for every chunk", 120)
        response = index.search("try sending a file again", mode="semantic", k=1)
        assert response.results[0].path == "b.py"
        assert not index.background_embedder_pid()  # nothing was started besides the watcher

        # three functions; editing one embeds one chunk, the others keep their vectors
        bodies = [
            f"def step_{n}(data):\n"
            + "".join(f"    data = data + {n * 10 + i}\n" for i in range(5))
            + "    return data\n"
            for n in range(3)
        ]
        (root / "c.py").write_text("\n\n".join(bodies))
        _until(lambda: index.status()["chunks"] == 5, "three functions indexed")
        _until(lambda: index.status()["embedded_fraction"] == 1.0, "c.py embedded", 120)
        before = _embedding_rows(index)
        (root / "c.py").write_text("\n\n".join([bodies[0], bodies[1].replace("+", "-"), bodies[2]]))
        _until(
            lambda: "c.py" in _paths(index, "step_1") and _embedding_rows(index) > before, "edit"
        )
        _until(lambda: index.status()["embedded_fraction"] == 1.0, "edit embedded", 120)
        assert _embedding_rows(index) == before + 1
    finally:
        watcher.stop()
        index.close()


def test_inline_embedding_resumes_while_the_index_folder_keeps_changing(tmp_path: Path) -> None:
    """A slice that finds the embed lock taken is retried on the next tick, even when
    the only events are the index's own files changing (a status poll every 50 ms
    rewrites .sleuth/embed.lock): such events are filtered out, not waited on."""
    from sleuth.store.lock import FileLock

    root = tmp_path / "repo"
    write_tree(root, {"a.py": "def parse_settings(text):\n    return dict(line.split('='))\n"})
    index = Index(root)
    index.index(embed="deep")
    watcher = Watcher(index, debounce_ms=100, embed="inline")
    watcher.start()
    busy = FileLock(index.layout.embed_lock)
    try:
        assert watcher.ready.wait(WAIT)
        assert busy.acquire(timeout=WAIT)  # another embedder holds it: the slice gives up
        (root / "b.py").write_text("def retry_upload(upload):\n    return upload.send()\n")
        _until(lambda: index.status()["chunks"] == 2, "new file indexed")
        time.sleep(0.5)  # the batch's slice found the lock taken
        busy.release()
        scribble = index.layout.directory / "scribble"
        started = time.monotonic()
        while index.status()["embedded_fraction"] < 1.0:
            assert time.monotonic() - started < WAIT, "inline embedding never resumed"
            scribble.write_text(str(time.monotonic()))  # events the watch filters out
            time.sleep(0.03)
    finally:
        busy.release()
        watcher.stop()
        index.close()


def test_a_batch_waits_while_another_process_writes_then_applies(watched) -> None:
    from .test_concurrency import _hold_lock

    root, index, batches = watched
    holder = _hold_lock(root)
    try:
        (root / "src/late.py").write_text("def written_while_locked():\n    pass\n")
        _until(lambda: any(b.error for b in batches), "the batch is refused")
        time.sleep(2.5)  # retried every second meanwhile
        refused = [b for b in batches if b.error]
        assert len(refused) == 1 and f"pid {holder.pid}" in refused[0].error
        assert not _paths(index, "written_while_locked")
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    _until(lambda: _paths(index, "written_while_locked") == {"src/late.py"}, "applied later")
    assert not batches[-1].error and "src/late.py" in batches[-1].changed


def test_watch_command_exits_non_zero_when_the_folder_goes_away(tmp_path: Path) -> None:
    root, log = tmp_path / "repo", tmp_path / "out.txt"
    proc = _start_watch(root, log)
    try:
        _until(lambda: "full run" in log.read_text(), "catch-up run reported")
        shutil.rmtree(root)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, err
    assert "watching stopped" in err
    assert "Traceback" not in err
