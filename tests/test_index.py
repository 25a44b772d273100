"""Incremental indexing, rebuilds on model or schema change, damage recovery."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sleuth import Index, api, config, languages
from sleuth.store.meta import MetaStore

from .conftest import write_tree


def _paths(index: Index) -> set[str]:
    meta = MetaStore(index.layout.meta)
    try:
        rows = meta.db.execute(
            "SELECT DISTINCT f.path FROM chunks c JOIN files f ON f.id=c.file_id"
        ).fetchall()
        return {r[0] for r in rows}
    finally:
        meta.close()


def _set_state(index: Index, key: str, value: str) -> None:
    """Write one state value as an older sleuth would have left it."""
    index.close()
    meta = MetaStore(index.layout.meta)
    meta.set(key, value)
    meta.close()


def _lexical_hits(index: Index, query: str) -> set[str]:
    return {r.path for r in index.search(query, k=20, mode="lexical").results}


def test_incremental_edit_delete_rename_and_newly_ignored(sample_repo: Path) -> None:
    index = Index(sample_repo)
    first = index.index(embed="none").update
    assert first.changed == 6 and first.removed == 0

    again = index.index(embed="none").update
    assert again.changed == 0 and again.unchanged == 6 and again.chunks_written == 0

    # edit: only that file is re-chunked, and the new text is searchable
    retry = sample_repo / "src/uploads/retry.py"
    retry.write_text(retry.read_text() + "\n\ndef quarantine_upload(u):\n    return u\n")
    edited = index.index(embed="none").update
    assert edited.changed == 1
    assert "src/uploads/retry.py" in _lexical_hits(index, "quarantine_upload")

    # touched but identical content: read, hash equal, nothing re-chunked
    os.utime(sample_repo / "src/app.py", ns=(1, 1))
    touched = index.index(embed="none").update
    assert touched.changed == 0 and touched.chunks_written == 0

    # delete
    (sample_repo / "web/server.js").unlink()
    deleted = index.index(embed="none").update
    assert deleted.removed == 1
    assert "web/server.js" not in _paths(index)
    assert "web/server.js" not in _lexical_hits(index, "startServer")

    # rename
    (sample_repo / "src/config/parser.py").rename(sample_repo / "src/config/settings.py")
    renamed = index.index(embed="none").update
    assert renamed.removed == 1 and renamed.changed == 1
    assert _lexical_hits(index, "ConfigParser") >= {"src/config/settings.py"}
    assert "src/config/parser.py" not in _paths(index)

    # newly ignored
    (sample_repo / ".gitignore").write_text("docs/\n")
    ignored = index.index(embed="none").update
    assert ignored.removed == 1
    assert "docs/guide.md" not in _paths(index)


def test_unchanged_repository_embeds_nothing(sample_repo: Path) -> None:
    index = Index(sample_repo)
    first = index.index(embed="deep")
    assert first.embedded > 0 and first.pending == 0
    second = index.index(embed="deep")
    assert second.embedded == 0 and second.pending == 0
    # an edit re-embeds only the changed chunks
    path = sample_repo / "web/server.js"
    path.write_text(path.read_text() + "\nfunction stopServer(s) { s.close(); }\n")
    third = index.index(embed="deep")
    assert 0 < third.embedded <= 2


def test_a_run_that_finds_nothing_to_change_writes_nothing(sample_repo: Path) -> None:
    """A search refreshes the index first; on an unchanged tree that refresh commits
    nothing (no SQLite write, no tantivy commit). A change of any kind still lands."""
    index = Index(sample_repo)
    index.index(embed="static")

    def commits() -> tuple[str, int]:
        meta = index._open()
        version = meta.db.execute("PRAGMA data_version").fetchone()[0]
        return meta.get("lexical_commit", "0") or "0", version

    before = commits()
    report = index.index(embed="static")
    assert report.update.changed == report.update.removed == 0
    assert commits() == before
    assert index.search("retry failed upload", mode="lexical").results
    # a new secret file changes only the skipped list: the run writes it
    (sample_repo / ".env").write_text("TOKEN=1\n")
    index.index(embed="static")
    assert commits()[0] != before[0]
    assert index.status()["skipped"].get("secret") == 1
    # and an edit is indexed as ever
    after_secret = commits()
    path = sample_repo / "web/server.js"
    path.write_text(path.read_text() + "\nfunction stopServer(s) { s.close(); }\n")
    assert index.index(embed="static").update.changed == 1
    assert commits()[0] != after_secret[0]
    top = index.search("stopServer", mode="lexical").results[0]
    assert top.path == "web/server.js" and "stopServer" in top.preview


def test_model_change_triggers_clean_re_embed(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="deep")
    _set_state(index, "embed_model", "some-older-model")

    reopened = Index(sample_repo)
    report = reopened.index(embed="deep")
    assert any("embedding model changed" in n for n in report.notices)
    assert report.embedded == reopened.status()["chunks"] > 0


def test_schema_change_rebuilds_with_a_message(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="none")
    index.close()
    db = sqlite3.connect(index.layout.meta)
    db.execute("UPDATE state SET value='0' WHERE key='schema_version'")
    db.commit()
    db.close()
    reopened = Index(sample_repo)
    report = reopened.index(embed="none")
    assert any("rebuilding" in n for n in report.notices)
    assert report.update.changed == 6
    assert reopened.search("parse_config", mode="lexical").results


def test_interrupted_lexical_write_is_repaired_from_sqlite(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="none")
    # a crash between the SQLite commit and the tantivy commit leaves the flag set
    _set_state(index, "lexical_dirty", "1")
    for child in (index.layout.lexical).iterdir():
        child.unlink()
    reopened = Index(sample_repo)
    report = reopened.index(embed="none")
    assert report.update.lexical_rebuilt
    assert reopened.search("retry_failed_upload", mode="lexical").results[0].path == (
        "src/uploads/retry.py"
    )


def test_index_folder_ignores_itself(sample_repo: Path) -> None:
    Index(sample_repo).index(embed="none")
    assert (sample_repo / ".sleuth" / ".gitignore").read_text() == "*\n"


def test_bad_files_are_skipped_with_reasons_and_index_stays_intact(tmp_path: Path) -> None:
    root = tmp_path / "bad"
    write_tree(
        root,
        {
            "good.py": "def fine():\n    return 1\n",
            "blob.dat2": b"\x00\x01\x02binary\x00" * 100,
            "latin.py": b"def caf\xe9():\n    return 'ol\xe9'\n",
            "bundle.js": "var a=1;" * (500_000 // 8),  # minified, under the size limit
            # a licence header does not make a bundle code
            "vendor.js": "/*!\n" + " * licence line\n" * 20 + " */\n" + "f(1);" * 40_000,
            # ... but one long line of data in a file of code does not make it minified
            "icons.js": "".join(
                f"export function icon{i}() {{\n  return {i}\n}}\n" for i in range(30)
            )
            + 'export const LOGO = "'
            + "QUJD" * 25_000
            + '"\n',
            "huge.min2.js": "x" * 5_000_000,  # 5 MB: over the size limit
            "long.py": "x=0\n" * 199_999 + "final_marker = 1\n",  # 200k lines, under 1 MB
        },
    )
    (root / "loop").symlink_to(root, target_is_directory=True)
    index = Index(root)
    report = index.index(embed="none")
    status = index.status()
    assert status["skipped"]["binary"] == 1
    assert status["skipped"]["minified"] == 2
    assert status["skipped"]["too_large"] >= 1
    assert status["skipped"]["symlink"] == 1
    assert report.update.scanned >= 3
    assert index.search("fine", mode="lexical").results[0].path == "good.py"
    assert index.search("final_marker", mode="lexical").results[0].path == "long.py"
    assert index.search("icon17", mode="lexical").results[0].path == "icons.js"
    assert any(r.path == "latin.py" for r in index.search("caf", mode="lexical").results)


def test_chunker_change_rechunks_but_keeps_vectors(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="deep")
    _set_state(index, "chunker_version", "0")
    reopened = Index(sample_repo)
    report = reopened.index(embed="deep")
    assert any("re-chunking" in n for n in report.notices)
    assert report.update.changed == 6
    assert report.embedded == 0  # same chunk texts: every vector comes from the cache


def test_a_search_does_not_mark_an_old_chunking_as_current(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="none")
    _set_state(index, "chunker_version", "0")
    Index(sample_repo).search("retry", mode="lexical")  # opens the index, re-chunks nothing
    report = Index(sample_repo).index(embed="none")
    assert any("re-chunking" in n for n in report.notices)
    assert report.update.changed == 6
    assert not any("re-chunking" in n for n in Index(sample_repo).index(embed="none").notices)


def _stored(index: Index) -> tuple[list[tuple], list[tuple], int]:
    """Chunks and definitions by path (ids left out), and the tantivy document count."""
    meta = MetaStore(index.layout.meta)
    try:
        chunks = meta.db.execute(
            "SELECT f.path, c.start_line, c.end_line, c.kind, c.symbol, c.parent, c.signature,"
            " c.symbols, c.text, c.hash FROM chunks c JOIN files f ON f.id=c.file_id"
            " ORDER BY 1, 2, 3"
        ).fetchall()
        definitions = meta.db.execute(
            "SELECT f.path, d.name, d.kind, d.parent, d.start_line, d.end_line, d.signature"
            " FROM definitions d JOIN files f ON f.id=d.file_id ORDER BY 1, 2, 5"
        ).fetchall()
    finally:
        meta.close()
    return chunks, definitions, index.status()["chunks"]


def _big_tree(root: Path, version: int) -> Path:
    """450 files: enough for the worker processes (400+ files to index)."""
    return write_tree(
        root,
        {
            f"pkg_{a}/mod_{u}.py": (
                f"class Store{a}x{u}:\n    def save_{version}(self, item):\n"
                f"        return item * {u}\n\n\ndef load_config_{a}_{u}_{version}(path):\n"
                f"    return open(path).read()\n"
            )
            for a in range(15)
            for u in range(30)
        },
    )


def test_worker_processes_store_what_one_process_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parallel path (records as tuples, one insert per batch, rewrites of known
    files) stores exactly what preparing in the writer process stores."""
    monkeypatch.setattr(config, "INDEX_WORKERS", 2)
    parallel = Index(_big_tree(tmp_path / "parallel", 1))
    report = parallel.index(embed="none").update
    assert report.changed == 450
    _big_tree(tmp_path / "parallel", 2)  # every file rewritten: old rows must go
    for path in (tmp_path / "parallel").rglob("*.py"):
        os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)
    assert parallel.index(embed="none").update.changed == 450

    monkeypatch.setattr(config, "INDEX_WORKERS", 1)
    serial = Index(_big_tree(tmp_path / "serial", 2))
    serial.index(embed="none")

    chunks, definitions, documents = _stored(parallel)
    assert (chunks, definitions, documents) == _stored(serial)
    assert documents == len(chunks) >= 900
    assert not any("save_1" in row[8] for row in chunks)
    hits = parallel.search("load_config_7_11_2", k=3, mode="lexical").results
    assert hits[0].path == "pkg_7/mod_11.py"
    assert [(r.path, r.start_line) for r in hits] == [
        (r.path, r.start_line)
        for r in serial.search("load_config_7_11_2", k=3, mode="lexical").results
    ]


