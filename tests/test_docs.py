"""Docs as first-class citizens: reST and Markdown by heading, ADRs, --type docs|code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sleuth import Index
from sleuth.chunking import chunk_text
from sleuth.chunking.adr import is_adr
from sleuth.languages import language_for

from .conftest import git_init, run_cli, write_tree

RST = """\
=========
Uploader
=========

What the uploader does.

Install
=======

Run pip.

From source
-----------

Clone the repository::

    Not a heading
    -------------

Usage
=====

Call ``send``.
"""


def test_rst_sections_by_heading_with_title_path() -> None:
    assert language_for("docs/guide.rst") == "rst"
    chunks, definitions = chunk_text("rst", RST)
    assert definitions == []
    assert [(c.symbol, c.parent, c.kind) for c in chunks] == [
        ("Uploader", "", "section"),
        ("Install", "Uploader", "section"),
        ("From source", "Uploader > Install", "section"),
        ("Usage", "Uploader", "section"),
    ]
    lines = RST.split("\n")
    for chunk in chunks:
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    source = next(c for c in chunks if c.symbol == "From source")
    assert "Not a heading" in source.text  # a literal block is not a section
    assert chunks[1].start_line == 7


def test_rst_text_before_the_first_heading_is_kept() -> None:
    chunks, _ = chunk_text("rst", "Preamble line.\n\nTitle\n=====\n\nBody.\n")
    assert [(c.kind, c.symbol) for c in chunks] == [("block", ""), ("section", "Title")]


def test_long_rst_section_is_split_into_windows() -> None:
    body = "\n".join(f"Sentence number {i}." for i in range(150))
    chunks, _ = chunk_text("rst", f"Title\n=====\n\n{body}\n")
    assert len(chunks) >= 3
    assert {c.symbol for c in chunks} == {"Title"}
    assert chunks[-1].end_line >= 153


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("doc/adr/0001-record-architecture-decisions.md", True),
        ("docs/decisions/use-sqlite.md", True),
        ("docs/architecture/decisions/0002-use-tantivy.rst", True),
        ("adr/0003-lexical-first.md", True),
        ("design/0012-cache-vectors.md", True),
        ("docs/decisions.md", True),
        ("docs/guide.md", False),
        ("src/decisions/engine.py", False),
        ("CHANGELOG.md", False),
        ("docs/v2-migration.md", False),
    ],
)
def test_adr_paths(path: str, expected: bool) -> None:
    assert is_adr(path, language_for(path)) is expected


DOCS_REPO = {
    "src/store/cache.py": '''def cache_vectors(vectors, path):
    """Write vectors to disk so they are computed once."""
    with open(path, "wb") as handle:
        handle.write(vectors)
''',
    "docs/adr/0004-cache-vectors-on-disk.md": """# 4. Cache vectors on disk

## Status

Accepted

## Context

Embedding is slow on laptops, so vectors must survive restarts.

## Decision

We write vectors to a file on disk, keyed by content hash.
""",
    "docs/guide.rst": """Guide
=====

Caching
-------

Vectors are cached on disk between runs.
""",
    "README.md": "# Project\n\nA search tool.\n",
}


@pytest.fixture(scope="module")
def docs_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs") / "repo"
    write_tree(root, DOCS_REPO)
    git_init(root)
    Index(root).index(embed="deep")
    return root


def test_adr_chunks_have_kind_adr_and_their_title_path(docs_repo: Path) -> None:
    response = Index(docs_repo).search("why are vectors cached on disk", k=10, kind="adr")
    assert response.results
    assert {r.path for r in response.results} == {"docs/adr/0004-cache-vectors-on-disk.md"}
    decision = next(r for r in response.results if r.symbol == "Decision")
    assert decision.parent == "4. Cache vectors on disk"
    assert decision.kind == "adr"


def test_type_docs_finds_markdown_rst_and_adrs_only(docs_repo: Path) -> None:
    response = Index(docs_repo).search("cache vectors on disk", k=20, category="docs")
    paths = {r.path for r in response.results}
    assert "docs/adr/0004-cache-vectors-on-disk.md" in paths
    assert "docs/guide.rst" in paths
    assert "src/store/cache.py" not in paths
    rst = next(r for r in response.results if r.path == "docs/guide.rst")
    assert (rst.symbol, rst.parent, rst.language) == ("Caching", "Guide", "rst")


def test_type_code_leaves_docs_out(docs_repo: Path) -> None:
    response = Index(docs_repo).search("cache vectors on disk", k=20, category="code")
    assert {r.path for r in response.results} == {"src/store/cache.py"}


def test_asking_for_adrs_ranks_the_decision_first(docs_repo: Path) -> None:
    response = Index(docs_repo).search("which ADRs say how vectors are cached", k=3)
    assert response.results[0].path == "docs/adr/0004-cache-vectors-on-disk.md"


def test_cli_type_docs(docs_repo: Path) -> None:
    proc = run_cli("search", "--json", "--type", "docs", "caching", str(docs_repo))
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    assert results
    assert all(r["language"] in ("markdown", "rst") for r in results)
