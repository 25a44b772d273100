"""Library pieces behind the MCP tools: symbols, handles, expand, related, freshness."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sleuth import Index, PathError, QueryError
from sleuth.handles import MAX_REPLY_TOKENS, estimate_tokens, parse_target

from .conftest import run_cli, write_tree


@pytest.fixture
def lexical_repo(sample_repo: Path) -> Path:
    Index(sample_repo).index(embed="none")
    return sample_repo


def test_generation_counts_runs_that_change_something(sample_repo: Path) -> None:
    index = Index(sample_repo)
    assert index.generation() == 0
    index.index(embed="none")
    assert index.generation() == 1
    index.index(embed="none")
    assert index.generation() == 1  # nothing changed
    (sample_repo / "src" / "extra.py").write_text("def extra():\n    return 1\n")
    index.index(embed="none")
    assert index.generation() == 2


def test_find_symbol_exact_fuzzy_qualified_and_kind(lexical_repo: Path) -> None:
    index = Index(lexical_repo)
    [hit] = index.find_symbol("configparser")
    assert (hit.path, hit.kind, hit.start_line) == ("src/config/parser.py", "class", 4)
    assert index.find_symbol("ConfgParser") == []
    assert index.find_symbol("ConfgParser", exact=False)[0].symbol == "ConfigParser"
    assert index.find_symbol("retry", exact=False)[0].symbol == "retry_failed_upload"
    [method] = index.find_symbol("ConfigParser.parse_config")
    assert method.kind == "method" and method.symbol == "ConfigParser.parse_config"
    assert index.find_symbol("parse_config", kind="class") == []
    assert index.find_symbol("parse_config", language="javascript") == []
    assert {r.symbol for r in index.find_symbol("*Server*")} == {"startServer"}
    with pytest.raises(QueryError):
        index.find_symbol("::")


def test_find_symbol_reads_owners_and_sigils_inside_names(tmp_path: Path) -> None:
    """Lua and JavaScript write the owner into a definition's name (`M.setup`,
    `Async:init`, `res.send`) and some names carry a sigil (`$ZodType`): a lookup by
    the plain name finds them, by the qualified name too, and an exact name first."""
    write_tree(
        tmp_path,
        {
            "lua/loader.lua": "local M = {}\nfunction M.setup(opts)\n  return opts\nend\n"
            "return M\n",
            "lua/async.lua": "local Async = {}\nfunction Async:init(fn)\n  self.fn = fn\n"
            "end\nreturn Async\n",
            "lib/response.js": "var res = module.exports = {};\n"
            "res.send = function send(body) {\n  return this.end(body);\n};\n",
            "core/schemas.ts": "export class $ZodType {\n  parse(x: unknown) { return x; }\n}\n",
            "classic/schemas.ts": "export class ZodType {\n  parse(x: unknown) { return x; }\n}\n",
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")

    def found(name: str) -> list[tuple[str, str]]:
        return [(r.path, r.symbol) for r in index.find_symbol(name)]

    assert found("setup") == found("M.setup") == [("lua/loader.lua", "M.setup")]
    assert found("init") == found("Async:init") == [("lua/async.lua", "Async:init")]
    assert found("send") == found("res.send") == [("lib/response.js", "res.send")]
    assert found("Other.setup") == []
    assert found("ZodType") == [
        ("classic/schemas.ts", "ZodType"),
        ("core/schemas.ts", "$ZodType"),
    ]
    # Globs read the same parts: the name after its owner, the name after its sigil.
    assert found("set*") == found("M.set*") == [("lua/loader.lua", "M.setup")]
    assert found("?nit") == [("lua/async.lua", "Async:init")]
    assert found("Other.set*") == []
    assert found("ZodT*") == [
        ("classic/schemas.ts", "ZodType"),
        ("core/schemas.ts", "$ZodType"),
    ]


def test_structured_search_with_symbol_and_filters(lexical_repo: Path) -> None:
    index = Index(lexical_repo)
    response = index.structured_search("symbol:ConfigParser kind:class")
    assert [(r.path, r.kind) for r in response.results] == [("src/config/parser.py", "class")]
    response = index.structured_search("symbol:retry_failed_upload backoff", mode="lexical")
    assert {r.path for r in response.results} == {"src/uploads/retry.py"}
    response = index.structured_search("lang:javascript path:web/** server listen")
    assert {r.path for r in response.results} == {"web/server.js"}
    assert not index.structured_search("symbol:NoSuchThing").results
    with pytest.raises(QueryError, match="only filters"):
        index.structured_search("kind:class lang:python")
    # a value nothing can match is a mistake to report, not an empty answer
    with pytest.raises(QueryError, match="did you mean python"):
        index.structured_search("lang:py retry")
    with pytest.raises(QueryError, match="unknown language 'klingon'"):
        index.search("retry", language="klingon")
    with pytest.raises(QueryError, match="unknown kind 'spaceship'"):
        index.find_symbol("ConfigParser", kind="spaceship")
    assert index.find_symbol("ConfigParser", kind="Class", language="Python")


def test_handles_are_compact_and_expand_to_numbered_code(lexical_repo: Path) -> None:
    index = Index(lexical_repo)
    results = index.search("retry failed upload backoff", k=3, mode="lexical").results
    handles = index.handles(results)
    top = handles[0]
    assert top.path == "src/uploads/retry.py" and top.symbol == "retry_failed_upload"
    assert top.id == f"{top.chunk_id}:5-12@1"
    assert len(json.dumps(top.to_dict())) < 200
    expansion = index.expand(top.id, context_lines=1)
    assert expansion.status == "fresh"
    text = expansion.render()
    assert " 5  def retry_failed_upload(upload, attempts=3, backoff=0.5):" in text
    assert " 4  " in text and "12      raise RuntimeError" in text  # context line 4 included
    assert index.expand("src/app.py:6").start_line == 5  # the function holding line 6
    whole = index.expand("src/app.py")
    assert (whole.start_line, whole.end_line) == (1, 8)
    assert whole.symbol == ""  # a whole file is no one definition
    with pytest.raises(QueryError, match="no handle of this index"):
        index.expand(f"{top.chunk_id}:5-12@99")
    with pytest.raises(QueryError, match="numbered from 1"):
        index.expand("src/app.py:0")
    assert index.expand("src/app.py:2-3").lines == [
        "from uploads.retry import retry_failed_upload",
        "",
    ]


def test_expand_refuses_paths_outside_or_not_indexed(lexical_repo: Path) -> None:
    write_tree(lexical_repo, {".env": "SECRET=1\n", "notes.bin": "x\0y"})
    Index(lexical_repo).index(embed="none")
    index = Index(lexical_repo)
    for bad in ("../../etc/passwd", "/etc/passwd", ".env", "src/../../outside.py", "nope.py"):
        with pytest.raises(PathError):
            index.expand(bad)
    (lexical_repo / "link.py").symlink_to("/etc/passwd")
    with pytest.raises(PathError, match="outside"):
        index.expand("link.py")
    with pytest.raises(QueryError, match="unknown handle"):
        index.expand("99999:1-2@1")
    with pytest.raises(QueryError, match="past the end"):
        index.expand("src/app.py:400")
    with pytest.raises(QueryError):
        index.expand("src/app.py:1", context_lines=-1)


def test_stale_handle_after_edit_gives_fresh_location(lexical_repo: Path) -> None:
    index = Index(lexical_repo)
    [hit] = index.find_symbol("retry_failed_upload")
    [handle] = index.handles([hit])
    target = lexical_repo / "src" / "uploads" / "retry.py"
    target.write_text("# moved down\n\n\n" + target.read_text())
    changed = index.expand(handle.id)
    assert changed.status == "stale" and "on disk" in changed.message
    assert index.refresh() == "refreshed"
    stale = index.expand(handle.id)
    assert stale.status == "stale"
    assert stale.fresh is not None and (stale.fresh.start_line, stale.fresh.end_line) == (8, 15)
    assert "STALE" in stale.render() and stale.fresh.id in stale.render()
    assert index.expand(stale.fresh.id).lines[0].startswith("def retry_failed_upload")
    # A fresh process has no memory of the old handle: still a clear stale answer.
    assert Index(lexical_repo).expand(handle.id).status == "stale"


def test_refresh_sees_edits_new_and_deleted_files_only_when_they_happen(
    lexical_repo: Path,
) -> None:
    index = Index(lexical_repo)
    assert index.refresh() == "fresh"  # first check runs an update that finds nothing
    assert index.refresh() == "fresh"
    generation = index.generation()
    write_tree(lexical_repo, {"src/new_mod/feature.py": "def brand_new_feature():\n    pass\n"})
    assert index.refresh() == "refreshed"
    assert index.find_symbol("brand_new_feature")
    (lexical_repo / "web" / "server.js").unlink()
    assert index.refresh() == "refreshed"
    assert not index.find_symbol("startServer")
    write_tree(lexical_repo, {"src/new_mod/more.py": "def second_feature():\n    pass\n"})
    assert index.refresh() == "refreshed" and index.find_symbol("second_feature")
    assert index.generation() == generation + 3


def test_refresh_says_stale_while_another_process_writes(lexical_repo: Path) -> None:
    index = Index(lexical_repo)
    index.refresh()
    (lexical_repo / "src" / "app.py").write_text("def changed():\n    pass\n")
    other = Index(lexical_repo)
    other._write_lock.acquire()
    try:
        assert index.refresh(lock_timeout=0.1) == "stale"
        assert index.index_state("stale")["state"] == "stale"
    finally:
        other._write_lock.release()
    assert index.refresh() == "refreshed"


def test_index_state_embedding_then_complete(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="none")
    state = index.index_state()
    assert state["state"] == "embedding" and state["embedded_fraction"] == 0.0
    # a caller that computes no vectors, with no background embedder: none are coming
    assert index.index_state(embeds=False)["state"] == "lexical"
    index.embed()
    assert index.index_state()["state"] == "complete"


def test_reindex_glob_rereads_files_that_look_unchanged(lexical_repo: Path) -> None:
    index = Index(lexical_repo)
    target = lexical_repo / "src" / "app.py"
    stat = target.stat()
    target.write_text(target.read_text().replace("def main", "def start"))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    if target.stat().st_size == stat.st_size:
        assert index.reindex().update.changed == 0  # size and mtime look the same
    report = index.reindex("src/*.py")
    assert report.update.changed == 1
    assert index.find_symbol("start") and not index.find_symbol("main")


def test_related_by_vectors_and_by_words(embedded_repo: Path, lexical_repo: Path) -> None:
    semantic = Index(embedded_repo).related("src/uploads/retry.py:6", k=3)
    assert semantic.mode == "semantic" and len(semantic.results) == 3
    assert (semantic.embedded_fraction, semantic.vectors) == (1.0, ["deep"])
    assert all(
        not (r.path == "src/uploads/retry.py" and r.start_line <= 6 <= r.end_line)
        for r in semantic.results
    )
    assert (
        Index(embedded_repo)
        .related("src/uploads/retry.py:6", category="tests")
        .results[0]
        .path.startswith("tests/")
    )
    lexical = Index(lexical_repo).related("src/uploads/retry.py:6")
    assert lexical.mode == "lexical" and lexical.notices
    assert (lexical.embedded_fraction, lexical.vectors) == (0.0, [])
    with pytest.raises(QueryError, match="numbered from 1"):
        Index(lexical_repo).related("src/uploads/retry.py:0")
    assert lexical.results[0].path == "tests/test_retry.py"
    with pytest.raises(QueryError):
        Index(lexical_repo).related("src/app.py:1", category="everything")


def test_related_to_a_whole_file_lists_other_files(embedded_repo: Path) -> None:
    """A path without a line stands for the whole file: none of its chunks come back."""
    whole = Index(embedded_repo).related("src/uploads/retry.py", k=5)
    assert whole.mode == "semantic" and whole.results
    assert all(r.path != "src/uploads/retry.py" for r in whole.results)
    with pytest.raises(QueryError, match="past its end"):
        Index(embedded_repo).related("src/uploads/retry.py:999")


def test_render_respects_the_budget(tmp_path: Path) -> None:
    lines = "\n".join(f"    value_{i} = compute({i}) + other_value_{i}" for i in range(3000))
    root = write_tree(tmp_path / "big", {"big.py": f"def huge():\n{lines}\n"})
    index = Index(root)
    index.index(embed="none")
    for budget in (300, 2000, MAX_REPLY_TOKENS):
        text = index.expand("big.py").render(budget)
        assert estimate_tokens(text) <= budget
        assert "-- cut:" in text


def test_parse_target_forms() -> None:
    # numbers past the index's 64-bit integers are refused, a path's digits are not
    for target in ["9" * 19, "5:1-" + "9" * 19, "src/a.py:" + "9" * 5000]:
        with pytest.raises(ValueError, match="too large"):
            parse_target(target)
    assert parse_target("db/" + "1" * 19 + "_init.sql:3").start_line == 3
    assert parse_target("812:5-12@3").chunk_id == 812
    assert parse_target("812").chunk_id == 812
    location = parse_target("src/a.py:10-20")
    assert (location.path, location.start_line, location.end_line) == ("src/a.py", 10, 20)
    assert parse_target("src/a.py").start_line is None


def test_cli_search_syntax_and_related(lexical_repo: Path) -> None:
    proc = run_cli("search", "symbol:ConfigParser kind:class", "--json", cwd=lexical_repo)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    assert [(r["path"], r["kind"]) for r in results] == [("src/config/parser.py", "class")]
    proc = run_cli("search", "lang:go retry", "--lang", "python", cwd=lexical_repo)
    assert proc.returncode == 1 and "conflicting language" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_cli("related", "src/uploads/retry.py:6", "--json", cwd=lexical_repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["results"][0]["path"] == "tests/test_retry.py"
    proc = run_cli("related", "src/uploads/retry.py:6", cwd=lexical_repo / "src")
    assert proc.returncode == 0 and "tests/test_retry.py" in proc.stdout
    proc = run_cli("related", "../../etc/passwd:1", cwd=lexical_repo)
    assert proc.returncode == 1 and "error:" in proc.stderr and "Traceback" not in proc.stderr


def test_empty_semantic_answer_falls_back_to_lexical(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="deep")
    write_tree(sample_repo, {"src/late/cache.py": "def evict_stale_entries(cache):\n    pass\n"})
    index.index(embed="none")  # the new chunk has no vector yet
    plain = index.search("evict stale entries", mode="semantic", path="src/late/**")
    assert not plain.results
    response = index.structured_search("evict stale entries path:src/late/**", mode="semantic")
    assert response.mode == "lexical"
    assert response.notices[0] == "no semantic match: showing lexical matches"
    assert response.results[0].symbol == "evict_stale_entries"


def test_symbol_names_made_of_underscores_and_dollars(tmp_path: Path) -> None:
    """`symbol:_*` (private names), `symbol:__*` and `symbol:$` are names to look up,
    not empty queries; `symbol:*` alone still asks for nothing."""
    write_tree(
        tmp_path,
        {
            "geo.py": "class Point:\n    def __repr__(self):\n        return 'p'\n\n"
            "    def _norm(self):\n        return 1\n\n    def scale(self):\n        return 2\n",
            "dom.js": "const $ = (s) => document.querySelector(s);\n",
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")

    def found(query: str) -> list[str]:
        return [r.symbol for r in index.structured_search(query, mode="lexical").results]

    assert sorted(found("symbol:_*")) == ["Point.__repr__", "Point._norm"]
    assert found("symbol:__*") == ["Point.__repr__"]
    assert found("symbol:$") == ["$"]
    with pytest.raises(QueryError):
        index.structured_search("symbol:*")
