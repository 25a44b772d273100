"""The `sleuth` command as a user runs it: output shapes, first use, errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from .conftest import RESULT_KEYS, SEARCH_KEYS, run_cli, write_tree


def _no_traceback(proc) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout


def test_first_search_indexes_and_answers_with_json_schema(sample_repo: Path) -> None:
    proc = run_cli("search", "--json", "-k", "3", "retry failed upload", str(sample_repo))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == SEARCH_KEYS
    assert data["mode"] in ("hybrid", "lexical")
    assert 1 <= len(data["results"]) <= 3
    assert set(data["results"][0]) == RESULT_KEYS
    assert data["results"][0]["path"] == "src/uploads/retry.py"
    assert (sample_repo / ".sleuth" / "meta.db").exists()


def test_human_output_shows_path_lines_and_symbol(sample_repo: Path) -> None:
    proc = run_cli("search", "ConfigParser", str(sample_repo))
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("src/config/parser.py:")
    assert "ConfigParser" in first


def test_static_tier_first_then_background_embedding(sample_repo: Path) -> None:
    """A repository too big to embed before answering, small enough for the static tier:
    the first answer already has a semantic side."""
    env = {"SLEUTH_FOREGROUND_EMBED_SECONDS": "0"}
    proc = run_cli("search", "--json", "open a network listener", str(sample_repo), env=env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["mode"], data["vectors"]) == ("hybrid", ["static"])
    assert data["results"][0]["path"] == "web/server.js"
    assert "answering with the static tier now" in proc.stderr


def test_lexical_first_then_background_embedding(sample_repo: Path) -> None:
    # force the big-repository path, and one too big for the static tier in the foreground
    env = {"SLEUTH_FOREGROUND_EMBED_SECONDS": "0", "SLEUTH_FOREGROUND_STATIC_SECONDS": "0"}
    proc = run_cli("search", "--json", "parse_config", str(sample_repo), env=env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["mode"] == "lexical"
    assert data["results"][0]["path"] == "src/config/parser.py"
    assert any("lexical" in n for n in data["notices"])
    deadline = time.monotonic() + 120
    status = {}
    while time.monotonic() < deadline:
        status = json.loads(run_cli("status", "--json", str(sample_repo)).stdout)
        if status["embedded_fraction"] == 1.0 and not status["background_embedder_pid"]:
            break
        time.sleep(0.5)
    assert status["embedded_fraction"] == 1.0
    assert status["static_chunks"] == status["chunks"]  # the static tier came first
    later = json.loads(run_cli("search", "--json", "parse_config", str(sample_repo)).stdout)
    assert later["mode"] == "hybrid" and later["embedded_fraction"] == 1.0
    assert later["vectors"] == ["deep", "static"]  # both models' views rank the answer


def test_index_twice_says_nothing_changed(sample_repo: Path) -> None:
    first = run_cli("index", "--embed", "deep", str(sample_repo))
    assert first.returncode == 0, first.stderr
    second = run_cli("index", "--embed", "deep", str(sample_repo))
    assert "nothing changed" in second.stdout
    assert "nothing to embed" in second.stdout
    # stderr is a pipe here, not a terminal: no progress bars left in it
    for run in (first, second):
        assert "━" not in run.stderr and " eta " not in run.stderr, run.stderr


def test_status_counts_skipped_files_by_reason(sample_repo: Path) -> None:
    write_tree(sample_repo, {".env": "KEY=1\n", "yarn.lock": "x\n", "img.png": b"\x89PNG"})
    run_cli("index", "--embed", "none", str(sample_repo))
    status = json.loads(run_cli("status", "--json", str(sample_repo)).stdout)
    assert status["skipped"] == {"secret": 1, "lockfile": 1, "binary": 1}
    human = run_cli("status", str(sample_repo)).stdout
    assert "secret 1" in human


def test_index_and_status_count_the_same_files(sample_repo: Path) -> None:
    """A file skipped on reading (NUL bytes in a .txt) is read by the run but is not in
    the index: the run's summary counts what `status` counts, and says what it skipped."""
    write_tree(sample_repo, {"notes.txt": b"a\x00b", ".env": "KEY=1\n"})
    ran = run_cli("index", "--embed", "none", str(sample_repo))
    assert ran.returncode == 0, ran.stderr
    status = json.loads(run_cli("status", "--json", str(sample_repo)).stdout)
    assert f"{status['files']} files indexed" in ran.stdout
    assert "binary 1" in ran.stdout and "secret 1" in ran.stdout
    report = json.loads(run_cli("index", "--json", "--embed", "none", str(sample_repo)).stdout)
    assert report["files_indexed"] == status["files"]
    assert report["skipped_in_index"] == status["skipped"]


