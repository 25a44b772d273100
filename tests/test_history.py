"""History search over real git repositories built by the tests: ranking, filters, edges."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from sleuth import Index
from sleuth.history import HistoryIndex
from sleuth.history.digest import MAX_DIGEST_CHARS, MAX_IDENTIFIERS

from .conftest import run_cli
from .gitrepo import build_history_repo, commit, git


@pytest.fixture(scope="module")
def history_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """Built and indexed once with every vector; tests that write use their own copy."""
    root = tmp_path_factory.mktemp("history") / "repo"
    shas = build_history_repo(root)
    HistoryIndex(root).update(embed="deep")
    return root, shas


def _subjects(response) -> list[str]:
    return [r.subject for r in response.results]


def _shas(response) -> set[str]:
    return {r.sha for r in response.results}


def test_why_question_ranks_the_commits_that_changed_the_retry_logic_first(history_repo):
    root, shas = history_repo
    response = Index(root).history("when did we change the retry logic", k=5)
    assert response.mode == "hybrid"
    assert response.embedded_fraction == 1.0
    top_two = {r.sha for r in response.results[:2]}
    assert top_two == {shas["retry"], shas["jitter"]}


@pytest.mark.parametrize("mode", ["lexical", "semantic", "hybrid"])
def test_each_mode_finds_the_config_commit(history_repo, mode):
    root, shas = history_repo
    response = HistoryIndex(root).search("parse yaml settings", 3, mode=mode)
    assert response.results[0].sha == shas["config"]
    assert response.mode == mode


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_words_longer_than_the_index_keeps_are_no_error(history_repo, mode):
    """A pasted hash beside another long word: nothing to match lexically, no failure."""
    root, shas = history_repo
    index = HistoryIndex(root)
    assert index.search("a" * 45 + " " + "9" * 52, 3, mode="lexical").results == []
    response = index.search("f" * 60 + " parse yaml settings " + "0" * 44, 3, mode=mode)
    # (the long words still pull the query's vector off: among the three, not first)
    assert shas["config"] in {r.sha for r in response.results}


def test_author_filter_keeps_only_that_authors_commits(history_repo):
    root, shas = history_repo
    response = HistoryIndex(root).search("upload", 10, author="bob")
    assert _shas(response) == {shas["retry"], shas["jitter"]}
    by_email = HistoryIndex(root).search("upload", 10, author="carol@example.com")
    assert {r.author for r in by_email.results} == {"Carol"}


def test_since_and_until_bound_the_author_date(history_repo):
    root, shas = history_repo
    response = HistoryIndex(root).search(
        "upload settings delay", 10, since="2023-09-01", until="2023-09-12"
    )
    assert _shas(response) == {shas["jitter"], shas["docs"]}
    later = HistoryIndex(root).search("parser", 10, since="2024-01-01")
    assert _shas(later) == {shas["remove_xml"]}


def test_path_filter_follows_renames_and_merges(history_repo):
    root, shas = history_repo
    old_name = HistoryIndex(root).search("upload", 10, path="src/upload.py")
    assert _shas(old_name) == {shas["add_upload"], shas["retry"], shas["move"]}
    new_home = HistoryIndex(root).search("upload", 10, path="src/net/**")
    assert _shas(new_home) == {shas["move"], shas["jitter"], shas["merge"]}
    folder = HistoryIndex(root).search("settings", 10, path="docs")
    assert _shas(folder) == {shas["docs"]}


def test_filters_that_match_nothing_say_so(history_repo):
    root, _ = history_repo
    response = HistoryIndex(root).search("upload", 10, author="nobody-here")
    assert response.results == []
    assert response.reason == "no commit passes the filters"


def test_rename_merge_and_delete_are_recorded(history_repo):
    root, shas = history_repo
    store = HistoryIndex(root)._open()
    rows = {r.sha: r for r in store.iter_commits()}
    assert len(rows) == 8
    moved = rows[shas["move"]].files
    assert [(f.status, f.old_path, f.path) for f in moved] == [
        ("R", "src/upload.py", "src/net/upload.py")
    ]
    merge = rows[shas["merge"]]
    assert len(merge.parents) == 2
    assert [f.path for f in merge.files] == ["src/net/upload.py"]
    removed = rows[shas["remove_xml"]].files
    assert [(f.status, f.path, f.removed) for f in removed] == [("D", "src/xml_parser.py", 5)]
    retry = rows[shas["retry"]]
    assert "retry_upload" in retry.added_ids
    assert "@@" in retry.digest and "+ def retry_upload" in retry.digest


def test_diff_shows_the_matching_hunk(history_repo):
    root, shas = history_repo
    response = HistoryIndex(root).search("random jitter delay", 1, diff=True)
    result = response.results[0]
    assert result.sha == shas["jitter"]
    assert result.hunks, "the jitter commit has a hunk"
    assert result.hunks[0].path == "src/net/upload.py"
    assert "random.random()" in result.hunks[0].text
    assert result.hunks[0].header.startswith("@@")


def test_cli_json_output(history_repo):
    root, shas = history_repo
    proc = run_cli("history", "--json", "-k", "2", "exponential backoff", str(root))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {
        "query",
        "mode",
        "query_class",
        "embedded_fraction",
        "commits_indexed",
        "reason",
        "notices",
        "results",
    }
    first = data["results"][0]
    assert set(first) == {
        "sha",
        "date",
        "author",
        "email",
        "subject",
        "files",
        "score",
        "body",
        "parents",
        "hunks",
    }
    assert first["sha"] == shas["retry"]
    assert first["date"].startswith("2023-03-05")
    assert first["author"] == "Bob"
    assert first["files"] == ["src/upload.py"]
    assert data["commits_indexed"] == 8


def test_cli_human_output_and_diff(history_repo):
    root, shas = history_repo
    proc = run_cli("history", "--diff", "-k", "1", "--author", "bob", "jitter delay", str(root))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(shas["jitter"][:10])
    assert "2023-09-10" in lines[0] and "Bob" in lines[0]
    assert "Add random jitter" in lines[1]
    assert "files: src/net/upload.py" in lines[2]
    assert any("random.random()" in line for line in lines)


def test_cli_bad_date_is_one_clear_line(history_repo):
    root, _ = history_repo
    proc = run_cli("history", "retry", str(root), "--since", "last tuesdayish")
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: could not read the date")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("date", ["0001-01-01", "99999999999 days ago", "100000 years ago"])
def test_a_date_out_of_range_is_one_clear_line(history_repo, date):
    """Python cannot put 1 January of year 1 into local time (it looks at the day
    before, in year 0), nor go back 10^11 days: a clear error, not a traceback."""
    root, _ = history_repo
    proc = run_cli("history", "retry", str(root), "--since", date)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: the date '{date}' is out of range")


def test_incremental_update_reads_only_new_commits(tmp_path):
    root = tmp_path / "repo"
    build_history_repo(root)
    history = HistoryIndex(root)
    assert history.update(embed="none").new_commits == 8
    assert history.update(embed="none").new_commits == 0
    sha = commit(
        root,
        "Cap the retry delay at thirty seconds",
        "Erin",
        "2024-03-01T10:00:00+00:00",
        {"src/net/limits.py": "MAX_DELAY = 30\n"},
    )
    report = history.update(embed="none")
    assert report.new_commits == 1
    assert report.total_commits == 9
    response = history.search("cap retry delay", 1, mode="lexical")
    assert response.results[0].sha == sha
    # A branch switch only walks what the new branch adds.
    git(root, "checkout", "-q", "-b", "side", "HEAD~2")
    commit(root, "Side work", "Erin", "2024-03-02T10:00:00+00:00", {"side.txt": "x\n"})
    assert history.update(embed="none").new_commits == 1


def test_interrupted_lexical_index_is_repaired(tmp_path):
    root = tmp_path / "repo"
    build_history_repo(root)
    history = HistoryIndex(root)
    history.update(embed="none")
    history._open().set("lexical_dirty", 1)
    history.close()
    shutil.rmtree(history.layout.lexical)
    fresh = HistoryIndex(root)
    report = fresh.update(embed="none")
    assert any("repaired" in n for n in report.notices)
    assert fresh.search("legacy xml parser", 1, mode="lexical").results


def test_big_commit_digest_is_bounded(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    files = {
        f"gen/module_{i}.py": "\n".join(f"value_{i}_{j} = {j}" for j in range(200))
        for i in range(60)
    }
    commit(root, "Import generated tables", "Alice", "2024-01-01T00:00:00+00:00", files)
    history = HistoryIndex(root)
    history.update(embed="none")
    row = next(history._open().iter_commits())
    assert len(row.files) == 60
    assert len(row.digest) <= MAX_DIGEST_CHARS
    assert len(row.added_ids) <= MAX_IDENTIFIERS
    assert sum(f.added for f in row.files) == 60 * 200


def test_secret_files_leave_nothing_in_the_history(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEzzsecretkeybody\n"
    files = {
        ".env": "DB_PASSWORD=zzsecretenvvalue\n",
        ".npmrc": "//registry.npmjs.org/:_authToken=zzsecretnpmtoken\n",
        "deploy_key": key + "-----END OPENSSH PRIVATE KEY-----\n",
        "app.py": "def connect():\n    return open_pool()\n",
    }
    commit(root, "Add deployment settings", "Alice", "2024-01-01T00:00:00+00:00", files)
    history = HistoryIndex(root)
    history.update(embed="none")
    row = next(history._open().iter_commits())
    stored = row.digest + " ".join(row.added_ids)
    for secret in ("zzsecretenvvalue", "zzsecretnpmtoken", "zzsecretkeybody", "PRIVATE"):
        assert secret not in stored, secret
        assert not history.search(secret, 5, mode="lexical").results, secret
    assert "open_pool" in row.added_ids  # the code of the same commit is kept
    found = history.search("open_pool", 5, mode="lexical", diff=True)
    hunks = found.results[0].hunks
    assert [h.path for h in hunks] == ["app.py"]


def test_not_a_git_repository(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    proc = run_cli("history", "anything", str(plain))
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: not a git repository")
    assert "Traceback" not in proc.stderr


def test_repository_without_commits(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    git(root, "init", "-q")
    proc = run_cli("history", "anything", str(root))
    assert proc.returncode == 1
    assert "has no commits yet" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_detached_head_is_indexed_with_a_notice(tmp_path):
    root = tmp_path / "repo"
    shas = build_history_repo(root)
    git(root, "checkout", "-q", "--detach", shas["move"])
    report = HistoryIndex(root).update(embed="none")
    assert report.branch == ""
    assert report.total_commits == 4
    assert any(n.startswith("detached HEAD at") for n in report.notices)
    proc = run_cli("history", "upload", str(root), "--mode", "lexical")
    assert proc.returncode == 0


def test_shallow_clone_is_indexed_with_a_notice_and_deepened_later(tmp_path):
    source = tmp_path / "source"
    build_history_repo(source)
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", f"file://{source}", str(clone)], check=True
    )
    history = HistoryIndex(clone)
    report = history.update(embed="none")
    assert any(n.startswith("shallow clone") for n in report.notices)
    shallow_count = report.total_commits
    assert 2 <= shallow_count < 8
    git(clone, "fetch", "-q", "--unshallow")
    deeper = history.update(embed="none")
    assert deeper.total_commits == 8
    assert deeper.new_commits == 8 - shallow_count
    assert not any(n.startswith("shallow clone") for n in deeper.notices)


def test_missing_objects_keep_every_commit_searchable(tmp_path):
    """A damaged or partial clone: git cannot diff some commits; the walk goes on."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    first = commit(root, "Add the cache", "Alice", "2024-01-01T00:00:00+00:00", {"c.py": "A=1\n"})
    commit(root, "Grow the cache", "Bob", "2024-02-01T00:00:00+00:00", {"c.py": "A=2\n"})
    last = commit(
        root, "Add the scheduler", "Carol", "2024-03-01T00:00:00+00:00", {"s.py": "B=1\n"}
    )
    blob = git(root, "rev-parse", f"{first}:c.py").strip()
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    report = HistoryIndex(root).update(embed="none")
    assert report.total_commits == 3
    assert any("could not be fully diffed" in n for n in report.notices)
    history = HistoryIndex(root)
    assert history.search("cache", 5, mode="lexical").results
    top = history.search("scheduler", 1, mode="lexical").results[0]
    assert top.sha == last and top.files == ["s.py"]