def test_segment_files_no_commit_refers_to_are_removed_by_the_next_run(sample_repo: Path) -> None:
    """Left-over segments (of merges or of killed runs) must not pile up run after run."""
    index = Index(sample_repo)
    index.index(embed="none")
    lexical = index.layout.lexical
    live = sorted(p for p in lexical.iterdir() if len(p.name.split(".")[0]) == 32)
    assert live
    orphan = "0123456789abcdef0123456789abcdef"
    for path in live:
        (lexical / (orphan + path.name[32:])).write_bytes(path.read_bytes())
    edited = next(p for p in sample_repo.rglob("*.py") if ".sleuth" not in p.parts)
    edited.write_text(edited.read_text() + "\n\ndef freshly_added_marker():\n    pass\n")
    index.index(embed="none")
    assert not any(p.name.startswith(orphan) for p in lexical.iterdir())
    hits = index.search("freshly_added_marker", mode="lexical").results
    assert hits and hits[0].path == edited.relative_to(sample_repo).as_posix()
    index.close()


def test_index_size_counts_a_file_gone_since_it_was_listed_as_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer's temporary files come and go while `status` adds up the index's size (a
    watcher commits in the same process): a file listed, then gone before it is read,
    counts nothing instead of failing the status. The listing is made to race here."""
    (tmp_path / "segment").write_bytes(b"123")
    listing = [(str(tmp_path), [], ["segment", ".tmpgone"])]
    monkeypatch.setattr(api.os, "walk", lambda folder: iter(listing))
    assert api.folder_size(tmp_path) == 3


def test_a_file_whose_parse_gave_up_is_prepared_in_a_child_process_from_then_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parse that gives up leaks in the tree-sitter binding, and a watcher prepares a
    file again after every save: once a file's parse gave up in this process, later runs
    prepare it in a child process (which starts with the default parse budget here, so
    it parses the file this process gave up on), and this process parses it no more."""
    source = "def backoff(attempt):\n    return 2 ** attempt\n" + "".join(
        f"\n\ndef step_{n}(job):\n    return job.run({n})\n" for n in range(60)
    )
    write_tree(tmp_path, {"app/retry.py": source})
    index = Index(tmp_path)
    monkeypatch.setattr(config, "PARSE_SECONDS", 0.0)  # every parse here gives up at once
    halts = languages.halt_count()
    index.update_paths([tmp_path / "app" / "retry.py"], embed="none")
    assert languages.halt_count() == halts + 1
    first = index.search("backoff", mode="lexical").results[0]
    assert first.kind == "window"  # the file became line windows
    (tmp_path / "app" / "retry.py").write_text(source + "\n\ndef jitter():\n    return 0\n")
    index.update_paths([tmp_path / "app" / "retry.py"], embed="none")
    assert languages.halt_count() == halts + 1  # not parsed in this process again
    again = index.search("backoff", mode="lexical").results[0]
    assert (again.kind, again.symbol) == ("function", "backoff")
    index.close()