# "\udcff\udcfe": the bytes ff fe, not UTF-8, as Python receives them from a shell
@pytest.mark.parametrize("query", ["", "   ", "!!!", "\udcff\udcfeoption", "x" * 8001])
def test_bad_queries_fail_with_one_line(sample_repo: Path, query: str) -> None:
    proc = run_cli("search", query, str(sample_repo))
    assert proc.returncode == 1
    _no_traceback(proc)
    assert proc.stderr.strip().startswith("error:")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_bad_paths_fail_clearly(tmp_path: Path) -> None:
    missing = run_cli("search", "x", str(tmp_path / "nope"))
    assert missing.returncode == 1 and "no such directory" in missing.stderr
    _no_traceback(missing)
    (tmp_path / "file.py").write_text("x = 1\n")
    not_dir = run_cli("index", str(tmp_path / "file.py"))
    assert not_dir.returncode == 1 and "not a directory" in not_dir.stderr
    assert "give the folder it is in" in not_dir.stderr


def test_a_setting_that_is_not_a_number_falls_back_with_one_line(tmp_path: Path) -> None:
    """Every command reads the settings at import: a bad value was a traceback before
    any command could run. Now it is one line each, the default, and the command runs
    (its worker processes inherit the default, and say nothing more)."""
    write_tree(tmp_path, {"tool.py": "def frobnicate():\n    return 42\n"})
    bad = {
        "SLEUTH_MAX_FILE_BYTES": "1e6",
        "SLEUTH_INDEX_WORKERS": "0",
        "SLEUTH_PARSE_SECONDS": "nan",
    }
    proc = run_cli("search", "frobnicate", str(tmp_path), env=bad)
    assert proc.returncode == 0 and "tool.py:1-2" in proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.startswith("sleuth: SLEUTH_")]
    assert lines == [
        "sleuth: SLEUTH_MAX_FILE_BYTES='1e6' is not a whole number >= 1; using 1000000",
        "sleuth: SLEUTH_PARSE_SECONDS='nan' is not a number >= 0.0; using 5.0",
        f"sleuth: SLEUTH_INDEX_WORKERS='0' is not a whole number >= 1; using "
        f"{min(4, os.cpu_count() or 1)}",
    ]
    _no_traceback(proc)