def test_status_reports_history(history_repo):
    root, _ = history_repo
    Index(root).index(embed="none")
    proc = run_cli("status", "--json", str(root))
    assert proc.returncode == 0, proc.stderr
    history = json.loads(proc.stdout)["history"]
    assert history["commits"] == 8
    assert history["embedded_fraction"] == 1.0
    human = run_cli("status", str(root))
    assert "history      8 commits, 100% with vectors" in human.stdout


def test_an_older_history_format_is_rebuilt_with_a_notice(tmp_path):
    root = tmp_path / "repo"
    build_history_repo(root)
    history = HistoryIndex(root)
    history.update(embed="none")
    history._open().set("schema_version", 0)
    history.close()
    fresh = HistoryIndex(root)
    report = fresh.update(embed="none")
    assert "history index format changed: rebuilding it" in report.notices
    assert report.new_commits == 8 and report.total_commits == 8


def test_a_history_indexed_with_older_terms_rebuilds_its_word_index(tmp_path):
    """Subjects in other scripts gave no terms before TERMS_VERSION 2: an index built
    then is rebuilt from its own store (no git walk, no embedding), with a notice."""
    root = tmp_path / "repo"
    build_history_repo(root)
    sha = commit(
        root,
        "Größe der Bestellung prüfen",
        "Erin",
        "2024-03-01T10:00:00+00:00",
        {"order.py": "x = 1\n"},
    )
    history = HistoryIndex(root)
    history.update(embed="none")
    store = history._open()
    store.set("terms_version", 1)
    history.close()
    fresh = HistoryIndex(root)
    report = fresh.update(embed="none")
    assert "the history's word index was rebuilt" in " ".join(report.notices)
    assert report.new_commits == 0 and report.total_commits == 9
    found = fresh.search("größe bestellung", 3, mode="lexical").results
    assert found and found[0].sha == sha
    fresh.close()
    again = HistoryIndex(root).update(embed="none")
    assert not any("rebuilt" in notice for notice in again.notices)


