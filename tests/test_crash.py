"""A kill at any moment keeps finished batches; the next run completes the index."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sleuth import Index, parse_journal
from sleuth.store.lexical import LexicalStore

from .conftest import run_cli, write_tree


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
    proc = _start(
        ["index", "--embed", "none", str(root)],
        {"SLEUTH_BATCH_FILES": "50", "SLEUTH_COMMIT_SECONDS": "0"},
    )
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


def _killed_run(root: Path, point: str, nth: int, *args: str) -> None:
    """`sleuth ARGS` SIGKILLed at the nth time it reaches ``point`` (tests/killer.py)."""
    proc = subprocess.run(
        [sys.executable, "-m", "tests.killer", point, str(nth), *args],
        cwd=Path(__file__).parent.parent,
        capture_output=True,
        text=True,
        env={**os.environ, "SLEUTH_BATCH_FILES": "50", "SLEUTH_COMMIT_SECONDS": "0"},
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def _many(count: int, start: int = 0) -> dict[str, str]:
    return {
        f"pkg{i // 100}/mod_{i}.py": f"def function_{i}(x):\n    return x + {i}\n"
        for i in range(start, start + count)
    }


def _assert_whole(root: Path, files: int) -> None:
    """Counts agree across SQLite, tantivy and vectors; every file answers."""
    index = Index(root)
    report = index.check(repair=False)
    assert report.ok and not report.problems, report
    assert report.chunks == report.lexical_docs == files
    assert report.vectors == report.embedded_chunks
    last = files - 1
    top = index.search(f"function_{last}", mode="lexical").results[0]
    assert top.path == f"pkg{last // 100}/mod_{last}.py"
    index.close()


@pytest.mark.parametrize(
    ("point", "nth"),
    [("batch", 3), ("lexical-commit", 2), ("between-commits", 2), ("merging", 1)],
)
def test_kill_while_indexing_leaves_an_index_that_answers_and_completes(
    tmp_path: Path, point: str, nth: int
) -> None:
    root = tmp_path / "repo"
    write_tree(root, _many(300))
    Index(root).index(embed="none")
    write_tree(root, _many(300, start=300))
    (root / "pkg0/mod_7.py").write_text("def renamed_function_7(x):\n    return x\n")

    _killed_run(root, point, nth, "index", "--embed", "none", str(root))

    if point == "between-commits":  # tantivy is one commit ahead: detected, then repaired
        found = Index(root).check(repair=False)
        assert found.lexical_mark == found.lexical_commit + 1 and not found.ok
    checked = run_cli("status", "--check", str(root))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "consistent" in checked.stdout
    index = Index(root)  # opens and answers with what was committed before the kill
    assert index.search("function_5", mode="lexical").results[0].path == "pkg0/mod_5.py"
    index.close()

    done = run_cli("index", "--embed", "none", str(root))
    assert done.returncode == 0, done.stderr
    _assert_whole(root, 600)
    assert Index(root).search("renamed_function_7", mode="lexical").results[0].path == (
        "pkg0/mod_7.py"
    )


@pytest.mark.parametrize(("point", "nth"), [("embed", 2), ("publish", 1), ("publish", 2)])
def test_kill_while_embedding_or_publishing_vectors(tmp_path: Path, point: str, nth: int) -> None:
    root = tmp_path / "repo"
    write_tree(root, _many(200))
    _killed_run(root, point, nth, "index", "--embed", "deep", str(root))

    checked = run_cli("status", "--check", str(root))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert not list((root / ".sleuth").glob(".vectors-*"))  # unfinished writes removed
    assert Index(root).search("function_3", mode="lexical").results

    done = run_cli("index", "--embed", "deep", str(root))
    assert done.returncode == 0, done.stderr
    _assert_whole(root, 200)
    assert Index(root).status()["embedded_fraction"] == 1.0


def test_check_repairs_a_damaged_or_missing_derived_store(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, _many(120))
    Index(root).index(embed="deep")
    shutil.rmtree(root / ".sleuth" / "lexical")
    (root / ".sleuth" / "vectors.npy").write_bytes(b"not a vectors file")
    report = Index(root).check()
    assert report.ok and len(report.repaired) == 2, report
    _assert_whole(root, 120)


def test_check_reports_a_damaged_database_as_not_repairable(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, _many(50))
    index = Index(root)
    index.index(embed="none")
    index.close()  # the last connection folds the WAL into the database file
    db = root / ".sleuth" / "meta.db"
    assert not (root / ".sleuth" / "meta.db-wal").exists()
    data = bytearray(db.read_bytes())
    for offset in range(4096, min(len(data), 4096 * 6)):  # pages after the header
        data[offset] = 0xFF
    db.write_bytes(bytes(data))
    checked = run_cli("status", "--check", str(root))
    assert checked.returncode == 1
    assert "sleuth index --full" in checked.stdout + checked.stderr
    assert "Traceback" not in checked.stderr


#: Installed in every Python process of a test run (PYTHONPATH), spawned children too:
#: the parse of a file holding the marker ends its process, as a grammar's segmentation
#: fault would; with ``once``, only the first time (a kill that was not the file's fault).
_PARSER_CRASH = """
import os, signal
from pathlib import Path
import sleuth.prepare as prepare

_parse = prepare.chunk_text

def chunk_text(language, text, grammar=True):
    if grammar and "CRASH-THE-PARSER" in text:  # without a grammar, nothing to crash
        once = Path(os.environ["CRASH_ONCE_FLAG"]) if os.environ.get("CRASH_ONCE_FLAG") else None
        if once is None or once.exists():
            if once is not None:
                once.unlink()
            os.kill(os.getpid(), signal.SIGKILL)
    return _parse(language, text, grammar)