def test_empty_and_non_git_directories(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_cli("search", "anything", str(empty))
    assert proc.returncode == 1
    assert "no results" in proc.stderr and "empty" in proc.stderr
    _no_traceback(proc)
    plain = tmp_path / "plain"
    write_tree(plain, {"tool.py": "def frobnicate():\n    return 42\n"})
    found = run_cli("search", "frobnicate", str(plain))
    assert found.returncode == 0 and "tool.py:1-2" in found.stdout


def test_corrupt_index_gives_hint_and_full_rebuild_repairs(sample_repo: Path) -> None:
    assert run_cli("index", "--embed", "none", str(sample_repo)).returncode == 0
    meta = sample_repo / ".sleuth" / "meta.db"
    for extra in ("meta.db-wal", "meta.db-shm"):
        (sample_repo / ".sleuth" / extra).unlink(missing_ok=True)
    meta.write_bytes(b"this is not a database" * 100)
    broken = run_cli("search", "parse_config", str(sample_repo))
    assert broken.returncode == 1
    assert "sleuth index --full" in broken.stderr
    _no_traceback(broken)
    fixed = run_cli("index", "--full", "--embed", "none", str(sample_repo))
    assert fixed.returncode == 0, fixed.stderr
    again = run_cli("search", "--mode", "lexical", "parse_config", str(sample_repo))
    assert again.returncode == 0 and "src/config/parser.py" in again.stdout


@pytest.mark.parametrize("args", [["search", "retry failed upload"], ["search", "--json", "retry"]])
def test_a_reader_that_stops_early_is_no_error(sample_repo: Path, args: list[str]) -> None:
    """`sleuth search ... | head -1`: the reader is gone before the answer is written."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sleuth.cli.main", *args, str(sample_repo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # closed before sleuth writes: every write meets a broken pipe
    stderr = proc.stderr.read()
    assert proc.wait(timeout=300) == 0, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr


def test_no_results_says_why(sample_repo: Path) -> None:
    proc = run_cli("search", "--lang", "haskell", "retry", str(sample_repo))
    assert proc.returncode == 1
    assert "filters" in proc.stderr


def _as_nobody(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-m",
            "sleuth.cli.main",
            *args,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": "/tmp"},
    )


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv to drop root")
def test_unreadable_file_and_directory(tmp_path: Path) -> None:
    # root reads everything, so the check runs as nobody in a world-writable folder
    base = Path(tempfile.mkdtemp(prefix="sleuth-unreadable-", dir="/tmp"))
    try:
        base.chmod(0o777)
        root = base / "repo"
        write_tree(
            root,
            {
                "open.py": "def visible():\n    pass\n",
                "closed.py": "def hidden():\n    pass\n",
                "locked/inner.py": "x = 1\n",
            },
        )
        root.chmod(0o777)
        (root / "closed.py").chmod(0)
        (root / "locked").chmod(0)
        run = _as_nobody if os.geteuid() == 0 else run_cli
        proc = run("index", "--embed", "none", "--json", str(root))
        assert proc.returncode == 0, proc.stderr
        _no_traceback(proc)
        skipped = json.loads(proc.stdout)["skipped"]
        assert skipped.get("unreadable") == 2
        found = run("search", "--mode", "lexical", "visible", str(root))
        assert found.returncode == 0 and "open.py" in found.stdout
        denied = run("index", str(root / "locked"))
        assert denied.returncode == 1 and "cannot read directory" in denied.stderr
        _no_traceback(denied)
    finally:
        for path in base.rglob("*"):
            path.chmod(0o777)
        shutil.rmtree(base)


def test_an_index_this_user_cannot_write_is_not_called_damaged() -> None:
    base = Path(tempfile.mkdtemp(prefix="sleuth-readonly-", dir="/tmp"))
    try:
        root = base / "repo"
        write_tree(root, {"open.py": "def visible():\n    pass\n"})
        assert run_cli("index", "--embed", "none", str(root)).returncode == 0
        for path in (base, *base.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
        if os.geteuid() == 0:
            run = _as_nobody  # root writes anywhere: search as another user
        else:
            run = run_cli
            for path in (root / ".sleuth", *(root / ".sleuth").rglob("*")):
                path.chmod(0o555 if path.is_dir() else 0o444)
        proc = run("search", "--mode", "lexical", "--no-refresh", "visible", str(root))
        assert proc.returncode == 1
        assert "cannot write the index" in proc.stderr and "damaged" not in proc.stderr
        _no_traceback(proc)
    finally:
        for path in base.rglob("*"):
            path.chmod(0o777)
        shutil.rmtree(base)


def test_search_help_teaches_the_query_syntax() -> None:
    """`sleuth search --help` shows what a query may hold, filters and file names."""
    shown = run_cli("search", "--help")
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    for part in ("symbol:NAME", "path:src/**", "type:tests", "keylog.h"):
        assert part in text


def test_version_prints_the_installed_version() -> None:
    """`sleuth --version` answers with the package's version, as bug reports need."""
    from importlib.metadata import version

    shown = run_cli("--version")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == f"sleuth {version('sleuth')}"
