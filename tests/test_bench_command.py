"""`sleuth bench` end to end on a miniature benchmark with the shared scorer."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import run_cli, write_tree
from .gitrepo import git

#: The shared benchmark beside the project (bench/README.md); its scorer and its export
#: script are not ours to copy.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench"
SCORER = SHARED / "score.py"
PREPARE = SHARED / "prepare.py"

FILES = {
    "src/uploads/retry.py": (
        "def retry_failed_upload(upload, attempts=3):\n"
        '    """Retry a failed upload with exponential backoff."""\n'
        "    for attempt in range(attempts):\n        upload.send()\n"
    ),
    "src/config.py": "def parse_config(text):\n    return dict(text)\n",
    "src/server.py": "def serve(port):\n    return port\n",
    "README.md": "# mini\n",  # outside the benchmark root: never indexed
}

TASKS = [
    {
        "query": "where are failed uploads retried with backoff",
        "relevant": ["src/uploads/retry.py"],
        "secondary": [],
        "category": "semantic",
    },
    {"query": "parse_config", "relevant": ["src/config.py"], "secondary": [], "category": "symbol"},
]


@pytest.mark.skipif(not SCORER.exists(), reason="the shared benchmark is not beside the project")
def test_bench_exports_indexes_queries_and_scores(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    (bench / "annotations").mkdir(parents=True)
    shutil.copy(SCORER, bench / "score.py")
    spec = {"name": "mini", "language": "python", "url": "", "revision": "0" * 40}
    (bench / "repos.json").write_text(json.dumps([{**spec, "benchmark_root": "src"}]))
    (bench / "dev.txt").write_text("mini\n")
    (bench / "annotations" / "mini.json").write_text(json.dumps(TASKS))
    write_tree(tmp_path / "cache" / "mini", FILES)
    out = tmp_path / "results.jsonl"
    args = ["--bench-dir", str(bench), "--cache", str(tmp_path / "cache"), "--out", str(out)]
    proc = run_cli("bench", *args, "--mode", "lexical")
    assert proc.returncode == 0, proc.stderr
    assert "OVERALL" in proc.stdout and "mini" in proc.stdout
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["query"] for line in lines] == [task["query"] for task in TASKS]
    # paths carry the benchmark root, as the annotations write them
    firsts = [line["results"][0]["path"] for line in lines]
    assert firsts == ["src/uploads/retry.py", "src/config.py"]
    summary = json.loads(out.with_suffix(".summary.json").read_text())
    assert summary["ndcg"] == 1.0 and summary["queries"] == 2
    assert summary["timing"]["query_p50_ms"] > 0

    # a subset that names no export says so, without calling the scorer
    missing = run_cli("bench", *args, "--cache", str(tmp_path / "nowhere"))
    assert missing.returncode == 1
    assert "no exported repository" in missing.stderr and "Traceback" not in missing.stderr


@pytest.mark.skipif(not PREPARE.exists(), reason="the shared benchmark is not beside the project")
def test_bench_exports_missing_repositories_from_git_mirrors(tmp_path: Path) -> None:
    """With no export yet, `sleuth bench` makes it from a git mirror at the pinned
    revision (the benchmark's prepare.py), then indexes, queries and scores it."""
    work = tmp_path / "work"
    write_tree(work, FILES)
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", "pinned")
    pinned = git(work, "rev-parse", "HEAD").strip()
    # a later commit the benchmark is not pinned to: the export must not hold it
    write_tree(work, {"src/later.py": "def later():\n    return 1\n"})
    git(work, "add", "-A")
    git(work, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", "later")
    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(work), str(mirrors / "owner+mini" / "repo")],
        check=True,
    )
    bench = tmp_path / "bench"
    (bench / "annotations").mkdir(parents=True)
    shutil.copy(SCORER, bench / "score.py")
    shutil.copy(PREPARE, bench / "prepare.py")
    spec = {"name": "mini", "language": "python", "url": "https://github.com/owner/mini.git"}
    spec |= {"revision": pinned, "benchmark_root": "src"}
    (bench / "repos.json").write_text(json.dumps([spec]))
    (bench / "dev.txt").write_text("mini\n")
    (bench / "annotations" / "mini.json").write_text(json.dumps(TASKS))
    cache, out = tmp_path / "cache", tmp_path / "results.jsonl"
    args = ["--bench-dir", str(bench), "--cache", str(cache), "--out", str(out)]

    proc = run_cli("bench", *args, "--mirrors", str(mirrors), "--mode", "lexical")
    assert proc.returncode == 0, proc.stderr
    assert "exporting" in proc.stdout and "OVERALL" in proc.stdout
    assert (cache / "mini" / "src" / "config.py").is_file()
    assert not (cache / "mini" / "src" / "later.py").exists()
    assert not (cache / "mini" / "README.md").exists()  # only the benchmark root
    summary = json.loads(out.with_suffix(".summary.json").read_text())
    assert summary["ndcg"] == 1.0 and summary["queries"] == 2

    # a repository no mirror holds is named, without a traceback
    elsewhere = tmp_path / "empty-mirrors"
    elsewhere.mkdir()
    missing = run_cli(
        "bench", *args, "--cache", str(tmp_path / "other"), "--mirrors", str(elsewhere)
    )
    assert missing.returncode == 1
    assert "--mirrors" in missing.stderr and "Traceback" not in missing.stderr