prepare.chunk_text = chunk_text
"""


def _parser_crash_env(tmp_path: Path, once: bool) -> dict:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(_PARSER_CRASH)
    env = {"PYTHONPATH": os.pathsep.join([str(hooks), os.environ.get("PYTHONPATH", "")])}
    if once:
        flag = tmp_path / "crash-once"
        flag.write_text("")
        env["CRASH_ONCE_FLAG"] = str(flag)
    return env


_CRASHER = "def crashing_parse():\n    return 'CRASH-THE-PARSER'\n"


def test_a_file_that_crashes_the_parser_is_indexed_as_line_windows(tmp_path: Path) -> None:
    """A file whose parse ends the process (a grammar's segmentation fault) ended every
    run that reached it, so the index could never be completed. The dying process's
    journal names it; the next run parses it in a child of its own and, when that child
    dies too, cuts it into line windows without a grammar and says so."""
    repo = write_tree(
        tmp_path / "repo",
        {"crasher.py": _CRASHER, "ok.py": "def fine_function():\n    return 1\n"},
    )
    env = _parser_crash_env(tmp_path, once=False)
    first = run_cli("index", str(repo), "--embed", "none", env=env)
    assert first.returncode == -signal.SIGKILL
    second = run_cli("index", str(repo), "--embed", "none", env=env)
    assert second.returncode == 0, second.stderr
    assert "crasher.py: its parse ended the process reading it" in second.stdout + second.stderr
    index = Index(repo)
    found = index.search("crashing_parse", mode="lexical").results
    assert found[0].path == "crasher.py" and found[0].kind == "window"
    assert index.find_symbol("fine_function")[0].path == "ok.py"
    assert parse_journal.crashed(repo / ".sleuth" / "parsing") == []  # the run ended well


def test_a_file_named_by_a_killed_run_is_parsed_again_apart(tmp_path: Path) -> None:
    """A run killed while it parsed an innocent file (the machine ran out of memory)
    names that file too: the next run parses it in a child of its own, where it reads
    as ever, and keeps its definitions."""
    repo = write_tree(tmp_path / "repo", {"crasher.py": _CRASHER})
    env = _parser_crash_env(tmp_path, once=True)
    first = run_cli("index", str(repo), "--embed", "none", env=env)
    assert first.returncode == -signal.SIGKILL
    second = run_cli("index", str(repo), "--embed", "none", env=env)
    assert second.returncode == 0, second.stderr
    assert "its parse ended" not in second.stdout + second.stderr
    assert Index(repo).find_symbol("crashing_parse")[0].path == "crasher.py"


def test_a_worker_that_dies_parsing_a_file_does_not_end_the_run(tmp_path: Path) -> None:
    """On a tree big enough for worker processes, a worker that dies parsing a file
    breaks the pool; the run reads which file it was parsing, prepares the rest itself
    and that file in a child of its own (which dies too), and completes in one go."""
    files = {f"pkg/mod_{i}.py": f"def function_{i}():\n    return {i}\n" for i in range(450)}
    repo = write_tree(tmp_path / "repo", {**files, "pkg/mod_200b.py": _CRASHER})
    env = {**_parser_crash_env(tmp_path, once=False), "SLEUTH_INDEX_WORKERS": "2"}
    done = run_cli("index", str(repo), "--embed", "none", env=env)
    assert done.returncode == 0, done.stderr
    assert "pkg/mod_200b.py: its parse ended the process reading it" in done.stdout + done.stderr
    index = Index(repo)
    assert index.status()["files"] == 451
    assert index.find_symbol("function_449")[0].path == "pkg/mod_449.py"
    assert index.search("crashing_parse", mode="lexical").results[0].kind == "window"


def test_two_threads_journal_their_parses_into_their_own_trees(tmp_path: Path) -> None:
    """A library caller indexing two trees from two threads: each thread's parse is
    named in its own tree's journal, while the other thread has chosen another."""
    first, second = tmp_path / "a" / "parsing", tmp_path / "b" / "parsing"
    chose, named = threading.Barrier(2, timeout=10), threading.Barrier(2, timeout=10)
    seen: dict[str, bytes] = {}

    def parse(directory: Path, path: str) -> None:
        parse_journal.use(str(directory))
        chose.wait()  # both threads have picked their folder
        with parse_journal.parsing(path):
            named.wait()  # both are inside a parse
            seen[path] = (directory / str(os.getpid())).read_bytes()
            named.wait()
        parse_journal.use(None)

    threads = [
        threading.Thread(target=parse, args=(first, "one.py")),
        threading.Thread(target=parse, args=(second, "two.py")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert seen == {"one.py": b"one.py\n", "two.py": b"two.py\n"}


def test_a_journal_names_its_file_once_its_process_is_gone(tmp_path: Path) -> None:
    """A journal of a running process is not read; one of a process that died is, as a
    zombie its parent has not reaped yet and once reaped (the pool that saw it die may
    reap it at any moment while the journals are read)."""
    folder = tmp_path / "parsing"
    folder.mkdir()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (folder / str(child.pid)).write_bytes(b"pkg/crasher.py\n")
        assert parse_journal.crashed(folder) == []
        assert (folder / str(child.pid)).exists()
    finally:
        child.kill()
    deadline = time.monotonic() + 10
    stat = Path(f"/proc/{child.pid}/stat")
    while stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert parse_journal.crashed(folder) == ["pkg/crasher.py"]  # a zombie
    child.wait()
    (folder / str(child.pid)).write_bytes(b"pkg/crasher.py\n")
    assert parse_journal.crashed(folder) == ["pkg/crasher.py"]  # reaped
    assert list(folder.iterdir()) == []