def test_a_file_saved_mid_edit_keeps_its_later_definitions(tmp_path: Path) -> None:
    """An editor or an agent saves a file with a bracket not yet closed: the index is
    refreshed at once, and the functions after the broken one are still definitions,
    found first by name, not lines of an error."""
    source = "".join(
        f"def step_{n}(job):\n    return job.run({n})\n\n\n" for n in ("one", "two", "three")
    )
    write_tree(tmp_path, {"pipeline.py": source})
    index = Index(tmp_path)
    index.index(embed="none")
    broken = source.replace("return job.run(one)", "return job.run(one")
    assert broken != source
    (tmp_path / "pipeline.py").write_text(broken)
    assert index.index(embed="none").update.changed == 1
    for name in ("step_two", "step_three"):
        first = index.search(name, mode="lexical").results[0]
        assert (first.symbol, first.kind) == (name, "function"), first


def test_a_script_without_a_main_guard_still_indexes(tmp_path: Path) -> None:
    """Worker processes start by importing the caller's main script again. A script that
    calls sleuth at its top level (no ``if __name__ == "__main__":``) is told so by
    each worker, and the run prepares its files in its own process instead."""
    root = _big_tree(tmp_path / "repo", 1)
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import sys\nfrom sleuth import Index\n\n"
        "report = Index(sys.argv[1]).index(embed='none')\n"
        "print('changed', report.update.changed)\n"
    )
    env = {**os.environ, "SLEUTH_INDEX_WORKERS": "2"}
    done = subprocess.run(
        [sys.executable, str(script), str(root)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["changed 450"]
    assert 'if __name__ == "__main__":' in done.stderr
    assert Index(root).status()["files"] == 450


def test_what_is_derived_from_the_file_list_is_derived_again_only_when_it_changes(
    tmp_path: Path,
) -> None:
    """A watched tree commits on every save; the words common to file names and the
    translation folders are worked out again only when files come or go."""
    root = write_tree(tmp_path / "repo", {"a.py": "def alpha():\n    pass\n"})
    index = Index(root)
    index.index(embed="none")
    derived: list[list[str]] = []

    def derive(paths: list[str]) -> int:
        derived.append(list(paths))
        return len(paths)

    meta = index._open()
    assert meta.from_indexed_paths("count", derive) == 1
    write_tree(root, {"a.py": "def alpha():\n    return 1\n"})  # an edit: a new commit
    assert index.index(embed="none").update.changed == 1
    assert meta.from_indexed_paths("count", derive) == 1
    assert derived == [["a.py"]]
    write_tree(root, {"b.py": "def beta():\n    pass\n"})  # a file comes
    index.index(embed="none")
    assert meta.from_indexed_paths("count", derive) == 2
    assert derived == [["a.py"], ["a.py", "b.py"]]