def test_progress_and_background_embedding(tmp_path):
    root = tmp_path / "repo"
    build_history_repo(root)
    calls: list[tuple[str, int, int]] = []

    def progress(phase: str, done: int, total: int, note: str = "") -> None:
        calls.append((phase, done, total))

    history = HistoryIndex(root)
    report = history.update(progress, embed="background")
    assert calls[-1] == ("history", 8, 8)
    assert report.pending == 8 and report.background
    deadline = time.monotonic() + 120
    while history._open().pending_count() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert history._open().pending_count() == 0
    while history.background_embedder_pid() and time.monotonic() < deadline:
        time.sleep(0.2)
    response = history.search("exponential backoff for uploads", 1)
    assert response.mode == "hybrid" and response.embedded_fraction == 1.0
    assert response.results[0].subject.startswith("Retry failed uploads")


def test_cli_no_match_exits_1_with_the_reason(history_repo):
    root, _ = history_repo
    proc = run_cli("history", "upload", str(root), "--author", "nobody-here")
    assert proc.returncode == 1
    assert "no commits for 'upload': no commit passes the filters" in proc.stderr
    assert proc.stdout == ""


def test_a_history_longer_than_one_batch_is_indexed_whole(tmp_path, monkeypatch):
    """More commits than one batch: the batches commit in turn (regression: a renamed
    setting made every history of 500+ commits stop after its first batch)."""
    from sleuth import config
    from sleuth.history import index as history_index

    monkeypatch.setattr(history_index, "BATCH_COMMITS", 3)
    monkeypatch.setattr(config, "COMMIT_SECONDS", 0.0)
    root = tmp_path / "repo"
    build_history_repo(root)
    history = HistoryIndex(root)
    assert history.update(embed="none").new_commits == 8
    assert history.search("upload", 10, mode="lexical").results


def test_a_filter_that_leaves_one_commit_still_answers_in_semantic_mode(history_repo):
    root, shas = history_repo
    response = HistoryIndex(root).search("parser", 10, since="2024-01-01", mode="semantic")
    assert _shas(response) == {shas["remove_xml"]}
