"""Ranking invariants and search behaviour on a fixture repository with real vectors."""

from __future__ import annotations

from pathlib import Path

import pytest

from sleuth import Index, QueryError, config
from sleuth.embedding.runner import publish_vectors
from sleuth.generated import generated_by_content
from sleuth.languages import language_for
from sleuth.locales import translated, translation_folders
from sleuth.results import OtherHit, other_hit_text, result_of
from sleuth.search.classify import (
    MAX_NAMED_FILES,
    QueryPlan,
    classify,
    declared_name,
    named_files,
    named_lines,
)
from sleuth.search.filters import category_of
from sleuth.search.ranking import file_order, priors, signals
from sleuth.search.ranking.evidence import verbatim_needle
from sleuth.search.ranking.file_order import further_hits, merge_and_cut
from sleuth.search.ranking.fusion import Scored, best_fused, fuse
from sleuth.search.ranking.path_words import common_name_words, path_matches, with_initialisms
from sleuth.store.definitions import DefinitionSpan
from sleuth.store.lexical import LexicalStore
from sleuth.store.meta import VECTOR_TABLES, ChunkRow, MetaStore
from sleuth.tokens import names_path

from .conftest import git_init, write_tree


def test_exact_identifier_puts_its_definition_first(embedded_repo: Path) -> None:
    for mode in ("hybrid", "lexical"):
        top = Index(embedded_repo).search("parse_config", mode=mode).results[0]
        assert top.path == "src/config/parser.py", mode
        assert "parse_config" in (top.symbol, top.parent) or "def parse_config" in top.preview


def test_plain_words_find_the_function(embedded_repo: Path) -> None:
    response = Index(embedded_repo).search("where are failed uploads retried")
    assert response.mode == "hybrid"
    assert response.results[0].path == "src/uploads/retry.py"
    assert response.results[0].symbol == "retry_failed_upload"


def test_semantic_mode_works_without_shared_words(embedded_repo: Path) -> None:
    results = Index(embedded_repo).search("open a network listener", mode="semantic").results
    assert results[0].path == "web/server.js"


def test_query_about_tests_returns_tests(embedded_repo: Path) -> None:
    results = Index(embedded_repo).search("tests for retrying uploads").results
    assert results[0].path == "tests/test_retry.py"
    plain = Index(embedded_repo).search("retrying uploads").results
    assert plain[0].path == "src/uploads/retry.py"  # source before tests otherwise


def test_results_of_one_file_do_not_overlap(embedded_repo: Path) -> None:
    results = Index(embedded_repo).search("config parse json settings", k=20).results
    by_file: dict[str, list[tuple[int, int]]] = {}
    for r in results:
        for start, end in by_file.get(r.path, []):
            assert r.end_line < start or r.start_line > end
        by_file.setdefault(r.path, []).append((r.start_line, r.end_line))


def test_the_pieces_of_one_long_function_are_one_result(tmp_path: Path) -> None:
    body = "".join(
        f"    retries_{n} = schedule_retry(upload, attempt={n})  # retry the upload\n"
        for n in range(150)
    )
    (tmp_path / "uploads.py").write_text(
        "def retry_failed_uploads(upload):\n" + body + "    return upload\n"
    )
    (tmp_path / "other.py").write_text("def unrelated():\n    return 1\n")
    index = Index(tmp_path)
    index.index(embed="none")
    pieces = index._open().chunks_in_file("uploads.py")
    assert len(pieces) >= 2  # the function is cut in pieces
    results = index.search("retry upload", mode="lexical").results
    of_file = [r for r in results if r.path == "uploads.py"]
    assert len(of_file) == 1
    assert of_file[0].end_line - of_file[0].start_line + 1 > 60  # more than one piece


def test_result_fields(embedded_repo: Path) -> None:
    result = Index(embedded_repo).search("retry_failed_upload").results[0]
    assert result.language == "python" and result.kind == "function"
    assert result.start_line >= 1 and result.end_line >= result.start_line
    assert "retry_failed_upload" in result.preview
    assert result.score > 0


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"language": "javascript"}, {"web/server.js"}),
        ({"category": "docs"}, {"docs/guide.md"}),
        ({"category": "tests"}, {"tests/test_retry.py"}),
        ({"path": "src/config/**"}, {"src/config/parser.py"}),
        ({"kind": "class"}, {"src/config/parser.py"}),
    ],
)
def test_filters(embedded_repo: Path, filters: dict, expected: set) -> None:
    results = (
        Index(embedded_repo).search("configuration server upload retry", k=20, **filters).results
    )
    assert {r.path for r in results} == expected


def test_everything_filtered_out_says_why(embedded_repo: Path) -> None:
    response = Index(embedded_repo).search("retry", language="haskell")
    assert response.results == []
    assert "filters" in response.reason


@pytest.mark.parametrize("query", ["", "   ", "!!! ???", "\x00"])
def test_garbage_queries_raise_query_error(embedded_repo: Path, query: str) -> None:
    with pytest.raises(QueryError):
        Index(embedded_repo).search(query)


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_words_longer_than_the_index_keeps_are_no_error(embedded_repo: Path, mode: str) -> None:
    """The lexical index drops tokens of 40 bytes or more; a query of only such words
    (pasted hashes, digits) matches nothing lexically instead of failing to parse."""
    index = Index(embedded_repo)
    assert index.search("a" * 45 + " " + "9" * 52, mode="lexical").results == []
    index.search("\u00e9" * 20 + " " + "b" * 40, mode=mode)
    mixed = index.search("f" * 60 + " retry " + "0" * 44, mode=mode).results
    assert mixed and mixed[0].path == "src/uploads/retry.py"
    # a long identifier is several tokens to the index, each short enough: it counts
    long_name = "retry_failed_upload_" + "_".join(["again"] * 8)
    store = LexicalStore(index.layout.lexical)
    assert store.query_of([long_name]) is not None
    assert store.query_of(["x" * 40, "9" * 41]) is None


def test_partly_embedded_index_mixes_vectors_and_lexical(sample_repo: Path) -> None:
    index = Index(sample_repo)
    index.index(embed="deep")
    meta = MetaStore(index.layout.meta)
    # drop the vectors of the retry module, in both tiers: lexical must still find it
    for tier, table in VECTOR_TABLES.items():
        meta.db.execute(
            f"DELETE FROM {table} WHERE hash IN (SELECT c.hash FROM chunks c"
            " JOIN files f ON f.id=c.file_id WHERE f.path='src/uploads/retry.py')"
        )
        publish_vectors(meta, index.layout, tier=tier)
    meta.close()
    response = Index(sample_repo).search("retry failed upload backoff")
    assert response.mode == "hybrid"
    assert 0 < response.embedded_fraction < 1
    assert any("semantic tier" in n for n in response.notices)
    assert response.results[0].path == "src/uploads/retry.py"


def _ranking_repo(tmp_path: Path) -> Path:
    """Files built so that each ranking signal below decides an order on its own."""
    big = "\n\n".join(
        f"def handle_event_{i}(event):\n    # event queue: retry the event, retry the queue\n"
        f"    event.queue.retry()\n    log(event)\n    count({i})\n    return event\n"
        for i in range(12)
    )
    files = {
        # many chunks that each match "event queue retry" better than the small file
        "app/events.py": big,
        "app/dispatch.py": 'def dispatch_event(event):\n    """Send an event to its queue; '
        'retry on failure."""\n    return send(event)\n',
        # a file named by the query, against a file whose body repeats the words
        "app/backoff.py": "def delay_for(attempt):\n    return min(60, 2 ** attempt)\n",
        "app/worker.py": "def work(job):\n"
        "    # backoff: wait, then run the job; backoff grows, backoff\n"
        "    sleep(job.wait)\n    return job.run()\n",
        # an import block that names the query words more often than the code using them
        "app/wiring.py": "from app.billing.invoices import render_invoice, invoice_total\n"
        "from app.billing.invoices import invoice_lines, invoice_tax\n"
        "from app.billing.pdf import render_pdf, pdf_render, render_invoice_pdf\n"
        "import invoice_pdf\n",
        "app/billing/export.py": 'def export(invoice):\n    """Render an invoice as PDF."""\n'
        "    return pdf(render(invoice))\n",
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    Index(tmp_path).index(embed="none")
    return tmp_path


def test_one_big_file_does_not_fill_the_top(tmp_path: Path) -> None:
    results = Index(_ranking_repo(tmp_path)).search("event queue retry", mode="lexical").results
    assert [r.path for r in results[:2]] == ["app/events.py", "app/dispatch.py"]


def test_a_file_named_by_the_query_ranks_first(tmp_path: Path) -> None:
    results = Index(_ranking_repo(tmp_path)).search("backoff", mode="lexical").results
    assert results[0].path == "app/backoff.py"


def test_import_blocks_rank_below_the_code_they_import(tmp_path: Path) -> None:
    results = Index(_ranking_repo(tmp_path)).search("render invoice pdf", mode="lexical").results
    assert results[0].path == "app/billing/export.py"


def test_a_name_with_underscores_is_found_whole_where_no_grammar_reads_it(
    tmp_path: Path,
) -> None:
    """A function defined in a file no grammar reads (a yacc grammar's C code) is found
    by its whole name, above code that only shares its words."""
    files = {
        "cmd-parse.y": "%%\nline: word;\n%%\n"
        + "".join(
            f"/* helper {n} */\nstatic int helper_{n}(void) {{ return {n}; }}\n" for n in range(60)
        )
        + "struct cmd_parse_result *\ncmd_parse_from_file(FILE *f, struct cmd_parse_input *pi)\n"
        "{\n\treturn cmd_parse_run(f, pi);\n}\n",
        # the name's words, many times over, in code that never names it
        "cmd.c": "int\ncmd_parse(const char *file)\n{\n\t/* parse the file: cmd from file */\n"
        "\treturn cmd_parse_file(file) + cmd_parse_from(file) + parse_file(file);\n}\n",
        "file.c": "int\nfile_from_cmd(const char *file)\n{\n\treturn parse(file, file);\n}\n",
        # holds the name whole, in a long text that BM25 scores low
        "notes.txt": "see cmd_parse_from_file\n"
        + "".join(f"unrelated line {n} of notes about other things\n" for n in range(40)),
    }
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    index = Index(tmp_path)
    index.index(embed="none")
    results = index.search("cmd_parse_from_file", mode="lexical").results
    assert results[0].path == "cmd-parse.y"
    assert results[0].start_line <= 124 <= results[0].end_line
    # put first by rule, and still in order for a caller that sorts by score
    scores = [r.score for r in results]
    assert len(scores) > 1 and scores == sorted(scores, reverse=True)


def _answer_about_uses(index: Index, question: str, use: str) -> list:
    """The lexical answer to a question about uses, once it is checked to read as the
    ``use`` it asks for."""
    assert classify(question).use_kind == use, question
    return index.search(question, mode="lexical").results


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    Index(root).index(embed="none")
    return root


def test_a_test_file_named_for_the_query_word_is_not_what_it_tests(tmp_path: Path) -> None:
    """`test_search.py` tests search: its name is no evidence that it answers a question
    about search, unless the question asks for tests."""
    root = _write(
        tmp_path,
        {
            "engine/order.py": "def order_hits(hits):\n"
            '    """Rank results by score: ranked search results, search score first, results'
            ' ranked."""\n'
            "    return sorted(hits, key=lambda hit: -hit.score)\n",
            "tests/test_search.py": "def test_order():\n"
            "    hits = search('a b')\n"
            "    assert ranked(hits) == results(hits, score=True)\n",
        },
    )
    question = "how are search results ranked by score"
    assert Index(root).search(question, mode="lexical").results[0].path == "engine/order.py"
    tests = Index(root).search("tests for ranking search results", mode="lexical").results
    assert tests[0].path == "tests/test_search.py"


@pytest.mark.parametrize(
    ("question", "wants_tests"),
    [
        ("tests for ranking search results", True),
        ("which tests check that credentials are not forwarded on a redirect", True),
        ("what tests verify the retry delay doubles", True),
        ("is there a test verifying that the delay doubles", True),
        ("unit tests covering the parser", True),
        ("how test files are collected", False),  # the subject, not a request
        ("which test runner options exist", False),
        ("how does the runner check that tests pass", False),
        # where the code asked for is used: a test helper, not a test
        ("mock handler for simulating HTTP responses in tests", False),
        ("capturing log entries in memory for unit tests", False),
        ("retry tests", True),
    ],
)
def test_questions_that_ask_for_tests(question: str, wants_tests: bool) -> None:
    assert classify(question).wants_tests is wants_tests


@pytest.mark.parametrize(
    ("files", "about_source", "source", "for_tests", "test"),
    [
        # "test files" in a test runner's query is its subject, not a request for tests
        (
            {
                "runner/discovery.py": "def collect(folder):\n"
                '    """Collect the test files below folder: test_*.py."""\n'
                "    return sorted(folder.glob('test_*.py'))\n",
                "tests/test_discovery.py": "def test_empty_folder(tmp_path):\n"
                "    # no test files collected in an empty folder\n"
                "    assert collect(tmp_path) == []\n",
            },
            "how test files are collected",
            "runner/discovery.py",
            "tests for collecting test files",
            "tests/test_discovery.py",
        ),
        # "... in tests" says where the code is used: the helper is the answer
        (
            {
                "src/logkit/capture.py": "class CapturedLogs:\n"
                '    """Keeps log entries in memory so that assertions can read them."""\n'
                "    def __init__(self):\n        self.entries = []\n"
                "    def emit(self, entry):\n        self.entries.append(entry)\n",
                "tests/test_capture.py": "def test_captured_entries():\n"
                "    logs = CapturedLogs()\n    logs.emit('started')\n"
                "    assert logs.entries == ['started']  # kept in memory\n",
            },
            "capturing log entries in memory in tests",
            "src/logkit/capture.py",
            "tests for capturing log entries in memory",
            "tests/test_capture.py",
        ),
    ],
)
def test_a_query_about_testing_still_prefers_source(
    tmp_path: Path, files: dict[str, str], about_source: str, source: str, for_tests: str, test: str
) -> None:
    """A query that speaks of tests without asking for them is answered by source; one
    that asks for tests by the tests."""
    index = Index(_write(tmp_path, files))
    assert index.search(about_source, mode="lexical").results[0].path == source
    assert index.search(for_tests, mode="lexical").results[0].path == test


_BELOW_CODE_UNLESS_ASKED = {
    # A test is named for the behaviour it checks (`test_cookie_persistence`), so its
    # name matches a question in words better than the code that does the work.
    "a test named for the behaviour": (
        {
            "client/session.py": "class Session:\n    def send(self, request):\n"
            "        request.cookies = self.cookies  # cookies persist between requests\n"
            "        response = self.transport.send(request)\n"
            "        self.cookies.update(response.cookies)\n"
            "        return response\n",
            "tests/test_session.py": "def test_cookie_persistence_between_requests():\n"
            "    session = Session()\n    session.get('/set')\n"
            "    assert session.get('/read').json() == {'cookie': 'set'}\n",
        },
        ("how are cookies persisted between requests in a session", "client/session.py"),
        ("tests of cookie persistence between requests", "tests/test_session.py"),
    ),
    # A CI workflow says many words of a question about code (without the data-files
    # prior the workflow comes first here).
    "a data file": (
        {
            "lib/packaging.py": "def publish(version):\n"
            '    """Build the release\'s wheel and upload it."""\n'
            "    wheel = build(version)\n    return upload(wheel)\n",
            ".github/workflows/release.yml": "name: release\non: push\njobs:\n"
            "  publish:\n    steps:\n      - run: build the wheel\n"
            "      - run: upload the wheel to publish the release version\n",
        },
        ("how is a release version built and published", "lib/packaging.py"),
        ("which ci workflow publishes a release", ".github/workflows/release.yml"),
    ),
}


@pytest.mark.parametrize("case", sorted(_BELOW_CODE_UNLESS_ASKED))
def test_code_comes_before_tests_and_data_files_unless_they_are_asked_for(
    tmp_path: Path, case: str
) -> None:
    files, (question, code), (asking, asked) = _BELOW_CODE_UNLESS_ASKED[case]
    index = Index(_write(tmp_path, files))
    assert index.search(question, mode="lexical").results[0].path == code
    assert index.search(asking, mode="lexical").results[0].path == asked


def test_release_notes_rank_below_the_code_unless_releases_are_asked_about(
    tmp_path: Path,
) -> None:
    """A changelog says the words of many questions ("failed uploads are retried" is a
    line of it) but answers only questions about releases and changes (without the
    prior the changelog comes first here)."""
    root = _write(
        tmp_path,
        {
            "app/worker.py": "def requeue(upload):\n    # failed: try again later\n"
            "    return queue.put(upload)\n",
            "CHANGELOG.md": "# Changelog\n\n## 2.1.0\n\n- Failed uploads are retried.\n"
            "- Retried uploads that failed again are dropped.\n",
            "src/changes/diff.py": "def changed_lines(before, after):\n"
            "    return [line for line in after if line not in before]\n",
        },
    )
    index = Index(root)
    paths = [r.path for r in index.search("how are failed uploads retried").results]
    assert paths[:2] == ["app/worker.py", "CHANGELOG.md"], paths
    asked = index.search("which release retried failed uploads").results
    assert asked[0].path == "CHANGELOG.md"
    # code in a folder named changes/ is code, not release notes
    assert index.search("changed lines").results[0].path == "src/changes/diff.py"


def test_html_in_a_docs_folder_is_documentation(tmp_path: Path) -> None:
    """Generated API docs (jazzy, javadoc) repeat every doc comment as HTML: under a docs
    folder they are documentation, not code; an HTML template elsewhere stays code."""
    root = _write(
        tmp_path,
        {
            "Sources/Pinning.swift": "/// Trusts only the pinned certificates.\n"
            "final class PinnedCertificatesEvaluator {\n"
            "    func evaluate(_ trust: SecTrust) -> Bool { pinned.contains(trust) }\n}\n",
            "docs/Classes/PinnedCertificatesEvaluator.html": "<html><body><h1>"
            "PinnedCertificatesEvaluator</h1><p>Trusts only the pinned certificates: "
            "certificate pinning validation of the server trust.</p></body></html>\n",
            "app/templates/pinning.html": "<p>{{ pinned_certificates }} certificates</p>\n",
        },
    )
    index = Index(root)
    question = "certificate pinning validation"
    assert index.search(question, mode="lexical").results[0].path == "Sources/Pinning.swift"
    docs = index.search(question, mode="lexical", category="docs").results
    assert [r.path for r in docs] == ["docs/Classes/PinnedCertificatesEvaluator.html"]
    code = index.search("pinned certificates", mode="lexical", category="code").results
    assert "app/templates/pinning.html" in [r.path for r in code]


def test_a_name_defined_only_under_a_test_folder_is_found_when_asked_alone(
    tmp_path: Path,
) -> None:
    """Source under a test/ folder (rails' `commands/test/`) counts as tests; a name
    asked for alone that only such a file defines, in its very case, is its answer as
    much as if the file were anywhere else, while a test fake that shares a source
    name does not come first."""
    runner = "class Runner:\n    def system(self, paths):\n        return run_tests(paths)\n"
    other = "class System:\n    def change(self, to):\n        return migrate(self, to)\n"
    scores = []
    for folder in ("test", "tools"):
        root = _write(
            tmp_path / folder,
            {f"commands/{folder}/runner.py": runner, "db/system.py": other},
        )
        top = Index(root).search("system", mode="lexical").results[0]
        assert (top.path, top.symbol) == (f"commands/{folder}/runner.py", "system")
        scores.append(top.score)
    assert scores[0] == scores[1]
    root = _write(
        tmp_path / "fakes",
        {
            "db/session.py": "class Session:\n    def open(self):\n        return connect()\n",
            "tests/fakes.py": "class Session:\n    def open(self):\n        return None\n",
        },
    )
    assert Index(root).search("Session", mode="lexical").results[0].path == "db/session.py"


def test_a_huge_file_does_not_win_by_its_number_of_chunks() -> None:
    """Only a file's best few further hits count as evidence for it (signals.SIGNALS)."""

    def hit(chunk_id: int, path: str, line: int, score: float) -> Scored:
        row = ChunkRow(chunk_id, path, "python", line, line + 4, "function", "", "", "", "", "", "")
        return Scored(row, score)

    small = [hit(1, "pkg/palette.py", 1, 0.9)]
    huge = [hit(2, "pkg/helpers.py", 1, 0.8)]
    huge += [hit(3 + i, "pkg/helpers.py", 10 + 10 * i, 0.05) for i in range(40)]
    top = merge_and_cut(small + huge, 10)
    assert [r.row.path for r in top[:2]] == ["pkg/palette.py", "pkg/helpers.py"]


def test_after_fusion_the_best_candidates_go_on_with_those_the_priors_may_raise() -> None:
    """Of many candidates, the best ``fused_cut`` by fused score are ranked further, and
    also, from below the cut, a chunk of a file the query names and a chunk that defines
    a name asked for (the priors raise those from anywhere), and the chunks a file among
    the best has for its evidence."""

    def hit(chunk_id: int, symbols: str, score: float, path: str = "") -> Scored:
        path = path or f"pkg/m{chunk_id}.py"
        row = ChunkRow(chunk_id, path, "python", 1, 5, "function", "", "", "", symbols, "", "")
        return Scored(row, score)

    scored = [hit(i, f"helper_{i}", 1.0 - i / 1000) for i in range(300)]
    scored[290] = hit(290, "Loader.parse_config", 0.01)
    limit = int(signals.SIGNALS["fused_cut"])
    assert 0 < limit < 250
    kept = best_fused(scored, classify("parse_config"), keep={299})
    assert {item.row.id for item in kept} == {*range(limit), 290, 299}
    # no name asked for, nothing to keep: the cut alone
    kept = best_fused(scored, classify("how are settings read"), keep=set())
    assert [item.row.id for item in kept] == list(range(limit))
    # a file among the best keeps the chunks below the cut its evidence reads
    hits = int(signals.SIGNALS["evidence_hits"])
    below = [hit(1000 + i, "", 0.001 - i / 1e6, "pkg/m0.py") for i in range(hits + 5)]
    kept = best_fused(scored + below, classify("how are settings read"), keep=set())
    assert {item.row.id for item in kept} == {*range(limit), *range(1000, 1000 + hits)}


def test_query_words_name_files_and_folders() -> None:
    """The file-name and folder priors see file stems, the folder of mod.rs / index.ts,
    the folders above, word variants (writes / Writers), and not "test" in a test file;
    the file-name prior scales with the share of the name's words the query names."""
    terms = ("writes", "html")
    assert path_matches(terms, "Writers/HTML.hs") == (1.0, True)
    assert path_matches(terms, "Readers/HTML.hs") == (1.0, False)
    assert path_matches(("path", "extractor"), "extract/path/mod.rs") == (1.0, True)
    assert path_matches(("test", "files"), "tests/test_discovery.py") == (0.0, False)
    assert path_matches(("test", "run"), "node/test-run.ts") == (1.0, False)
    assert path_matches(("run",), "node/test-run.ts") == (0.5, False)
    assert path_matches(("options",), "App/CommandLineOptions.hs") == (1 / 3, False)
    # a word that names the file does not name its folder too
    assert path_matches(("routes",), "phoenix/router/route.ex") == (1.0, False)


def test_a_file_named_by_the_initials_of_query_words_ranks_first(tmp_path: Path) -> None:
    """`hmr.ts` is named for "hot module replacement": a question in words names the
    file by the initials of its consecutive words, as it would by a word; a name asked
    for alone does not."""
    assert with_initialisms(("server", "sent", "events")) == (
        "server",
        "sent",
        "events",
        "se",
        "ss",
        "sse",
    )
    assert path_matches(with_initialisms(("hot", "module", "replacement")), "src/hmr.ts")[0] == 1.0
    root = _write(
        tmp_path,
        {
            "src/hmr.ts": "export function acceptUpdate(store: Store) {\n"
            "  // swap the store's state when the bundler sends a hot update\n"
            "  if (import.meta.hot) import.meta.hot.accept(store.id)\n}\n",
            # the question's words, more of them, in a file named for something else
            "src/registry.ts": "export function lookup(id: string) {\n"
            "  // stores by id: when reloaded the module's stores get a replacement\n"
            "  const module = stores.module(id)\n"
            "  return module.replacement ?? module.create(id)\n}\n",
            "src/plugin.ts": "export function install(app: App) {\n"
            "  // register the module replacement hook with the app\n"
            "  app.use(registry)\n}\n",
        },
    )
    results = Index(root).search("hot module replacement for stores", mode="lexical").results
    assert results[0].path == "src/hmr.ts"
    # a name asked for alone is not read for initials
    row = ChunkRow(1, "src/hmr.ts", "typescript", 1, 4, "function", "", "", "", "", "", "")
    for query, named in (("hot module replacement", True), ("hot_module_replacement", False)):
        scored = [Scored(row, 1.0)]
        priors.apply_priors(classify(query), scored, {})
        assert (scored[0].score > 1.0) is named, query


def test_a_file_named_by_the_whole_query_word_outranks_one_named_in_part() -> None:
    """ "options" is all of Options.hs but a third of CommandLineOptions.hs: at equal
    scores before the priors, the module named outright comes first."""
    plan = classify("how options control the output format")
    scored = [
        Scored(ChunkRow(i, path, "haskell", 1, 9, "block", "", "", "", "", "", ""), 1.0)
        for i, path in enumerate(["src/App/CommandLineOptions.hs", "src/Options.hs"])
    ]
    priors.apply_priors(plan, scored, {})
    ranked = sorted(scored, key=lambda item: -item.score)
    assert [item.row.path for item in ranked] == ["src/Options.hs", "src/App/CommandLineOptions.hs"]
    assert ranked[1].score > 1.0  # named in part still counts


def test_a_word_in_most_file_names_names_no_file_in_particular(tmp_path: Path) -> None:
    """In a library named for its subject (ramsey/uuid), "uuid" is in most file names:
    `uuid.py` is not what a question about uuids and arithmetic asks for by its name."""
    few = ["src/uuid.py", "src/uuid_codec.py", "src/UuidV1.php", "src/lazy_uuid.py", "b.py"]
    assert common_name_words(few, 0.2) == frozenset()  # fewer than five files
    steps = ["uuid_codec", "uuid_fields", "uuid_builder", "uuid_v1", "uuid_v4", "lazy_uuid"]
    named = {
        f"src/{name}.py": f'def {name}(value):\n    """One step."""\n    return uuid_of(value)\n'
        for name in steps
    }
    root = _write(
        tmp_path,
        {
            **named,
            "src/uuid.py": 'def parse(text):\n    """Read a uuid from its integer form."""\n'
            "    return int(text, 16)\n",
            "src/math/calculator.py": "def add(a, b):\n"
            '    """Arithmetic on numbers too large for a machine word."""\n'
            "    return big_add(a, b)\n",
        },
    )
    assert "uuid" in common_name_words([*named, "src/uuid.py", "src/math/calculator.py"], 0.2)
    index = Index(root)
    query = "arithmetic on large uuid integers"
    assert index.search(query, mode="lexical").results[0].path == "src/math/calculator.py"
    signals.SIGNALS["common_name_share"] = 0.0
    try:  # with every word of a name counting, the query names uuid.py outright
        assert index.search(query, mode="lexical").results[0].path == "src/uuid.py"
    finally:
        signals.SIGNALS["common_name_share"] = 0.2
        index.close()


@pytest.mark.parametrize(
    ("path", "category"),
    [
        ("tests/test_app.py", "tests"),
        ("Tests/AlamofireTests/BaseTestCase.swift", "tests"),  # Swift packages
        ("okhttp/src/jvmTest/kotlin/okhttp3/AutobahnTester.kt", "tests"),  # Kotlin source sets
        ("core/commonTest/src/TestId.kt", "tests"),
        ("lib/src/testFixtures/java/Fakes.java", "tests"),
        ("okio/src/nonJvmTest/kotlin/okio/Fake.kt", "tests"),
        ("src/UnitTests/ForPath.cs", "tests"),  # .NET test projects
        ("src/IntegrationTests/Mapping.cs", "tests"),
        ("Src/Newtonsoft.Json.Tests/Linq/JArrayRead.cs", "tests"),
        ("src/Latest/Cache.cs", "code"),
        ("src/UITest/Screen.cs", "code"),  # not "<word>Test": an acronym
        ("servant/src/Servant/Test/ComprehensiveAPI.hs", "code"),  # a module namespace
        ("src/latest/contest/Runner.kt", "code"),
        ("integration_test/cases/repo.exs", "tests"),  # a tree's own test folders
        ("e2e-tests/login.spec.ts", "tests"),
        ("lib/rails/generators/rails/integration_test/generator.rb", "code"),  # writes tests
        ("docs/Classes/Session.html", "docs"),
        ("app/templates/session.html", "code"),
        ("test.c", "tests"),  # a file named test or tests, outside a source folder
        ("polls/tests.py", "tests"),
        ("tests/conftest.py", "tests"),
        ("lib/plug/test.ex", "code"),  # code that runs tests
        ("lib/sidekiq/test_api.rb", "code"),  # code that helps tests
        ("packages/testing/src/testing.ts", "code"),
        ("testing/test_collection.py", "tests"),  # pytest's own tests
        ("testing/conftest.py", "tests"),
        ("test/test_client.rb", "tests"),
        ("pkg/test_client.py", "tests"),
        ("packages/vitest/src/runtime/runners/test.ts", "code"),
        ("src/contest.py", "code"),
        ("regress/hooks-after.sh", "tests"),  # tmux's and the BSDs' regression tests
        ("statsmodels/regression/linear_model.py", "code"),
        ("testes/gc.lua", "tests"),  # Lua's own test suite
        ("gcc/testsuite/gcc.dg/pr1.c", "tests"),
        ("test-suite/cases/a.sh", "tests"),
        ("json_test_suite/n_number.json", "tests"),
        ("test-d/verbose.test-d.ts", "tests"),  # TypeScript's type tests
        ("packages/pinia/test-dts/onAction.ts", "tests"),
        ("src/__typetest__/errors.ts", "tests"),
        ("src/test-data/loader.ts", "code"),
        ("src/testers/runner.py", "code"),
        # code no grammar reads is code all the same; unknown files are text
        ("aiohttp/_http_parser.pyx", "code"),
        ("cmd-parse.y", "code"),
        ("app/views/sessions/new.html.erb", "code"),
        ("lib/plug/templates/debugger.html.eex", "code"),
        ("notes/meeting.txt", "docs"),
        ("doc.go", "docs"),  # Go's package documentation, all comments
        ("zapcore/doc.go", "docs"),
        ("internal/godoc.go", "code"),
        ("src/doc.rs", "code"),
        ("data/notes.unknown", "docs"),
    ],
)
def test_file_categories_by_path(path: str, category: str) -> None:
    language = language_for(path)
    assert category_of(path, language) == category


def test_haskell_quickcheck_properties_rank_as_tests(tmp_path: Path) -> None:
    source = (
        "module Checks where\n\n"
        'prop_checkUselessCat1 = verify checkUselessCat "cat foo | grep bar"\n'
        'prop_checkUselessCat2 = verifyNot checkUselessCat "cat * | grep bar"\n\n'
        "-- | Warns of a useless cat piped into a command.\n"
        "checkUselessCat _ (T_Pipeline _ _ (cmd:_:_)) =\n"
        '    warn "Useless cat. Read the file with the command."\n'
        "checkUselessCat _ _ = return ()\n"
    )
    root = _write(tmp_path, {"src/Checks.hs": source})
    index = Index(root)
    tests = index.search("useless cat", mode="lexical", category="tests").results
    assert [r.symbol for r in tests] == ["prop_checkUselessCat1"]
    code = index.search("useless cat", mode="lexical", category="code").results
    assert [r.symbol for r in code] == ["checkUselessCat"]


def test_tests_inside_source_files_rank_as_tests(tmp_path: Path) -> None:
    """Rust's `mod tests` and Zig's test blocks sit in the file they test: at equal
    scores the code comes first for a question about it and the test for a question
    about tests; the category filter sees them as tests; a Zig test named after a type
    is not its definition."""
    retry = (
        "/// Waits longer after each failed attempt.\n"
        "pub fn backoff_delay(attempt: u32) -> u64 {\n"
        "    100 * 2u64.pow(attempt)\n"
        "}\n\n"
        "#[cfg(test)]\n"
        "mod tests {\n"
        "    use super::*;\n\n"
        "    #[test]\n"
        "    fn backoff_delay_doubles_after_each_failed_attempt() {\n"
        "        assert_eq!(backoff_delay(1), 200);\n"
        "    }\n"
        "}\n"
    )
    root = _write(
        tmp_path,
        {
            "src/retry.rs": retry,
            "src/queue.zig": "pub const Queue = struct {\n"
            "    items: []u32,\n"
            "    pub fn push(self: *Queue, item: u32) void {\n"
            "        _ = self;\n"
            "        _ = item;\n"
            "    }\n"
            "};\n\n"
            "test Queue {\n"
            "    var queue = Queue{ .items = &.{} };\n"
            "    queue.push(1);\n"
            "    queue.push(2);\n"
            "}\n",
        },
    )
    index = Index(root)
    rows = {r.symbol: r for r in index.search("backoff delay", mode="lexical").results}
    assert set(rows) == {"backoff_delay", "tests"}
    meta = MetaStore(root / ".sleuth" / "meta.db")
    chunks = meta.candidate_rows(set(meta.live_chunk_ids().tolist()))
    meta.close()
    in_retry = [row for row in chunks.values() if row.path == "src/retry.rs"]
    for query, first in (
        ("how long the delay is after a failed attempt", "backoff_delay"),
        ("tests for the delay after a failed attempt", "tests"),
    ):
        scored = [Scored(row, 1.0) for row in in_retry]
        priors.apply_priors(classify(query), scored, {})
        best = {item.row.symbol: item.score for item in scored}
        assert best.pop(first) > max(best.values()), query
    only_tests = index.search("failed attempt", mode="lexical", category="tests").results
    assert [r.symbol for r in only_tests] == ["tests"]
    only_code = index.search("failed attempt", mode="lexical", category="code").results
    assert [r.symbol for r in only_code] == ["backoff_delay"]
    test_names = index.find_symbol("backoff_delay*", category="tests")
    assert [r.symbol for r in test_names] == [
        "tests.backoff_delay_doubles_after_each_failed_attempt"
    ]
    named = index.search("Queue", mode="lexical").results
    assert (named[0].symbol, named[0].kind) == ("Queue", "struct")
    assert [r.kind for r in index.find_symbol("Queue")] == ["struct"]
    index.close()


def test_the_definition_in_the_query_case_comes_first(tmp_path: Path) -> None:
    """`Command` asks for the class, not the `command` decorator that builds one."""
    root = _write(
        tmp_path,
        {
            "cli/decorators.py": "def command(name=None):\n"
            '    """Make a Command from a function: command(name) -> Command."""\n'
            "    return lambda f: Command(name or f.__name__, f)\n",
            "cli/core.py": "class Command:\n"
            '    """A command line entry point."""\n\n'
            "    def __init__(self, name, callback):\n"
            "        self.name, self.callback = name, callback\n",
        },
    )
    for query in ("Command", "command"):
        top = Index(root).search(query, mode="lexical").results[0]
        assert top.symbol == query, query


def test_a_name_asked_without_its_sigil_finds_the_definition(tmp_path: Path) -> None:
    """`ZodType` names `$ZodType`: a leading `$` is not part of what people type
    (`tokens.NAME_SIGILS`), so the definition outranks a file that only uses the name."""
    root = _write(
        tmp_path,
        {
            "core/schemas.ts": "export class $ZodType {\n"
            "  constructor(public def: object) {}\n"
            "  parse(input: unknown) { return input; }\n"
            "}\n",
            "classic/usage.ts": "export function wrap(inner: $ZodType): $ZodType {\n"
            "  const outer = new $ZodType({ inner });\n"
            "  // $ZodType wraps $ZodType: every $ZodType here is a use\n"
            "  return outer;\n"
            "}\n",
        },
    )
    index = Index(root)
    top = index.search("ZodType", mode="lexical").results[0]
    assert (top.path, top.symbol) == ("core/schemas.ts", "$ZodType")
    found = index.find_symbol("ZodType")
    assert [(r.path, r.symbol) for r in found] == [("core/schemas.ts", "$ZodType")]


def test_a_file_written_with_its_extension_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`keylog.h` asks for the header, though `keylog.c` says `keylog` far more often;
    a path picks one `utils.py` of several, and the file is found even when no other
    word of the query matches it."""
    root = _write(
        tmp_path,
        {
            "tls/keylog.c": "\n".join(
                f"int keylog_write_{i}(struct keylog *keylog) {{\n"
                f"    return keylog_flush(keylog, {i});\n}}\n"
                for i in range(3)
            ),
            "tls/keylog.h": "#define KEYLOG_LABEL_MAXLEN 32\nint keylog_open(void);\n"
            "int keylog_write_0(struct keylog *keylog);\nvoid keylog_close(void);\n",
            "web/utils.py": "def parse_header(value):\n    return value.split(';')\n",
            "cli/utils.py": "def parse_header(value):\n    return value.strip().split(';')\n",
            # more chunks about the other words than a search reads as candidates (below)
            **{
                f"macros/m{i}.c": f"int replace_literal_{i}(int number) {{\n"
                f"    return REPLACE_LITERAL_MACRO_{i}(number, replace, literal, macro);\n}}\n"
                for i in range(8)
            },
        },
    )
    index = Index(root)

    def first(query: str) -> str:
        return index.search(query, mode="lexical").results[0].path

    assert first("keylog") == "tls/keylog.c"  # without the extension: the code
    assert first("keylog.h") == first("where is keylog.h declared") == "tls/keylog.h"
    assert first("keylog.h: replace literal number with macro") == "tls/keylog.h"
    assert first("parse header in cli/utils.py") == "cli/utils.py"
    assert first("parse header in web/utils.py") == "web/utils.py"
    # A named file is a candidate even when better matches of the other words fill the
    # candidates a search reads.
    monkeypatch.setattr(config, "CANDIDATES", 4)
    assert first("keylog.h: replace literal number with macro") == "tls/keylog.h"
    # A list of hundreds of file names is a query like any other.
    assert index.search(" ".join(f"a/b/c/f{i}.h" for i in range(600)), mode="lexical")


def test_file_names_written_in_a_query() -> None:
    """A name with a known source extension is a file; names with dots are not."""
    assert named_files("keylog.h: use a macro") == ("keylog.h",)
    assert named_files("Simplify `fastapi/utils.py` and index.d.ts") == (
        "fastapi/utils.py",
        "index.d.ts",
    )
    assert named_files("move code from fs.c to threadpool.c, then fs.c") == ("fs.c", "threadpool.c")
    for none in ("res.send body", "lazy.nvim plugins", "links to docs.rs/serde", "v1.2 notes"):
        assert named_files(none) == ()
    assert len(named_files(" ".join(f"src/f{i}.py" for i in range(3000)))) == MAX_NAMED_FILES
    # As written: lower case names a file in any case; a capital must match.
    assert named_files("how Express.js routes") == ("Express.js",)
    assert not names_path("lib/express.js", "Express.js")
    assert names_path("lib/express.js", "express.js")
    assert names_path("XMonad/ManageHook.hs", "managehook.hs")
    assert names_path("XMonad/ManageHook.hs", "ManageHook.hs")
    assert names_path("app.py", "src/flask/app.py")  # an index rooted at src/flask
    assert not names_path("myapp.py", "app.py")


def test_a_type_comes_before_the_impl_blocks_named_for_it(tmp_path: Path) -> None:
    """`impl Fragment` is named for the type but does not define it: asking for
    `Fragment` finds the `enum`, though the impl block says the name more often."""
    root = _write(
        tmp_path,
        {
            "src/fragment.rs": "pub enum Fragment {\n    Expr(String),\n    Block(String),\n}\n\n"
            + "\n".join(f"fn helper_{i}() -> u32 {{\n    {i}\n}}\n" for i in range(8))
            + "\nimpl Fragment {\n"
            "    pub fn wrap(self) -> Fragment {\n        match self {\n"
            "            Fragment::Expr(e) => Fragment::Block(e),\n"
            "            Fragment::Block(b) => Fragment::Block(b),\n        }\n    }\n}\n",
        },
    )
    index = Index(root)
    top = index.search("Fragment", mode="lexical").results[0]
    assert (top.kind, top.start_line) == ("enum", 1)
    assert [r.kind for r in index.find_symbol("Fragment")] == ["enum", "impl"]


def test_a_swift_type_comes_before_its_extensions(tmp_path: Path) -> None:
    """`extension Delegate` adds to the type as Rust's `impl` does: a short extension
    that says the name often must not pass for the long, documented class."""
    members = "".join(
        f"    /// Step {i} of the delegate's work.\n"
        f"    public func step{i}(_ input: Input) -> Output? {{\n"
        "        return block?(input)\n    }\n\n"
        for i in range(6)
    )
    root = _write(
        tmp_path,
        {
            "Sources/Delegate.swift": "/// A box for a callback that holds its owner weakly.\n"
            "public class Delegate<Input, Output> {\n"
            "    private var block: ((Input) -> Output?)?\n\n" + members + "}\n\n"
            "extension Delegate where Input == Void {\n"
            "    public func call() -> Output? { return step0(()) }\n}\n\n"
            "extension Delegate where Output == Void {\n"
            "    public func run(_ input: Input) { _ = step1(input) }\n}\n",
        },
    )
    index = Index(root)
    for mode in ("lexical", "hybrid"):
        top = index.search("Delegate", mode=mode).results[0]
        assert (top.kind, top.start_line) == ("class", 1), mode
    assert [r.kind for r in index.find_symbol("Delegate")] == ["class", "impl", "impl"]


def test_the_piece_of_a_long_definition_with_its_first_line_comes_first(
    tmp_path: Path,
) -> None:
    """A long trait is chunked in pieces, each named for it: asking for the name finds
    the piece that holds `pub trait Serializer` (signals.PRIORS["definition_head"])."""
    declarations = "".join(
        f"    /// Serialize value number {i}.\n"
        f"    fn serialize_v{i}(self, v: u{i}) -> Result<Self::Ok, Self::Error>;\n\n"
        for i in range(60)
    )
    root = _write(
        tmp_path,
        {
            "src/ser.rs": "/// A data format that can serialize any data structure.\n"
            "pub trait Serializer: Sized {\n    type Ok;\n    type Error;\n\n"
            + declarations
            + "    fn done(self) -> Result<Self::Ok, Self::Error>;\n}\n",
        },
    )
    results = Index(root).search("Serializer", mode="lexical").results
    assert results[0].symbol == "Serializer"
    assert results[0].start_line <= 2 <= results[0].end_line


def test_a_later_piece_of_a_definition_trades_places_with_its_first() -> None:
    """Pieces of one long definition: when a later piece scores best (its words, or the
    model, liked it more), the piece with the first line takes its score, and the file
    keeps the same scores (signals.SIGNALS["lead_with_heads"])."""

    def piece(start: int, score: float, defines: int) -> Scored:
        row = ChunkRow(
            start, "Job.kt", "kotlin", start, start + 59, "class", "JobSupport", "", "", "", "", ""
        )
        return Scored(row, score, defines=defines)

    head, middle, last = piece(1, 1.2, 2), piece(61, 2.0, 1), piece(121, 1.5, 1)
    other = Scored(
        ChunkRow(9, "Other.kt", "kotlin", 1, 9, "class", "Other", "", "", "", "", ""), 1.9
    )
    file_order.lead_with_heads([head, middle, last, other])
    assert (head.score, middle.score, last.score, other.score) == (2.0, 1.2, 1.5, 1.9)
    signals.SIGNALS["lead_with_heads"] = False
    try:
        again = [piece(1, 1.2, 2), piece(61, 2.0, 1)]
        file_order.lead_with_heads(again)
        assert [item.score for item in again] == [1.2, 2.0]
    finally:
        signals.SIGNALS["lead_with_heads"] = True


def test_a_piece_of_the_definition_below_the_cut_still_joins_its_shown_piece() -> None:
    """Two overloads of one method, next to each other: the second sinks below the cut
    (by score and the same-file penalty) and still widens the first's result, as it would
    above the cut, unless the result would outgrow a chunk (signals "join_below_cut")."""

    def hit(path: str, start: int, end: int, score: float, symbol: str = "get") -> Scored:
        row = ChunkRow(start, path, "java", start, end, "method", symbol, "", "", "", "", "")
        return Scored(row, score)

    def ranked(second: tuple[int, int]) -> list[tuple[str, int, int]]:
        scored = [
            hit("CommandLine.java", 10, 30, 2.0),
            hit("CommandLine.java", *second, 0.4),
            hit("Option.java", 5, 15, 1.5, "getKey"),
            hit("Parser.java", 40, 60, 1.0, "parse"),
        ]
        kept = merge_and_cut(scored, k=2)
        return [(item.row.path, item.start_line, item.end_line) for item in kept]

    assert ranked((32, 50)) == [("CommandLine.java", 10, 50), ("Option.java", 5, 15)]
    # joined, it would run past a chunk's length: the first piece is shown alone
    assert config.CHUNK_MAX_LINES < 100 - 10 + 1
    assert ranked((32, 100)) == [("CommandLine.java", 10, 30), ("Option.java", 5, 15)]
    signals.SIGNALS["join_below_cut"] = False
    try:
        assert ranked((32, 50)) == [("CommandLine.java", 10, 30), ("Option.java", 5, 15)]
    finally:
        signals.SIGNALS["join_below_cut"] = True


def _upload_queue() -> str:
    """A Java class whose header (doc comment, fields) matches a question about retries
    best, and whose `drain` method does the retrying."""
    filler = "".join(f"        int step{i} = {i} * failed.size();\n" for i in range(12))
    counted = [
        f"    public int {name}() {{\n{filler}        return failed.size();\n    }}\n"
        for name in ("size", "isEmpty", "clear", "peek")
    ]
    drain = (
        "    public void drain(Sender sender) throws InterruptedException {\n"
        "        // a failed upload is retried after a longer wait each time\n"
        "        while (!failed.isEmpty()) {\n"
        "            Upload next = failed.poll();\n"
        "            if (next.attempts() >= maxAttempts) {\n"
        "                continue;\n"
        "            }\n"
        "            Thread.sleep(backoffMillis * next.attempts());\n"
        "            if (!sender.send(next)) {\n"
        "                failed.add(next.again());\n"
        "            }\n"
        "        }\n"
        "    }\n"
    )
    return (
        "package uploads;\n\nimport java.util.ArrayDeque;\nimport java.util.Deque;\n\n"
        "/**\n * Holds failed uploads until they are retried.\n */\n"
        "public class UploadQueue {\n"
        "    private final Deque<Upload> failed = new ArrayDeque<>();\n"
        "    private final int maxAttempts;\n    private final long backoffMillis;\n\n"
        + "\n".join(counted[:2])
        + "\n"
        + drain
        + "\n"
        + "\n".join(counted[2:])
        + "}\n"
    )


_RETRY_CODE = (
    "def retry_failed_uploads(queue, send):\n"
    "    for upload in queue.failed():\n"
    "        if not send(upload):\n"
    "            queue.requeue(upload)\n"
)


def test_examples_snippets_and_demos_come_after_the_code_they_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folders of examples, samples, snippets and demos, in any case (C#'s `Samples/`,
    `Snippets/Docs/`), hold code that shows the code: it comes second even when it says
    the words more often (PRIORS["auxiliary"]), unless the question asks for examples."""
    shown = "# how to retry failed uploads\n" + _RETRY_CODE
    # and the forms a leading underscore or another name takes: chi's `_examples/`,
    # Rust's `benches/`, FastAPI's `docs_src/`, a `playground/` package
    folders = ["Examples", "samples", "src/Snippets/Docs", "demos", "_examples", "benches"]
    folders += ["docs_src/tutorial", "packages/playground"]
    # and the project's own tooling at its top (generators, release scripts)
    folders += ["scripts"]
    files = {f"{folder}/uploads.py": shown for folder in folders}
    root = write_tree(tmp_path, {"lib/uploads.py": _RETRY_CODE, **files})
    index = Index(root)
    index.index(embed="none")
    results = index.search("retry failed uploads", mode="lexical").results
    assert results[0].path == "lib/uploads.py"
    assert {r.path for r in results[1:]} == set(files)
    monkeypatch.setitem(signals.PRIORS, "auxiliary", 1.0)
    before = index.search("retry failed uploads", mode="lexical").results
    assert before[0].path != "lib/uploads.py"


def test_a_question_for_examples_is_answered_by_them(tmp_path: Path) -> None:
    """The auxiliary prior steps aside when the question asks for examples or demos."""
    files = {"lib/uploads.py": _RETRY_CODE, "examples/uploads.py": _RETRY_CODE}
    index = Index(write_tree(tmp_path, files))
    index.index(embed="none")
    assert index.search("retry failed uploads", mode="lexical").results[0].path == (
        "lib/uploads.py"
    )
    top = index.search("examples of retrying failed uploads", mode="lexical").results[0]
    assert top.path == "examples/uploads.py"


def test_only_a_top_level_scripts_folder_is_tooling(tmp_path: Path) -> None:
    """`scripts/` at the top holds the project's tooling and comes after its code,
    unless the question asks for a script; a `scripts` folder inside the source is
    the code (a package of script handlers)."""
    files = {
        "lib/uploads.py": _RETRY_CODE,
        "scripts/uploads.py": "# retry failed uploads by hand\n" + _RETRY_CODE,
        "src/app/scripts/uploads.py": "# retry failed uploads in a job\n" + _RETRY_CODE,
    }
    index = Index(write_tree(tmp_path, files))
    index.index(embed="none")
    paths = [r.path for r in index.search("retry failed uploads", mode="lexical").results]
    assert paths.index("lib/uploads.py") < paths.index("scripts/uploads.py")
    assert paths.index("src/app/scripts/uploads.py") < paths.index("scripts/uploads.py")
    asked = index.search("script that retries failed uploads", mode="lexical").results
    assert asked[0].path == "scripts/uploads.py"


def test_a_question_in_words_is_answered_by_the_method_before_its_class_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The class header matches the words best, the method that retries nearly as well:
    the method comes first, the header after it with the method's score (the file keeps
    its scores; signals.SIGNALS["lead_with_code"]). A name asked for keeps its type first."""
    root = write_tree(tmp_path, {"src/UploadQueue.java": _upload_queue()})
    index = Index(root)
    index.index(embed="none")
    question = "how are failed uploads retried"
    results = index.search(question, mode="lexical").results
    assert (results[0].symbol, results[0].kind) == ("drain", "method")
    assert results[1].symbol == "UploadQueue"
    assert index.search("UploadQueue", mode="lexical").results[0].symbol == "UploadQueue"
    monkeypatch.setitem(signals.SIGNALS, "lead_with_code", 0)
    monkeypatch.setitem(signals.SIGNALS, "file_opening", 0)  # the class opens the file
    before = index.search(question, mode="lexical").results
    assert (before[0].symbol, before[1].symbol) == ("UploadQueue", "drain")
    assert before[0].score == results[0].score  # the same scores, traded


def test_a_question_in_words_is_answered_by_the_longer_of_two_close_chunks_of_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 3-line constant getter and the 13-line function that retries both say the words;
    BM25 prefers the short one. For a question in words the file's scores go to its
    chunks in order of score x lines^0.2: the function comes first with the file's best
    score, and the scores are the same two (signals.SIGNALS["longer_first"]). A name asked
    for is left alone."""
    body = "".join(f"        attempt_{i} = queue.attempts(upload) + {i}\n" for i in range(8))
    text = (
        'def retry_delay():\n    """Seconds before a failed upload is retried."""\n'
        "    return 5\n\n\n"
        "def resend_failed(queue, send):\n"
        '    """Each failed upload is sent again until it is retried too often."""\n'
        "    for upload in queue.failed():\n"
        + body
        + "        if not send(upload):\n            queue.requeue(upload)\n"
    )
    index = Index(write_tree(tmp_path, {"uploads.py": text}))
    index.index(embed="none")
    question = "how is a failed upload retried"
    results = index.search(question, mode="lexical").results
    assert [r.symbol for r in results] == ["resend_failed", "retry_delay"]
    assert index.search("retry_delay", mode="lexical").results[0].symbol == "retry_delay"
    monkeypatch.setitem(signals.SIGNALS, "longer_first", 0)
    monkeypatch.setitem(signals.SIGNALS, "file_opening", 0)  # the getter opens the file
    before = index.search(question, mode="lexical").results
    assert [r.symbol for r in before] == ["retry_delay", "resend_failed"]
    assert [r.score for r in before] == [r.score for r in results]


def test_a_question_in_words_is_answered_by_code_before_a_file_opening_or_constant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module's opening summary and a table of constants say the words of the question
    more often than the function that does the work; for a question in words the file's
    best score goes to the function all the same, and the scores are the same two
    (signals.SIGNALS["code_in_file"], ["file_opening"]). A document's opening section
    is left alone."""
    opening = (
        '"""Failed uploads: how a failed upload is retried.\n\n'
        "A failed upload is retried after a delay; uploads that failed too often are dropped.\n"
        '"""\n\nimport time\n\nMAX_ATTEMPTS = 5\n\n\n'
        "def resend(queue, send):\n"
        '    """A failed upload goes out again until retried too often."""\n'
        "    for item in queue.pending():\n"
        "        if queue.attempts(item) > MAX_ATTEMPTS:\n"
        "            queue.drop(item)\n"
        "        elif not send(item):\n"
        "            time.sleep(1)\n"
        "            queue.requeue(item)\n"
    )
    table = (
        "import os\n\n\ndef retry_after(upload):\n"
        '    """Seconds to wait before a failed upload is retried."""\n'
        '    return int(os.environ.get("DELAY", "5")) * upload.attempts\n\n\n'
        "RETRY_POLICY = {\n"
        '    "failed upload": "retried",\n'
        '    "failed upload twice": "retried later",\n'
        '    "failed upload thrice": "retried much later",\n}\n'
    )
    question = "how is a failed upload retried"
    for name, text, code, other in [
        ("uploads.py", opening, "resend", ""),
        ("policy.py", table, "retry_after", "RETRY_POLICY"),
    ]:
        monkeypatch.undo()
        index = Index(write_tree(tmp_path / name, {name: text}))
        index.index(embed="none")
        results = index.search(question, mode="lexical").results
        assert [r.symbol for r in results] == [code, other]
        monkeypatch.setitem(signals.SIGNALS, "code_in_file", 0)
        monkeypatch.setitem(signals.SIGNALS, "file_opening", 0)
        before = index.search(question, mode="lexical").results
        assert [r.symbol for r in before] == [other, code]
        assert [r.score for r in before] == [r.score for r in results]
        index.close()
    # A document's opening section is its overview: it keeps its place.
    readme = (
        "# Archive client\n\nSends files to the archive and retries a failed upload until"
        " it goes through.\nA failed upload waits in a queue.\n\n## Settings\n\n"
        "`max_attempts`: how often a failed upload is retried before the upload is dropped."
        "\n`delay`: seconds between two attempts.\n"
    )
    monkeypatch.undo()
    index = Index(write_tree(tmp_path / "docs", {"README.md": readme}))
    index.index(embed="none")
    question = "what happens to a failed upload"
    results = index.search(question, mode="lexical").results
    assert [r.symbol for r in results] == ["Archive client", "Settings"]
    monkeypatch.setattr(file_order, "DOC_LANGUAGES", frozenset())
    assert [r.symbol for r in index.search(question, mode="lexical").results] == [
        "Settings",
        "Archive client",
    ]


def test_a_long_function_named_with_its_owner_answers_with_its_first_piece(
    tmp_path: Path,
) -> None:
    """Lua's `function Spec:import(spec)` is named with its owner; asking `import` finds
    the piece with its first line, though a later piece says "import" more often."""
    body = "".join(f"  local step_{i} = spec.value + {i}\n" for i in range(70))
    tail = "".join(f"  self:import_one(spec, {i}) -- import, import again\n" for i in range(8))
    root = _write(
        tmp_path,
        {
            "plugin.lua": "local Spec = {}\n\n---Imports a spec.\nfunction Spec:import(spec)\n"
            + body
            + tail
            + "end\n\nreturn Spec\n"
        },
    )
    top = Index(root).search("import", mode="lexical").results[0]
    assert top.symbol == "Spec:import" and top.start_line <= 4 <= top.end_line


def test_one_far_off_candidate_does_not_reorder_the_others() -> None:
    """Cosines are scaled from the candidates' mean (signals.SIGNALS["semantic_floor"]): one
    unrelated candidate with a very low similarity must not lift every average candidate
    close to the best vector match (min-max did: a word match of average similarity then
    overtook the chunk the vectors clearly preferred)."""
    plan = classify("where are retries scheduled")
    rows, lexical, semantic = {}, {}, {}
    for i in range(20):
        rows[i] = ChunkRow(i, f"pkg/m{i}.py", "python", 1, 5, "function", "", "", "", "", "", "")
        semantic[i] = 0.30 + 0.01 * (i % 5)
    lexical[0] = 10.0  # a word match of low similarity
    semantic[0] = 0.30
    semantic[1] = 0.45  # the clear vector match, few shared words
    lexical[1] = 2.0

    def order(extra: dict[int, float]) -> list[int]:
        sem = {**semantic, **extra}
        pool = {
            **rows,
            **{
                c: ChunkRow(c, "x.py", "python", 1, 2, "block", "", "", "", "", "", "")
                for c in extra
            },
        }
        scored = fuse(plan, lexical, sem, pool, "hybrid")
        return [s.row.id for s in sorted(scored, key=lambda s: -s.score)][:2]

    assert order({}) == [1, 0]
    assert order({99: -0.25}) == [1, 0]


def test_the_static_view_breaks_a_near_tie_of_the_deep_vectors() -> None:
    """With both tiers built, each model's cosines are scaled on their own and blended
    (signals.SIGNALS["static_share"]): the table's cosines sit on another scale (here all
    near 0.8), yet its clear preference decides between two chunks the transformer
    scores alike, and it does not overturn a clear preference of the transformer."""
    plan = classify("where are retries scheduled")
    rows = {
        i: ChunkRow(i, f"pkg/m{i}.py", "python", 1, 5, "function", "", "", "", "", "", "")
        for i in range(12)
    }
    deep = {i: 0.20 + 0.005 * i for i in range(10)}
    deep.update({10: 0.500, 11: 0.495})  # a near tie at the top
    static = {i: 0.80 for i in range(12)}
    static[11] = 0.86  # the table clearly prefers 11

    def top(semantic: dict[int, float], table: dict[int, float] | None) -> int:
        scored = fuse(plan, {}, semantic, rows, "semantic", table)
        return max(scored, key=lambda s: s.score).row.id

    assert top(deep, None) == 10
    assert top(deep, static) == 11
    clear = {**deep, 11: 0.30}  # the transformer prefers 10 by far: the blend keeps it
    assert top(clear, static) == 10


def test_prose_does_not_outrank_code_for_being_prose() -> None:
    """A question in words is nearer to any prose than to code in the model's space
    (signals.SIGNALS["prose_alignment"]): prose cosines are moved onto the code candidates'
    mean and spread, so the code that stands out among code beats the paragraph that
    is merely the best of the prose."""
    plan = classify("where are retries scheduled")
    rows, semantic = {}, {}
    for i in range(12):
        rows[i] = ChunkRow(i, f"pkg/m{i}.py", "python", 1, 5, "function", "", "", "", "", "", "")
        semantic[i] = 0.30 + 0.01 * (i % 10)
    semantic[11] = 0.45  # the function the question is about
    for i in range(20, 26):
        rows[i] = ChunkRow(i, f"docs/p{i}.md", "markdown", 1, 5, "section", "", "", "", "", "", "")
        semantic[i] = 0.55 + 0.01 * (i - 20)  # all prose sits higher

    def top() -> int:
        scored = fuse(plan, {}, semantic, rows, "semantic")
        return max(scored, key=lambda s: s.score).row.id

    assert top() == 11
    signals.SIGNALS["prose_alignment"] = False
    try:
        assert top() == 25
    finally:
        signals.SIGNALS["prose_alignment"] = True


def test_a_narrow_filter_finds_matches_beyond_the_usual_candidates(tmp_path: Path) -> None:
    """A path filter that few candidates pass widens the search instead of missing them."""
    files = {
        f"lib/mod_{i}.py": f"def billing_{i}():\n    return 'invoice invoice invoice {i}'\n"
        for i in range(260)
    }
    files["special/deep.py"] = "def rarely_used():\n    # one invoice mention\n    return 1\n"
    root = tmp_path / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    index = Index(root)
    index.index(embed="none")
    unfiltered = index.search("invoice", k=250, mode="lexical").results
    assert "special/deep.py" not in {r.path for r in unfiltered}  # beyond the usual pool
    hits = index.search("invoice", mode="lexical", path="special/**").results
    assert [r.path for r in hits] == ["special/deep.py"]
    index.close()


def test_the_newest_version_folder_comes_first_unless_the_query_names_another(
    tmp_path: Path,
) -> None:
    body = "def parse_schema(text):\n    # Parse a schema definition into nodes.\n    return []\n"
    root = tmp_path / "repo"
    for version in ("v1", "v2"):
        (root / "lib" / version).mkdir(parents=True)
        (root / "lib" / version / "schema.py").write_text(body)
    index = Index(root)
    index.index(embed="none")
    plain = index.search("parse schema definition", mode="lexical").results
    assert plain[0].path == "lib/v2/schema.py"
    named = index.search("parse schema definition in v1", mode="lexical").results
    assert named[0].path == "lib/v1/schema.py"
    index.close()


@pytest.mark.parametrize(("older", "newer"), [("v1.6", "v1.8"), ("v1.9", "v1.10")])
def test_minor_versions_are_versions_too(tmp_path: Path, older: str, newer: str) -> None:
    """jq keeps its manual for every release (`manual/v1.6/`, `manual/v1.7/`): a minor
    version is older or newer as a number, not by its major alone (nor as text)."""
    body = "def parse_schema(text):\n    # Parse a schema definition into nodes.\n    return []\n"
    root = tmp_path / "repo"
    for version in (newer, older):
        (root / "manual" / version).mkdir(parents=True)
        (root / "manual" / version / "schema.py").write_text(body)
    index = Index(root)
    index.index(embed="none")
    results = index.search("parse schema definition", mode="lexical").results
    assert [r.path for r in results][:2] == [
        f"manual/{newer}/schema.py",
        f"manual/{older}/schema.py",
    ]
    assert results[1].score < 0.8 * results[0].score  # lowered, not a tie
    index.close()


def paths_after_priors(plan: QueryPlan, scored: list[Scored], definitions: dict) -> list[str]:
    """The candidates' paths, best first, once the priors have scored them."""
    priors.apply_priors(plan, scored, definitions)
    return [item.row.path for item in sorted(scored, key=lambda item: -item.score)]


def test_a_name_only_an_older_version_defines_is_found_there() -> None:
    """`isEmoji` is defined only in v3: the older version is what was asked for, so it
    is not ranked below v4's candidates (which it is for a name both versions hold)."""
    plan = classify("isEmoji")
    rows = {
        1: ChunkRow(
            1,
            "src/v3/types.ts",
            "typescript",
            1,
            40,
            "class",
            "ZodString",
            "",
            "",
            "ZodString isEmoji",  # a class's chunk names its members
            "",
            "",
        ),
        2: ChunkRow(
            2, "src/v4/schemas.ts", "typescript", 1, 40, "class", "ZodEmoji", "", "", "", "", ""
        ),
    }

    def order(definitions: dict) -> list[str]:
        return paths_after_priors(plan, [Scored(rows[1], 1.0), Scored(rows[2], 1.5)], definitions)

    only_v3 = {"isemoji": [DefinitionSpan("src/v3/types.ts", 12, 14, "isEmoji", "function")]}
    both = {
        "isemoji": [
            DefinitionSpan("src/v3/types.ts", 12, 14, "isEmoji", "function"),
            DefinitionSpan("src/v4/schemas.ts", 30, 32, "isEmoji", "function"),
        ]
    }
    assert order(only_v3) == ["src/v3/types.ts", "src/v4/schemas.ts"]
    assert order(both) == ["src/v4/schemas.ts", "src/v3/types.ts"]


@pytest.mark.parametrize(
    ("path", "language", "kind", "declares"),
    [
        ("src/types/reducers.ts", "typescript", "interface", True),
        ("index.d.ts", "typescript", "function", True),
        # a module named for its types: its declarations declare, its code is code
        ("src/_internal/types.ts", "typescript", "interface", True),
        ("src/types.tsx", "tsx", "type", True),
        ("src/structs/types.ts", "typescript", "function", False),
        ("src/v3/types.ts", "typescript", "class", False),
        ("src/mytypes.ts", "typescript", "interface", False),
        ("lib/types.js", "javascript", "type", False),  # JavaScript's hold run-time checks
        ("src/types.rs", "rust", "type", False),
    ],
)
def test_type_declaration_modules(path: str, language: str, kind: str, declares: bool) -> None:
    row = ChunkRow(1, path, language, 1, 9, kind, "Config", "", "", "", "", "")
    assert priors._declares_only(row) is declares


def test_type_declarations_rank_below_the_code_that_does_the_work(tmp_path: Path) -> None:
    """A question in words wants the reducer, not the interface whose comment repeats
    its words (without the prior the interface comes first here); a query naming the
    type still finds its declaration first."""
    root = _write(
        tmp_path / "repo",
        {
            "src/types/reducers.ts": (
                "/** A reducer combines the current state and an action into new state:"
                " every action and state pass through it. */\n"
                "export interface CombinedReducer<S, A> {\n"
                "  (state: S | undefined, action: A): S\n"
                "}\n"
            ),
            "src/reducers.ts": (
                "export function combineReducers(reducers) {\n"
                "  // each reducer gets its own slice\n"
                "  return function combination(state = {}, action) {\n"
                "    const next = {}\n"
                "    for (const key of Object.keys(reducers)) {\n"
                "      next[key] = reducers[key](state[key], action)\n"
                "    }\n"
                "    return next\n"
                "  }\n"
                "}\n"
            ),
        },
    )
    index = Index(root)
    words = index.search("how a reducer combines state and action", mode="lexical").results
    assert words[0].path == "src/reducers.ts"
    named = index.search("CombinedReducer", mode="lexical").results
    assert named[0].path == "src/types/reducers.ts"
    index.close()
    # CommonJS and ES module declarations (.d.cts, .d.mts) rank as .d.ts files do
    declarations = (root / "src/types/reducers.ts").read_text()
    scores = []
    for extension in ("d.ts", "d.cts", "d.mts"):
        tree = _write(
            tmp_path / extension,
            {
                f"src/reducers.{extension}": declarations,
                "src/combine.ts": "export "
                "function combine(reducers) {\n  return (state, action) => state\n}\n",
            },
        )
        found = Index(tree).search("how a reducer combines state and action", mode="lexical")
        scores.append({r.path.split(".", 1)[1]: r.score for r in found.results}[extension])
    assert scores[0] == scores[1] == scores[2], scores


def test_a_name_is_answered_by_its_module_before_its_type_stub(tmp_path: Path) -> None:
    """A `.pyi` stub declares `retry` in three overloads, saying the name and its
    parameters more often than the module that defines it once (without the prior the
    stub comes first here); a stub with no module beside it is still found by the name."""
    overload = (
        "@overload\ndef retry(\n    task: Callable[[], T],\n    attempts: {},\n"
        "    on_retry: Callable[[int], None] | None = ...,\n) -> T: ...\n"
    )
    root = _write(
        tmp_path / "repo",
        {
            "pkg/retrying.pyi": "from typing import Callable, TypeVar, overload\n\n"
            "T = TypeVar('T')\n\n"
            + "".join(overload.format(kind) for kind in ("int", "None", "float")),
            "pkg/retrying.py": (
                "import time\n\n\n"
                "def retry(task, attempts=3, on_retry=None):\n"
                "    for attempt in range(attempts):\n"
                "        try:\n"
                "            return task()\n"
                "        except OSError:\n"
                "            if on_retry:\n"
                "                on_retry(attempt)\n"
                "            time.sleep(2 ** attempt)\n"
                "    return task()\n"
            ),
            "pkg/_speedups.pyi": "def checksum(data: bytes) -> int: ...\n",
        },
    )
    index = Index(root)
    assert index.search("retry", mode="lexical").results[0].path == "pkg/retrying.py"
    assert index.search("checksum", mode="lexical").results[0].path == "pkg/_speedups.pyi"
    index.close()


def test_a_file_that_mentions_every_word_of_the_question_comes_first(tmp_path: Path) -> None:
    """The question's words are spread over two functions of transfer.py; one function
    of network.py repeats two of them. Chunk by chunk network.py wins (it does without
    the coverage prior); the file that mentions every word is the one asked about."""
    root = _write(
        tmp_path / "repo",
        {
            "src/transfer.py": (
                "def send_batch(client, payload):\n"
                '    """Send the uploads; a failed one goes to the retry queue."""\n'
                "    return client.post(payload)\n"
                "\n\n"
                "def next_delay(attempt):\n"
                '    """Backoff between attempts after timeouts."""\n'
                "    base = 2 ** attempt\n"
                "    capped = min(60, base)\n"
                "    jitter = capped * 0.1\n"
                "    return capped + jitter\n"
            ),
            "src/network.py": (
                "def reconnect(sock):\n"
                '    """Backoff on timeouts: backoff grows with timeouts,'
                ' backoff doubles with timeouts."""\n'
                "    sock.connect()\n"
            ),
            **{
                f"src/worker_{n}.py": (
                    f"def drain_{n}(queue):\n"
                    '    """Take uploads off the queue; retry the failed uploads."""\n'
                    "    queue.pop()\n"
                )
                for n in range(3)
            },
        },
    )
    index = Index(root)
    query = "retry uploads with backoff after timeouts"
    assert index.search(query, mode="lexical").results[0].path == "src/transfer.py"
    saved = signals.PRIORS["coverage"]
    signals.PRIORS["coverage"] = 1.0
    try:
        assert index.search(query, mode="lexical").results[0].path == "src/network.py"
    finally:
        signals.PRIORS["coverage"] = saved
    index.close()


def test_file_terms_are_stored_and_read_back_for_older_indexes(tmp_path: Path) -> None:
    """Each indexed file keeps its sorted terms; an index written before the table
    existed (no rows) answers from its chunks, the next index run writes the missing
    rows, and a deleted file leaves no row."""
    root = _write(
        tmp_path / "repo",
        {
            "src/retry_policy.py": "def backoff_delay(attempt):\n    return 2 ** attempt\n",
            "src/other.py": "def unrelated():\n    return None\n",
        },
    )
    meta = MetaStore(root / ".sleuth" / "meta.db")
    stored = meta.file_terms(["src/retry_policy.py"])["src/retry_policy.py"]
    assert stored == sorted(stored)
    assert {"backoff", "delay", "backoff_delay", "attempt", "retry", "policy"} <= set(stored)
    with meta.transaction() as db:
        db.execute("DELETE FROM file_terms")
    fresh = MetaStore(root / ".sleuth" / "meta.db")
    assert fresh.file_terms(["src/retry_policy.py"])["src/retry_policy.py"] == stored
    (root / "src" / "other.py").unlink()
    Index(root).index(embed="none")
    rows = fresh.db.execute(
        "SELECT f.path, t.terms FROM file_terms t JOIN files f ON f.id=t.file_id"
    ).fetchall()
    assert rows == [("src/retry_policy.py", " ".join(stored))]
    meta.close()
    fresh.close()


def test_other_matching_chunks_of_a_file_are_named_with_its_result(tmp_path: Path) -> None:
    """One result per place in a file; the file's other matching chunks ride along as
    pointers (``also``), so the chunk asked about is at hand when another is shown."""
    functions = [
        ("open_session", "open a session for the account"),
        ("renew_session", "renew the session token before it expires"),
        ("close_session", "close the session and forget its token"),
        ("audit_session", "write the session to the audit log"),
        ("purge_sessions", "purge every expired session"),
    ]
    body = "\n\n".join(
        f'def {name}(store, account):\n    """{doc.capitalize()}."""\n'
        + "".join(f"    step_{i} = store.call('{name}', account, {i})\n" for i in range(6))
        + "    return store"
        for name, doc in functions
    )
    root = _write(
        tmp_path,
        {
            "auth/sessions.py": body + "\n",
            "auth/tokens.py": 'def mint(account):\n    """A session token."""\n    return 1\n',
        },
    )
    results = Index(root).search("session token", k=5, mode="lexical").results
    first = next(r for r in results if r.path == "auth/sessions.py")
    assert 1 <= len(first.also) <= file_order.FURTHER_HITS
    shown = [(r.start_line, r.end_line) for r in results if r.path == first.path]
    pointed = [(hit["start_line"], hit["end_line"]) for hit in first.also]
    for start, end in pointed:
        assert all(
            end < a or start > b for a, b in shown + [p for p in pointed if p != (start, end)]
        )
    assert {hit["symbol"] for hit in first.also} <= {name for name, _ in functions}
    assert next(r for r in results if r.path == "auth/tokens.py").also == []
    data = first.to_dict()
    assert data["also"] == first.also and result_of({**data, "added_later": 1}) == first
    long = OtherHit(start_line=3, end_line=9, symbol="test " + "x" * 80)
    assert other_hit_text(long) == "3-9 test " + "x" * 34 + "…"
    assert other_hit_text(OtherHit(start_line=1, end_line=2, symbol="")) == "1-2"


def test_pointers_go_with_the_first_result_of_their_file_best_first() -> None:
    def hit(chunk_id: int, path: str, line: int, score: float) -> Scored:
        row = ChunkRow(
            chunk_id, path, "python", line, line + 9, "function", f"f{chunk_id}", "", "", "", "", ""
        )
        return Scored(row, score)

    a1, a2 = hit(1, "a.py", 1, 0.9), hit(2, "a.py", 100, 0.5)
    b1 = hit(3, "b.py", 1, 0.8)
    rest = [hit(4, "a.py", 30, 0.4), hit(5, "a.py", 5, 0.35), hit(6, "a.py", 50, 0.3)]
    rest += [hit(7, "a.py", 70, 0.2), hit(8, "a.py", 105, 0.1)]
    scored = [a1, b1, a2, *rest]
    out = further_hits(scored, [a1, b1, a2], limit=2)
    # 5 overlaps the first result, 8 the second of the same file; the best two others
    assert [[o.row.id for o in group] for group in out] == [[4, 6], [], []]
    assert further_hits(scored, [a1, b1, a2], limit=0) == [[], [], []]
    # only the first results carry pointers: a.py's first result is second here
    assert further_hits(scored, [b1, a1, a2], limit=2, results=1) == [[], [], []]
    assert [len(g) for g in further_hits(scored, [b1, a1, a2], limit=2, results=2)] == [0, 2, 0]


def test_a_name_only_re_exported_is_found_at_its_re_export(tmp_path: Path) -> None:
    """A name the tree takes from a dependency (`pub use http::StatusCode`) is defined
    nowhere in it: the re-export comes first, not the files that use the name most. A
    name the tree defines is found at its definition, not where it is re-exported."""
    uses = "".join(
        f"pub fn respond_{i}(ok: bool) -> StatusCode {{\n"
        f"    if ok {{ StatusCode::OK }} else {{ StatusCode::from_u16({400 + i}).unwrap() }}\n"
        "}\n\n"
        for i in range(4)
    )
    write_tree(
        tmp_path,
        {
            "src/lib.rs": (
                "//! A small web framework.\n\npub mod handlers;\npub mod routing;\n\n"
                "pub use crate::routing::Router;\npub use http::StatusCode;\n"
            ),
            "src/routing.rs": (
                "/// Routes requests to handlers.\n"
                "pub struct Router {\n    routes: Vec<String>,\n}\n\n"
                "impl Router {\n    pub fn new() -> Self {\n        Router { routes: Vec::new() }\n"
                "    }\n}\n"
            ),
            "src/handlers.rs": "use http::StatusCode;\n\n" + uses,
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")
    status = index.search("StatusCode", k=3, mode="lexical").results
    assert (status[0].path, status[0].start_line <= 7 <= status[0].end_line) == (
        "src/lib.rs",
        True,
    )
    assert index.search("Router", k=3, mode="lexical").results[0].path == "src/routing.rs"
    # a symbol lookup lists the definition before the re-export, and the re-export
    # alone when it is all the tree has
    assert [(r.path, r.kind) for r in index.find_symbol("Router")] == [
        ("src/routing.rs", "struct"),
        ("src/routing.rs", "impl"),
        ("src/lib.rs", "reexport"),
    ]
    assert [(r.path, r.kind) for r in index.find_symbol("StatusCode")] == [
        ("src/lib.rs", "reexport")
    ]


def test_a_re_export_in_a_long_block_of_names_comes_first_when_asked_alone(
    tmp_path: Path,
) -> None:
    """BM25 sinks one name among fifty in a block of `pub use` lines below a function
    named with the name's words (`status_code`); asked alone, the re-export still comes
    first. In a question the name is context, not the thing asked for."""
    modules = "".join(f"pub mod part_{i};\n" for i in range(40))
    lines = "".join(f"pub use crate::part_{i}::Part{i};\n" for i in range(40))
    write_tree(
        tmp_path,
        {
            "src/lib.rs": (
                f"{modules}\npub use http::{{\n    HeaderMap, HeaderValue, Method,\n"
                f"    StatusCode, Uri, Version,\n}};\n{lines}"
            ),
            "src/status.rs": (
                "use http::StatusCode;\n\n"
                "/// The status code for an error: StatusCode::BAD_REQUEST or a server error.\n"
                "pub fn status_code(client: bool) -> StatusCode {\n"
                "    if client { StatusCode::BAD_REQUEST }\n"
                "    else { StatusCode::INTERNAL_SERVER_ERROR }\n"
                "}\n"
            ),
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")
    first = index.search("StatusCode", k=3, mode="lexical").results[0]
    assert (first.path, first.start_line <= 44 <= first.end_line) == ("src/lib.rs", True)
    question = index.search("which StatusCode does an error get", k=3, mode="lexical")
    assert question.results[0].path == "src/status.rs"


def test_an_inner_function_asked_with_its_case_takes_the_exact_case_prior() -> None:
    """An inner function does not name the chunk holding it (``Definition.local``), so
    the exact-case prior reads the definition that starts inside the chunk."""
    plan = classify("replaceReducer")
    store = ChunkRow(
        1, "src/store.ts", "typescript", 1, 60, "function", "createStore", "", "", "", "", ""
    )
    other = ChunkRow(2, "src/other.ts", "typescript", 1, 9, "function", "swap", "", "", "", "", "")

    def order(defined_as: str) -> list[str]:
        spans = {"replacereducer": [DefinitionSpan("src/store.ts", 30, 46, defined_as, "function")]}
        return paths_after_priors(plan, [Scored(store, 1.0), Scored(other, 3.0)], spans)

    assert order("replaceReducer") == ["src/store.ts", "src/other.ts"]
    assert order("ReplaceReducer") == ["src/other.ts", "src/store.ts"]  # not as asked


def test_an_inner_function_comes_first_for_its_name_over_longer_names(tmp_path: Path) -> None:
    """No symbol field names an inner function, so a definition whose longer name holds
    its words matches the name better; the inner-definition prior makes up for that."""
    loads = "".join(f"    part_{k} = module.load_part({k}, cache=store.cache)\n" for k in range(12))
    helpers = {f"util{i}.py": f"def helper_{i}(value):\n    return str(value)\n" for i in range(6)}
    write_tree(
        tmp_path,
        {
            **helpers,
            "store.py": (
                "def create_store(reducer):\n"
                "    state = None\n\n"
                "    def replace_reducer(next_reducer):\n"
                "        nonlocal reducer\n"
                "        reducer = next_reducer\n\n"
                "    def dispatch(action):\n"
                "        nonlocal state\n"
                "        state = reducer(state, action)\n\n"
                "    return {'dispatch': dispatch, 'replace_reducer': replace_reducer}\n"
            ),
            "hot.py": (
                "def replace_reducer_on_reload(store, module):\n"
                "    # swap in the reloaded module's reducer\n"
                + loads
                + "    store.swap(module.reducer)\n"
            ),
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")
    first = index.search("replace_reducer", mode="lexical").results[0]
    assert (first.path, first.symbol) == ("store.py", "create_store")
    assert index.search("replace_reducer_on_reload", mode="lexical").results[0].path == "hot.py"


def test_an_upper_case_name_asked_alone_finds_its_constant() -> None:
    """``DEFAULT_LIMIT`` asks for the constant of that name, a one-line value in a long
    module chunk (aiohttp's ``_websocket/writer.py``), before a method whose symbol is
    one of its words (``limit``), which BM25 prefers several times over."""
    plan = classify("DEFAULT_LIMIT")
    module = ChunkRow(1, "writer.py", "python", 1, 60, "block", "", "", "", "", "", "")
    method = ChunkRow(2, "connector.py", "python", 10, 14, "method", "limit", "", "", "", "", "")

    def order(kind: str) -> list[str]:
        spans = {"default_limit": [DefinitionSpan("writer.py", 24, 24, "DEFAULT_LIMIT", kind)]}
        return paths_after_priors(plan, [Scored(module, 1.0), Scored(method, 4.0)], spans)

    assert order("constant") == ["writer.py", "connector.py"]
    assert order("section") == ["connector.py", "writer.py"]  # no kind the name asks for


def test_a_constant_of_any_case_asked_alone_is_found_unless_a_type_has_its_name() -> None:
    """Go's ``ShellCompDirectiveDefault`` (or a ``defaultCommandSorting`` variable) is a
    one-line value in a long ``const (..)`` block, which a type mentioning it twice
    outscores by BM25: the constant is what was asked for. But where a class of the name
    exists too (zod's ``class ZodError`` and ``export const ZodError = ..``), the
    constant takes no prior of its own."""
    block = ChunkRow(1, "completions.go", "go", 56, 104, "block", "", "", "", "", "", "")
    user = ChunkRow(2, "options.go", "go", 106, 125, "type", "CompletionOptions", *[""] * 5)

    def order(name: str, rivals: list[DefinitionSpan]) -> list[str]:
        spans = {name.lower(): [DefinitionSpan("completions.go", 100, 100, name, "constant")]}
        spans[name.lower()] += rivals
        return paths_after_priors(classify(name), [Scored(block, 1.0), Scored(user, 8.0)], spans)

    assert order("ShellCompDirectiveDefault", []) == ["completions.go", "options.go"]
    assert order("defaultCommandSorting", []) == ["completions.go", "options.go"]
    rival = DefinitionSpan("v3/errors.go", 1, 40, "ShellCompDirectiveDefault", "class")
    assert order("ShellCompDirectiveDefault", [rival]) == ["options.go", "completions.go"]


def test_a_name_defined_once_asked_alone_finds_that_definition_in_a_long_chunk(
    tmp_path: Path,
) -> None:
    """starlette's ``Scope = MutableMapping[str, Any]`` is one line of a module's long
    block of aliases; BM25 prefers short functions that say ``scope`` often. A name the
    tree defines exactly once, asked for alone, scores at least as the best lexical
    candidate, so the definition's priors decide."""
    aliases = "".join(f"Alias{n} = typing.Callable[[int], Awaitable[None]]\n" for n in range(30))
    root = _write(
        tmp_path,
        {
            "app/types.py": "import typing\nfrom typing import Any, Awaitable\n\n"
            + aliases
            + "Scope = typing.MutableMapping[str, Any]\n"
            + aliases.replace("Alias", "Other"),
            "app/auth.py": "def has_required_scope(conn, scopes):\n"
            "    for scope in scopes:\n        if scope not in conn.auth.scopes:\n"
            "            return False\n    return True\n",
        },
    )
    index = Index(root)
    top = index.search("Scope", mode="lexical").results[0]
    assert top.path == "app/types.py" and top.start_line <= 33 <= top.end_line
    # the block is named for nothing: it is shown under the value asked for
    assert (top.symbol, top.kind) == ("Scope", "constant")
    # the name in another case is not that definition: BM25 keeps its say
    assert index.search("scope", mode="lexical").results[0].path == "app/auth.py"


def test_a_question_about_uses_finds_the_callers_not_the_definition(tmp_path: Path) -> None:
    """ "where is parse_config called" asks for the places that call it: the definition,
    which says the name most, ranks below every caller, and a word of the name
    (``reparse_config_cache``), a comment naming it or a docstring's example is no use."""
    body = "".join(f"    step_{n} = prepare({n})\n" for n in range(40))
    root = _write(
        tmp_path,
        {
            "app/config.py": "def parse_config(path):\n"
            '    """Read parse_config input: parse_config is called once at start."""\n'
            "    return load(path)  # parse_config keeps no state\n",
            "app/main.py": "def run(args):\n" + body + "    settings = parse_config(args.path)\n"
            "    return serve(settings)\n",
            "app/reload.py": "def reload(event):\n    # parse_config again on change\n"
            "    return reparse_config_cache(event)\n",
            "app/cli.py": "from app.config import parse_config\n\n"
            "def check(path):\n    return parse_config(path) is not None\n",
            "app/example.py": 'def helper():\n    """Use it so:\n\n'
            '        settings = parse_config("app.toml")\n    """\n    return None\n',
        },
    )
    index = Index(root)
    for question in (
        "where is parse_config called",
        "who calls parse_config?",
        "callers of `parse_config`",
    ):
        paths = [r.path for r in index.search(question, mode="lexical").results]
        assert set(paths[:2]) == {"app/main.py", "app/cli.py"}, (question, paths)
        assert "app/reload.py" not in paths and "app/example.py" not in paths
        assert paths.index("app/config.py") == 2
    for question in (
        "where is parse_config defined",
        "parse_config",
        "overrides of parse_config",
        "where is parse_config overridden",
    ):
        assert index.search(question, mode="lexical").results[0].path == "app/config.py"
    assert classify("which methods override render?").text == "render"
    assert classify("usages of Config.load").uses_of == "Config.load"
    for other in ("how does parse_config work", "where are failed uploads retried"):
        assert classify(other).uses_of is None


def test_a_question_about_uses_lists_source_callers_and_only_code_holding_the_name(
    tmp_path: Path,
) -> None:
    """With vectors built, a question about uses still lists only chunks that hold the
    name (prose about the same thing without it is no use), source callers before a
    test file that calls the name in every test, and a call in a test before a mere
    mention in source code."""
    tests = "".join(
        f"def test_retry_{n}():\n    assert retry_upload(Job({n})) is not None\n\n"
        for n in range(8)
    )
    write_tree(
        tmp_path,
        {
            "app/upload.py": "def retry_upload(job, attempts=3):\n"
            '    """Send a failed upload again, waiting longer after each failure."""\n'
            "    for attempt in range(attempts):\n"
            "        if job.send():\n            return job\n"
            "        sleep(2 ** attempt)\n    return None\n",
            "app/worker.py": "def handle(job):\n    if not job.send():\n"
            "        return retry_upload(job)\n    return job\n",
            "app/notes.py": "def explain_failures():\n"
            '    """Failed uploads are retried: each upload is sent again with a longer'
            ' wait."""\n    return UPLOAD_RETRY_TEXT\n',
            "app/registry.py": "HANDLERS = {\n"
            '    "retry": retry_upload,\n    "drop": drop_upload,\n}\n',
            "tests/test_upload.py": tests,
        },
    )
    git_init(tmp_path)
    index = Index(tmp_path)
    index.index(embed="deep")
    for question in ("where is retry_upload called", "who calls retry_upload"):
        paths = [r.path for r in index.search(question).results]
        assert paths[0] == "app/worker.py", (question, paths)
        assert "app/notes.py" not in paths, paths
        assert paths.index("tests/test_upload.py") < paths.index("app/registry.py"), paths
        assert paths.index("app/registry.py") < paths.index("app/upload.py"), paths


def test_a_question_about_uses_of_a_name_too_long_for_one_token(tmp_path: Path) -> None:
    """The lexical index keeps no token of 40 bytes or more: a name that long is looked
    for by its words, and its callers still come first."""
    name = "diagnosticsGetSafeToInspectDeletedHandles"
    root = _write(
        tmp_path,
        {
            "lib/handles.py": f"def {name}(snapshot):\n    return list(snapshot.deleted)\n",
            "lib/report.py": f"def report(snapshot):\n    return len({name}(snapshot))\n",
            "lib/other.py": "def deleted_handles(snapshot):\n    return snapshot.deleted\n",
        },
    )
    index = Index(root)
    response = index.search(f"who calls {name}", mode="lexical")
    assert [r.path for r in response.results][:2] == ["lib/report.py", "lib/handles.py"]
    assert not response.notices, response.notices


@pytest.mark.parametrize(
    ("question", "name", "use"),
    [
        ("who references Config", "Config", "use"),
        ("what code uses Config", "Config", "use"),
        ("which functions call parse_config", "parse_config", "call"),
        ("call sites for parse_config", "parse_config", "call"),
        ("show me usages of Config", "Config", "use"),
        ("list callers of parse_config", "parse_config", "call"),
        ("where Config is used", "Config", "use"),
        ("where is Config being used", "Config", "use"),
        ("where does parse_config get called", "parse_config", "call"),
        ("where do we call parse_config", "parse_config", "call"),
        ("where is the Config class used", "Config", "use"),
        ("where are Config objects created", "Config", "construct"),
        ("can you find the tests for parse_config", "parse_config", "test"),
        ("list all subclasses of Store", "Store", "extend"),
        ("who conforms to Store", "Store", "extend"),  # Swift's protocols
        ("types conforming to Store", "Store", "extend"),
    ],
)
def test_questions_about_uses_in_the_words_people_use(question: str, name: str, use: str) -> None:
    """Agents and people ask in many forms: a request around the question, the name
    with "the" and its kind, the verb's other forms and orders."""
    plan = classify(question)
    assert (plan.uses_of, plan.use_kind) == (name, use), question
    assert plan.text == question  # searched as asked


@pytest.mark.parametrize(
    "question",
    [
        "what does parse_config call",
        "what functions does parse_config call",
        "show me what parse_config calls",
        "which functions are called by parse_config",
        "callees of parse_config",
    ],
)
def test_questions_about_callees_in_their_wordings(question: str) -> None:
    assert classify(question).callees_of == "parse_config", question


def test_a_subject_in_words_after_the_is_no_name_unless_defined() -> None:
    """ "where is the cache used" may ask about caching in words: "cache" is a name
    only when the index defines it (as for "tests for caching")."""
    for question, word in (("where is the cache used", "cache"), ("show me the session", "")):
        plan = classify(question)
        assert plan.uses_of is None, question
        assert (plan.named_word or ("",))[0] == word, question
    assert classify("show me where Config is defined").text == "Config"


def test_calls_without_brackets_come_before_mentions(tmp_path: Path) -> None:
    """Ruby, Elixir, Haskell and shell call a function without brackets: "who calls
    retry_job" lists ``retry_job job`` and ``|> retry_job`` before a symbol naming it
    (``:retry_job``), a module attribute, or the definition."""
    root = _write(
        tmp_path,
        {
            "lib/jobs.rb": "module Jobs\n  def self.retry_job(job)\n    job.run\n  end\nend\n",
            "lib/registry.rb": "HOOKS = {\n  retry: :retry_job,\n  drop: :drop_job,\n}\n",
            "app/worker.rb": "class Worker\n  def perform(job)\n"
            "    Jobs.retry_job job\n  end\nend\n",
            "lib/pipeline.ex": "defmodule Pipeline do\n  def run(job) do\n"
            "    job\n    |> validate()\n    |> retry_job\n  end\nend\n",
            "lib/notes.ex": "defmodule Notes do\n  @retry_job 3\n"
            "  def limit, do: @retry_job\nend\n",
            "src/Retry.hs": "module Retry where\n\nrunAll :: [Job] -> IO ()\n"
            "runAll jobs = mapM_ retry_job jobs\n",
            "bin/run.sh": '#!/bin/sh\nif ! retry_job 3 fetch; then\n  echo "gave up"\nfi\n',
        },
    )
    index = Index(root)
    paths = [r.path for r in index.search("who calls retry_job", mode="lexical").results]
    callers = {"app/worker.rb", "lib/pipeline.ex", "src/Retry.hs", "bin/run.sh"}
    assert set(paths[:4]) == callers, paths
    assert paths.index("lib/jobs.rb") > 3, paths


def test_a_question_about_imports_lists_the_imports_first(tmp_path: Path) -> None:
    """ "where is Settings imported" asks for import lines, one line or several, before
    the code that calls the name; "who calls" keeps the calls first."""
    root = _write(
        tmp_path,
        {
            "app/settings.py": "class Settings:\n    def __init__(self):\n        self.debug = 0\n",
            "app/main.py": "import os\nfrom app.settings import Settings\n\n\n"
            "def main():\n    return Settings()\n",
            "app/build.py": "def build(flags):\n    settings = Settings()\n"
            "    settings.debug = flags.debug\n    return settings\n",
            "web/start.ts": 'import {\n  Settings,\n  Theme,\n} from "./settings";\n\n'
            "export function start(theme: Theme) {\n  return new Settings(theme);\n}\n",
        },
    )
    index = Index(root)
    for question in ("where is Settings imported", "who imports Settings", "imports of Settings"):
        results = _answer_about_uses(index, question, "import")
        first = {(r.path, r.start_line) for r in results[:2]}
        assert first == {("app/main.py", 1), ("web/start.ts", 1)}, (question, results[:3])
        assert [r.path for r in results].index("app/build.py") == 2
    calls = index.search("who calls Settings", mode="lexical").results
    assert calls[0].path == "app/build.py"
    assert classify("who calls Settings").use_kind == "call"


def test_questions_about_raising_or_setting_a_name_list_those_uses_first(
    tmp_path: Path,
) -> None:
    """ "where is TimeoutError raised" asks for the code that raises it, before a handler
    that catches it and the class itself; "where is timeout set" asks for assignments,
    before the code that only reads the value."""
    root = _write(
        tmp_path,
        {
            "net/errors.py": "class TimeoutError(Exception):\n    pass\n",
            "net/client.py": "def fetch(url, timeout):\n    reply = send(url)\n"
            "    if reply.late:\n        raise TimeoutError(url)\n    return reply\n",
            "net/retry.py": "def fetch_again(url):\n    try:\n        return fetch(url, 5)\n"
            "    except TimeoutError:\n        return None\n",
            "web/api.ts": "export function call(url: string) {\n  if (late(url)) {\n"
            "    throw new TimeoutError(url);\n  }\n  return get(url);\n}\n",
            "net/config.py": "class Settings:\n    def __init__(self):\n"
            "        self.timeout = 30\n",
            "net/wait.py": "def wait(settings):\n    return sleep(settings.timeout)\n",
        },
    )
    index = Index(root)
    for question in ("where is TimeoutError raised", "who throws TimeoutError"):
        paths = [r.path for r in _answer_about_uses(index, question, "raise")]
        assert set(paths[:2]) == {"net/client.py", "web/api.ts"}, (question, paths)
        assert paths.index("net/retry.py") < paths.index("net/errors.py"), paths
    for question in ("who catches TimeoutError", "where is TimeoutError handled"):
        paths = [r.path for r in _answer_about_uses(index, question, "catch")]
        assert paths[0] == "net/retry.py", (question, paths)
        assert paths.index("net/client.py") < paths.index("net/errors.py"), paths
    for question in ("where is timeout set", "who assigns timeout"):
        paths = [r.path for r in _answer_about_uses(index, question, "assign")]
        assert paths[0] == "net/config.py", (question, paths)
        assert "net/wait.py" in paths
    assert classify("where is logging set up").uses_of is None


def test_a_question_for_implementations_lists_the_types_deriving_from_the_name(
    tmp_path: Path,
) -> None:
    """ "subclasses of Store" (who implements X, classes that extend X) asks for the types
    that derive from it, in any language's form, before the code that only uses it and
    the definition itself."""
    root = _write(
        tmp_path,
        {
            "store/base.py": "class Store:\n    def get(self, key):\n"
            "        raise NotImplementedError\n",
            "store/memory.py": "class MemoryStore(\n    Store,\n):\n    def get(self, key):\n"
            "        return self.items[key]\n",
            "web/disk.ts": "export class DiskStore\n  extends Cache\n  implements Store {\n"
            "  get(key: string) { return read(key); }\n}\n",
            "core/redis.rs": "impl<T: Codec> Store for RedisStore<T> {\n"
            "    fn get(&self, key: &str) -> Value { self.conn.get(key) }\n}\n",
            "app/use.py": "def open_store(kind) -> Store:\n    store: Store = pick(kind)\n"
            "    return Store.wrap(store)\n",
        },
    )
    index = Index(root)
    derived = {"store/memory.py", "web/disk.ts", "core/redis.rs"}
    for question in ("subclasses of Store", "who implements Store", "classes that extend Store"):
        paths = [r.path for r in _answer_about_uses(index, question, "extend")]
        assert set(paths[:3]) == derived, (question, paths)
        assert paths.index("app/use.py") < paths.index("store/base.py"), paths
    # a name the index defines only as functions or methods is implemented by its
    # definitions: asked for as the name alone
    assert classify("implementations of get").named_word == ("get", "extend")
    # a plain word the index does not define is a question in words
    assert classify("who implements retries").uses_of is None
    assert classify("who handles requests").uses_of is None
    kinds = {r.kind for r in index.search("implementations of get", mode="lexical").results[:3]}
    assert kinds == {"method"}, kinds
    # a verb inside the name asked about is not the question's verb
    assert classify("who calls write_file").use_kind == "call"
    assert classify("who implements Writer").use_kind == "extend"
    assert classify("where is import_module called").use_kind == "call"


def test_a_call_is_shown_at_its_line_not_at_an_example_in_a_comment(tmp_path: Path) -> None:
    """A chunk that calls ``load`` is shown at the call, not at an example of it in the
    docstring or a block comment above (the rule found the call in the code lines; the
    preview had looked for it in every line)."""
    root = _write(
        tmp_path,
        {
            "app/config.py": "def load(path):\n    return open(path).read()\n",
            "app/main.py": 'def main(path):\n    """Start the app.\n\n    Example:\n'
            '        load(\'app.toml\')\n    """\n    config = load(path)\n    return config\n',
            "web/boot.js": "/*\n load('app.toml') reads it\n*/\nfunction boot(path) {\n"
            "  const config = load(path);\n  return config;\n}\n",
        },
    )
    results = _answer_about_uses(Index(root), "who calls load", "call")
    shown = {r.path: r.preview for r in results}
    assert shown["app/main.py"].startswith("    config = load(path)"), shown
    assert shown["web/boot.js"].startswith("  const config = load(path);"), shown


def test_a_types_uses_are_its_mentions_in_code_a_functions_its_calls(tmp_path: Path) -> None:
    """ "where is Store used" asks, of a type, for the code that names it (a field's type,
    a parameter's), not only for code that calls it like a function (``Store(``, a test
    building one), even beside a function ``store``; of a function, for its calls."""
    tests = "".join(f"def test_store_{n}():\n    assert Store(Path('{n}'))\n\n" for n in range(6))
    root = _write(
        tmp_path,
        {
            "app/store.py": "class Store:\n    def get(self, key):\n"
            "        return self.items[key]\n\n\ndef store():\n    return Store()\n",
            "app/main.py": "def main():\n    serve(Store(), 8000)\n",
            "app/cache.py": "class Cache:\n    backend: Store\n\n    def get(self, key):\n"
            "        return self.backend.get(key)\n",
            "app/serve.py": "def serve(store: Store, port: int) -> None:\n"
            "    # the store is shared by every request\n    run(port, store.get)\n",
            "app/notes.py": "# Store keeps items; see app/store.py\nLIMIT = 3\n",
            "tests/test_store.py": tests,
        },
    )
    index = Index(root)
    for question in ("where is Store used", "usages of Store", "who uses Store"):
        results = _answer_about_uses(index, question, "use")
        paths = [r.path for r in results]
        assert set(paths[:3]) == {"app/cache.py", "app/serve.py", "app/main.py"}, paths
        assert "app/notes.py" not in paths, paths  # a comment is no use
        # the class itself after every use, its function `store` among them
        spans = [(r.path, r.start_line) for r in results]
        assert spans.index(("tests/test_store.py", 1)) < spans.index(("app/store.py", 1))
        assert spans.index(("app/store.py", 6)) < spans.index(("tests/test_store.py", 1))
    # of a function, "used" asks for its calls
    calls = [r.path for r in index.search("where is serve used", mode="lexical").results]
    assert calls[0] == "app/main.py", calls


def test_a_name_both_a_type_and_a_method_is_used_wherever_code_names_it(
    tmp_path: Path,
) -> None:
    """gin's ``Engine`` struct and its validators' ``Engine()`` method: "usages of
    Engine" lists the code naming the type as well as the calls."""
    root = _write(
        tmp_path,
        {
            "gin.go": "package gin\n\ntype Engine struct {\n\tname string\n}\n",
            "context.go": "package gin\n\ntype Context struct {\n\tengine *Engine\n}\n",
            "binding/validator.go": "package binding\n\ntype Validator struct{}\n\n"
            "func (v Validator) Engine() any {\n\treturn nil\n}\n",
            "binding/use.go": "package binding\n\nfunc raw(v Validator) any {\n"
            "\treturn v.Engine()\n}\n",
        },
    )
    index = Index(root)
    results = index.search("usages of Engine", mode="lexical").results
    scores = {r.path: r.score for r in results}
    assert scores["context.go"] == scores["binding/use.go"] == results[0].score, results
    assert scores["gin.go"] < scores["context.go"], results  # the definition after


def test_a_question_for_where_a_type_is_created_lists_its_constructions(
    tmp_path: Path,
) -> None:
    """ "where is Config created" (who creates X, instances of X) asks for the code that
    makes one (``Config(..)``, ``new Config(``, ``&Config{``), before the code that only
    names the type and the definition; of a function it asks for its calls."""
    root = _write(
        tmp_path,
        {
            "app/config.py": "class Config:\n    def __init__(self, path):\n"
            "        self.path = path\n",
            "app/load.py": "def load(path) -> Config:\n    return Config(path)\n",
            "app/use.py": "def port(config: Config) -> int:\n    return config.port\n",
            "app/main.py": "def main():\n    return port(load('app.toml'))\n",
            "web/boot.ts": "export function boot(path: string) {\n"
            "  const config = new Config(path);\n  return start(config);\n}\n",
            "srv/main.go": "package srv\n\nfunc Default() *Config {\n"
            '\treturn &Config{Path: "app.toml"}\n}\n',
            "srv/parse.go": "package srv\n\nfunc Parse(raw string) Config {\n"
            "\treturn Config(raw)\n}\n",
        },
    )
    index = Index(root)
    for question in ("where is Config created", "who creates Config", "instances of Config"):
        results = _answer_about_uses(index, question, "construct")
        paths = [r.path for r in results]
        assert set(paths[:3]) == {"app/load.py", "web/boot.ts", "srv/main.go"}, paths
        assert paths.index("app/use.py") < paths.index("app/config.py"), paths
        assert "srv/parse.go" not in paths[:3], paths  # Go's Config(raw) converts
        # each shown at the line that makes one, not its first line naming the type
        load = results[paths.index("app/load.py")]
        assert load.preview.startswith("    return Config(path)"), load.preview
    # a plain word is a type only when the index defines one so
    assert classify("where is caching created").uses_of is None
    # a function is called, not created
    calls = [r.path for r in index.search("where is load created", mode="lexical").results]
    assert calls[0] == "app/main.py", calls


def test_a_constants_uses_are_its_reads(tmp_path: Path) -> None:
    """ "where is MAX_RETRIES read" (who reads X) is a question about uses: of a constant
    or an environment variable no code defines, every line of code that names it."""
    root = _write(
        tmp_path,
        {
            "app/limits.py": "MAX_RETRIES = 3\n",
            "app/send.py": "def send(job):\n    for _ in range(MAX_RETRIES):\n        job.run()\n",
            "app/env.py": "def threads():\n    return int(os.environ.get('APP_THREADS', 2))\n",
            "app/notes.py": "# MAX_RETRIES and APP_THREADS are documented in README\nX = 1\n",
        },
    )
    index = Index(root)
    for question, first in (
        ("where is MAX_RETRIES read", "app/send.py"),
        ("who reads APP_THREADS", "app/env.py"),
        ("where is MAX_RETRIES used", "app/send.py"),
    ):
        results = _answer_about_uses(index, question, "use")
        assert results[0].path == first and results[0].score >= 1.0, (question, results)
        assert "app/notes.py" not in [r.path for r in results], results


def test_a_question_for_a_types_members_lists_its_declaration_then_its_methods(
    tmp_path: Path,
) -> None:
    """ "methods of Client" (what methods does Client have, Client's fields) is a lookup:
    the type's declaration, then what it owns in written order, a Go type's methods
    from any file included; not another type's methods of the same names."""
    root = _write(
        tmp_path,
        {
            "app/client.py": "class Client:\n    def __init__(self, url):\n"
            "        self.url = url\n\n    def get(self, path):\n"
            "        return fetch(self.url + path)\n\n    def close(self):\n"
            "        self.url = None\n",
            "app/server.py": "class Server:\n    def get(self, path):\n        return path\n",
            "srv/pool.go": "package srv\n\ntype Pool struct {\n\tsize int\n}\n",
            "srv/pool_ops.go": "package srv\n\nfunc (p *Pool) Grow(n int) {\n\tp.size += n\n}\n\n"
            "func (p *Pool) Size() int {\n\treturn p.size\n}\n",
        },
    )
    index = Index(root)
    for question in ("methods of Client", "what methods does Client have", "Client's methods"):
        assert classify(question).members_of == "Client", question
        found = [(r.path, r.symbol) for r in index.search(question).results]
        assert found == [
            ("app/client.py", "Client"),
            ("app/client.py", "__init__"),
            ("app/client.py", "get"),
            ("app/client.py", "close"),
        ], (question, found)
    # each member by its own lines, which is what an agent expands
    get = next(r for r in index.search("methods of Client").results if r.symbol == "get")
    assert (get.start_line, get.end_line) == (5, 6), get
    pool = [r.symbol for r in index.search("members of the Pool struct").results]
    assert pool == ["Pool", "Grow", "Size"], pool
    # a name nothing is owned by makes the question one in words: "GraphQL fields"
    assert classify("Fetch methods").members_of == "Fetch"
    words = index.search("Fetch methods", mode="lexical").results
    assert words and words[0].path == "app/client.py", words  # it calls fetch(
    # a plain word is a type's name only when the index defines it so
    assert classify("methods of the router").members_of is None


def test_python_classes_satisfy_a_protocol_by_its_methods(tmp_path: Path) -> None:
    """A ``typing.Protocol`` is satisfied by shape, as a Go interface is: "who implements
    SupportsRead" finds the classes with every method it declares, not those with some."""
    root = _write(
        tmp_path,
        {
            "io/protocols.py": "from typing import Protocol\n\n\nclass SupportsRead(Protocol):\n"
            "    def read(self, n: int) -> bytes: ...\n\n"
            "    def close(self) -> None: ...\n",
            "io/files.py": "class LocalFile:\n    def read(self, n):\n        return b''\n\n"
            "    def close(self):\n        pass\n",
            "io/sockets.py": "class Socket:\n    def read(self, n):\n        return b''\n",
            "io/use.py": "def drain(source: SupportsRead) -> bytes:\n    return source.read(-1)\n",
        },
    )
    index = Index(root)
    results = index.search("who implements SupportsRead", mode="lexical").results
    assert results[0].path == "io/files.py" and results[0].score >= 1.0, results
    assert "io/sockets.py" not in [r.path for r in results[:2]], results


def test_go_types_implement_an_interface_by_its_methods(tmp_path: Path) -> None:
    """A Go type satisfies an interface by defining its methods and never names it: "who
    implements Store" finds the types with every method of ``Store`` (with those of the
    interfaces it embeds), not those with only some, nor a type constraint's."""
    root = _write(
        tmp_path,
        {
            "store/store.go": "package store\n\n// Store keeps values.\ntype Store interface {\n"
            "\tReader\n\t// Put saves a value.\n\tPut(key string,\n\t\tvalue []byte) error\n}\n\n"
            "type Reader interface {\n\tGet(key string) ([]byte, error)\n}\n\n"
            "type Number interface {\n\t~int | ~float64\n}\n",
            "store/memory.go": "package store\n\n"
            "type store struct {\n\titems map[string][]byte\n}\n\n"
            "func (m *store) Get(key string) ([]byte, error) {\n\treturn m.items[key], nil\n}\n\n"
            "func (m *store) Put(key string, value []byte) error {\n"
            "\tm.items[key] = value\n\treturn nil\n}\n",
            "store/disk.go": "package store\n\ntype DiskStore struct{ dir string }\n",
            "store/disk_methods.go": "package store\n\n"
            "func (d DiskStore) Get(key string) ([]byte, error) { return read(d.dir, key) }\n\n"
            "func (d DiskStore) Put(key string, value []byte) error {\n"
            "\treturn write(d.dir, key, value)\n}\n",
            "store/cache.go": "package store\n\ntype cache struct{}\n\n"
            "func (c cache) Get(key string) ([]byte, error) { return nil, nil }\n",
            "store/logged.go": "package store\n\n// loggedStore gets Get and Put from store.\n"
            "type loggedStore struct {\n\t*store // embedded\n\tprefix string\n}\n\n"
            "func (l loggedStore) Name() string { return l.prefix }\n",
            "store/counter.go": "package store\n\ntype counter struct{ n int }\n\n"
            "func (c counter) Get() int { return c.n }\n",
            "store/slots.go": "package store\n\ntype slots struct{ items [][]byte }\n\n"
            "func (s slots) Get(key int) ([]byte, error) { return s.items[key], nil }\n",
            "app/main.go": 'package app\n\nfunc open(s store.Store) { s.Get("a") }\n',
        },
    )
    index = Index(root)
    found = index.search("who implements Store", mode="lexical").results
    # (loggedStore embeds store, whose methods Go promotes to it)
    implementers = {"store/memory.go", "store/disk.go", "store/logged.go"}
    assert {r.path for r in found[:3]} == implementers, found
    assert {r.symbol for r in found[:3]} == {"store", "DiskStore", "loggedStore"}, found
    # each shown by its declaration, which is what makes it an answer
    assert all(r.preview.startswith(f"type {r.symbol} struct") for r in found[:3]), found
    readers = [r.path for r in index.search("who implements Reader", mode="lexical").results]
    assert set(readers[:4]) == implementers | {"store/cache.go"}, readers
    # Get with no key, or with an int key, is another method
    assert {"store/counter.go", "store/slots.go"}.isdisjoint(readers), readers
    # ``store`` is not ``Store``: a type named in another case is not lowered as its
    # definition
    assert min(r.score for r in found[:3]) >= 1.0, found
    # a constraint lists types, not methods: nothing satisfies it by its methods
    numbers = index.search("who implements Number", mode="lexical").results
    assert all(r.score < 1.0 for r in numbers), numbers


def test_a_question_about_a_names_tests_lists_the_tests_that_use_it(tmp_path: Path) -> None:
    """ "where is retry_upload tested" (tests for X, which tests cover X) asks for the
    tests that call it, then those that name it, before source code that calls it and
    the definition. A plain word is a name when the index defines it ("tests for
    backoff"); when no test names it, the answer says so."""
    root = _write(
        tmp_path,
        {
            "app/upload.py": "def retry_upload(job):\n    return send(job)\n\n\n"
            "def backoff(n):\n    return 2 ** n\n\n\ndef log_done(job):\n    return job\n",
            "app/worker.py": "def handle(job):\n    sleep(backoff(3))\n"
            "    return log_done(retry_upload(job))\n",
            "tests/test_upload.py": "def test_retry_sends_again():\n"
            "    assert retry_upload(Job(1)) is not None\n\n\n"
            "def test_backoff_doubles():\n    assert backoff(2) == 4\n",
            "tests/test_registry.py": "def test_handlers_are_registered():\n"
            "    assert HANDLERS['retry'] is retry_upload\n",
            "tests/test_worker.py": "def test_handle_finishes():\n    assert handle(Job(2))\n",
        },
    )
    index = Index(root)
    for question in (
        "where is retry_upload tested",
        "tests for retry_upload",
        "which tests cover retry_upload",
    ):
        paths = [r.path for r in _answer_about_uses(index, question, "test")]
        assert paths[:2] == ["tests/test_upload.py", "tests/test_registry.py"], (question, paths)
        assert "tests/test_worker.py" not in paths, paths
        assert paths.index("app/worker.py") < paths.index("app/upload.py"), paths
    # a plain word: a subject in words, unless the index defines a name so
    assert classify("tests for backoff").uses_of is None
    assert classify("tests for backoff").named_word == ("backoff", "test")
    first = index.search("tests for backoff", mode="lexical").results[0]
    assert (first.path, first.symbol) == ("tests/test_upload.py", "test_backoff_doubles")
    answer = index.search("tests for handle", mode="lexical")
    assert answer.results[0].path == "tests/test_worker.py"
    untested = index.search("where is log_done tested", mode="lexical")
    assert untested.notices == ["no test names log_done: these are its other uses"]
    assert untested.results[0].path == "app/worker.py"


def test_a_question_about_a_names_docs_lists_the_documentation_naming_it(
    tmp_path: Path,
) -> None:
    """ "where is retry_upload documented" (docs for X, which docs mention X) asks for
    the documentation that names it, headings and list items included, before the code
    that calls it; a plain word is a subject in words unless the index defines it."""
    root = _write(
        tmp_path,
        {
            "app/upload.py": "def retry_upload(job):\n    return send(job)\n",
            "app/worker.py": "def handle(job):\n    return retry_upload(job)\n",
            "docs/uploads.md": "# Uploads\n\nFailed uploads are sent again.\n\n"
            "## retry_upload\n\n- `retry_upload` waits longer after each failure.\n",
            "docs/other.md": "# Workers\n\nWorkers take jobs from the queue.\n",
        },
    )
    index = Index(root)
    for question in (
        "where is retry_upload documented",
        "docs for retry_upload",
        "which docs mention retry_upload",
    ):
        paths = [r.path for r in _answer_about_uses(index, question, "doc")]
        assert paths[0] == "docs/uploads.md", (question, paths)
        assert "docs/other.md" not in paths, paths
        assert paths.index("app/worker.py") < paths.index("app/upload.py"), paths
    assert classify("documentation for caching").uses_of is None
    assert classify("docs for handle").named_word == ("handle", "doc")
    missing = index.search("docs for handle", mode="lexical")
    assert missing.notices == ["no documentation names handle: these are its other uses"]


def test_every_use_asked_for_comes_before_mere_mentions(tmp_path: Path) -> None:
    """A file's second raise of a name is still a raise: the same-file penalty orders
    the uses asked for among themselves, and does not sink one below another file's
    mere mention (an import, a name in ``__all__``)."""
    mentions = {
        f"app/mention_{n}.py": "from app.errors import SocketError\n\n"
        f"__all__ = ['SocketError', 'helper_{n}']\n"
        for n in range(4)
    }
    root = _write(
        tmp_path,
        {
            "app/errors.py": "class SocketError(Exception):\n    pass\n",
            "app/reader.py": "def read_frame(sock):\n    if sock.closed:\n"
            "        raise SocketError('closed')\n    return sock.recv()\n\n\n"
            + "".join(f"def filler_{n}():\n    return {n}\n\n\n" for n in range(40))
            + "def read_header(sock):\n    if not sock.ready:\n"
            "        raise SocketError('not ready')\n    return sock.peek()\n",
            **mentions,
        },
    )
    results = Index(root).search("where is SocketError raised", mode="lexical").results
    spots = [(r.path, r.start_line) for r in results]
    raises = [spot for spot in spots if spot[0] == "app/reader.py"]
    assert len(raises) == 2, spots
    assert spots[:2] == raises, spots


def test_a_question_about_uses_of_a_common_word_finds_uses_beyond_the_usual_candidates(
    tmp_path: Path,
) -> None:
    """ "who imports Client": the word is in hundreds of chunks that say it more often
    than an import line does; the imports are found all the same."""
    talk = "".join(
        f"def client_step_{n}(client):\n"
        "    # the client sends the client request for the client\n"
        "    return client.client_send(client, client)\n\n\n"
        for n in range(300)
    )
    root = _write(
        tmp_path,
        {
            "app/client.py": "class Client:\n    pass\n",
            "app/steps.py": talk,
            "app/api.py": "from app.client import Client\n\n\ndef open_api():\n    return 1\n",
            "app/cli.py": "import sys\nfrom app.client import Client\n\n\ndef run():\n"
            "    return sys.argv\n",
        },
    )
    results = Index(root).search("who imports Client", mode="lexical").results
    assert {r.path for r in results[:2]} == {"app/api.py", "app/cli.py"}, results[:3]


def test_a_question_about_an_owners_method_prefers_calls_on_that_owner(
    tmp_path: Path,
) -> None:
    """ "who calls Config.load" asks for calls of that owner's method: code that names
    Config (or calls the method on itself) before a call of another owner's `load`."""
    root = _write(
        tmp_path,
        {
            "app/config.py": "class Config:\n    def load(self, path):\n"
            "        return parse(read(path))\n\n    def reload(self):\n"
            "        return self.load(self.path)\n",
            "app/main.py": "def start(path):\n    settings = Config()\n"
            "    settings.load(path)\n    return serve(settings)\n",
            "app/data.py": "def rows(f):\n    return json.load(f)\n",
        },
    )
    index = Index(root)
    paths = [r.path for r in index.search("who calls Config.load", mode="lexical").results]
    assert set(paths[:2]) == {"app/main.py", "app/config.py"}, paths
    assert paths.index("app/data.py") == 2, paths
    bare = [r.path for r in index.search("who calls load", mode="lexical").results]
    assert "app/data.py" in bare[:2], bare


def test_a_question_about_callees_lists_what_a_function_calls_in_call_order(
    tmp_path: Path,
) -> None:
    """ "what does handle call" is a lookup: the definitions of the names its code calls,
    in the order they are written; library calls, comments and keywords are passed over, and
    a callee named twice is listed once."""
    root = _write(
        tmp_path,
        {
            "app/handler.py": "def handle(request):\n    # audit(request) is done elsewhere\n"
            "    user = authenticate(request)\n    if not allowed(user):\n"
            "        return json.dumps({})\n    reply = render(lookup(user), user)\n"
            "    return render(reply, user)\n",
            "app/auth.py": "def authenticate(request):\n    return request.user\n\n\n"
            "def allowed(user):\n    return user.active\n",
            "app/views.py": "def render(data, user):\n    return str(data)\n",
            "app/store.py": "def lookup(user):\n    return {}\n\n\ndef audit(request):\n"
            "    return None\n",
            "app/service.py": "class Service:\n    def serve(self, request):\n"
            "        return render(authenticate(request), None)\n\n"
            "    def close(self):\n        return lookup(None)\n",
        },
    )
    index = Index(root)
    for question in ("what does handle call", "callees of handle", "what is called by handle"):
        plan = classify(question)
        assert plan.callees_of == "handle", question
        answer = index.search(question)
        found = answer.results
        assert [r.symbol for r in found] == ["authenticate", "allowed", "render", "lookup"]
        assert answer.notices == []  # no vectors are asked, so none are missed
        assert found[0].path == "app/auth.py" and found[0].start_line == 1
    # a member, by its owner; its own lines only, not its class's other methods
    owned = index.search("callees of Service.serve").results
    assert [r.symbol for r in owned] == ["render", "authenticate"]
    missing = index.search("what does nothing_here call")
    assert missing.results == [] and "defined nowhere" in missing.reason
    assert classify("what does the client call").callees_of is None


def test_a_method_named_with_its_namespaces_is_found(tmp_path: Path) -> None:
    """``Sinatra::Base#call``: the table records ``call``'s owner ``Base``, not the
    module around it; the method is found, and where the module names the folders too
    (lib/sinatra/base.rb) it ranks before a ``Base#call`` elsewhere."""
    write_tree(
        tmp_path,
        {
            "lib/sinatra/base.rb": "module Sinatra\n  class Base\n    def call(env)\n"
            "      env\n    end\n  end\nend\n",
            "lib/other/base.rb": "module Other\n  class Base\n    def call(env)\n"
            "      nil\n    end\n  end\nend\n",
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")
    found = index.find_symbol("Sinatra::Base#call")
    assert [r.path for r in found] == ["lib/sinatra/base.rb", "lib/other/base.rb"]
    assert index.find_symbol("Sinatra::Nothing#call") == []
    # a module-level name asked for with its module, as it is imported
    write_tree(tmp_path, {"src/flask/helpers.py": "def url_for(endpoint):\n    return endpoint\n"})
    index.index(embed="none")
    assert [r.path for r in index.find_symbol("flask.helpers.url_for")] == ["src/flask/helpers.py"]
    assert index.find_symbol("flask.views.url_for") == []


def test_a_go_method_is_found_with_its_receiver_type(tmp_path: Path) -> None:
    """``Command.Execute`` and Go's method expression ``(*Command).Execute`` name the
    method whose receiver is a ``*Command``, not another type's ``Execute``."""
    write_tree(
        tmp_path,
        {
            "command.go": "package cobra\n\ntype Command struct{}\n\n"
            "func (c *Command) Execute() error {\n\treturn nil\n}\n",
            "plan.go": "package cobra\n\ntype Plan struct{}\n\n"
            "func (p Plan) Execute() error {\n\treturn nil\n}\n",
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")
    # a package before the type is a namespace the table does not record
    for name in ("Command.Execute", "(*Command).Execute", "cobra.Command.Execute"):
        found = index.find_symbol(name)
        assert [(r.path, r.symbol, r.parent) for r in found] == [
            ("command.go", "Command.Execute", "Command")
        ], name
    assert {r.path for r in index.find_symbol("Execute")} == {"command.go", "plan.go"}


def test_an_inner_function_asked_alone_comes_before_a_function_named_for_part(
    tmp_path: Path,
) -> None:
    """``transferTo`` asks for the method of that name, even when it sits in an object
    inside a long function (no symbol field names it) and a function named ``transfer``
    matches the name's one searchable word in its symbol field."""
    reads = "".join(f"      const part{k} = source.read({k})\n" for k in range(14))
    write_tree(
        tmp_path,
        {
            "src/proxy.js": (
                "function transfer(source, sink) {\n"
                "  // transfer bytes until the source ends\n"
                "  while (source.more()) sink.write(source.next())\n}\n"
            ),
            "src/streams.js": (
                "function inputStream(source) {\n"
                "  return {\n"
                "    read() {\n" + reads + "      return part0\n    },\n"
                "    transferTo(out) {\n      return out.writeAll(source)\n    },\n"
                "  }\n}\n"
            ),
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")
    first = index.search("transferTo", k=3, mode="lexical").results[0]
    assert (first.path, first.symbol, first.kind) == ("src/streams.js", "inputStream", "function")
    assert index.search("transfer", k=3, mode="lexical").results[0].path == "src/proxy.js"


def test_code_and_comments_in_other_languages_are_found_by_their_words(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "src/preise.py": (
                "def berechne_größe(bestellung):\n"
                '    """Größe der Bestellung in Kilogramm."""\n    return bestellung.gewicht\n'
            ),
            "src/order.py": "# 计算订单总价\ndef total(order):\n    return sum(order)\n",
            "src/queue.py": "def обработать_запрос(запрос):\n    return запрос\n",
            "src/other.py": "def unrelated():\n    return 0\n",
        },
    )
    index = Index(tmp_path)
    index.index(embed="none")
    for query, path in [
        ("größe bestellung", "src/preise.py"),
        ("总价", "src/order.py"),
        ("обработать запрос", "src/queue.py"),
    ]:
        results = index.search(query, k=3, mode="lexical").results
        assert results and results[0].path == path, query
    # Names in other scripts are names: asked alone, they are looked up as definitions.
    for name, path in [("berechne_größe", "src/preise.py"), ("обработать_запрос", "src/queue.py")]:
        response = index.search(name, k=3, mode="lexical")
        assert response.query_class == "identifier", name
        assert (response.results[0].path, response.results[0].symbol) == (path, name)


def test_a_file_and_line_point_at_the_chunk_holding_the_line(tmp_path: Path) -> None:
    """`rank.py:40`, an editor's `#L40` or a traceback's `File "..", line 40` asks for
    the code at that line, not for the chunk of the file whose words match best."""
    rank_words = "\n".join(f"    ranked_{i} = rank(ranks, ranking_{i})" for i in range(6))
    root = _write(
        tmp_path,
        {
            "lib/rank.py": (
                "def rank_results(ranks, ranking):\n"
                '    """Rank results by rank, ranking ranks."""\n'
                f"{rank_words}\n    return ranks\n\n\n"
                "def load_settings(path):\n"
                "    text = open(path).read()\n"
                "    port = parse(text)['port']\n"
                "    return port\n"
            ),
            "lib/other.py": "def rank(ranks, ranking):\n    return sorted(ranks)\n",
        },
    )
    index = Index(root)
    line = 14  # `port = parse(text)["port"]`, in load_settings
    for query in (
        f"rank.py:{line}",
        f"lib/rank.py:{line}:9",
        f"rank.py#L{line}",
        f'File "/home/me/app/lib/rank.py", line {line}, in load_settings',
    ):
        top = index.search(query, mode="lexical").results[0]
        assert (top.path, top.symbol) == ("lib/rank.py", "load_settings"), query
        assert top.preview.startswith("    port = parse(text)"), query
    # without the line, the file's best matching chunk comes first, as before
    assert index.search("rank.py", mode="lexical").results[0].symbol == "rank_results"


def test_lines_written_after_file_names() -> None:
    assert named_lines("rank.py:230") == (("rank.py", 230),)
    assert named_lines("error in src/app.ts:12:5 and app.py#L40") == (
        ("src/app.ts", 12),
        ("app.py", 40),
    )
    assert named_lines('File "src/app.py", line 7, in load') == (("src/app.py", 7),)
    assert named_lines("at f (/home/u/lib/router.js:15:3)") == (("/home/u/lib/router.js", 15),)
    for none in ("rank.py", "line 40 of the docs", "v1.2:40", "keylog.h: use a macro"):
        assert named_lines(none) == ()


def test_a_pasted_declaration_asks_for_what_it_declares(tmp_path: Path) -> None:
    """`def load(config: Config) -> Settings:` asks for `load`, not for the classes named
    in its signature, which a name search alone would put first."""
    root = _write(
        tmp_path,
        {
            "app/types.py": "class Config:\n    pass\n\n\nclass Settings:\n    pass\n",
            "app/loader.py": (
                "def load(config, source):\n    data = source.read()\n    return data\n"
            ),
        },
    )
    index = Index(root)
    top = index.search("def load(config: Config) -> Settings:", mode="lexical").results[0]
    assert (top.path, top.symbol) == ("app/loader.py", "load")
    assert index.search("class Settings", mode="lexical").results[0].symbol == "Settings"


def test_declarations_written_as_the_query() -> None:
    assert declared_name("def classify(query: str) -> QueryPlan:") == "classify"
    assert declared_name("pub(crate) async fn parse_config(text: &str)") == "parse_config"
    assert declared_name("func (m *Mux) ServeHTTP(w http.ResponseWriter") == "ServeHTTP"
    assert declared_name("export default function createStore(reducer) {") == "createStore"
    assert declared_name("type Router interface {") == "Router"
    assert declared_name("class Command") == "Command"
    # sentences that open with a declaring word stay sentences
    for words in ("class parses and validates input", "type of error", "function of time"):
        assert declared_name(words) is None
        assert classify(words).kind == "natural"
    plan = classify("def classify(query: str) -> QueryPlan:")
    assert plan.kind == "identifier" and plan.symbol_names == {"classify"}


def test_a_pasted_message_or_line_finds_the_code_it_was_copied_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error message or a line of code, pasted whole, asks for the place that holds
    it; chunks that only share its words (many times over) come after, and so do the
    test that checks the message and the doc that quotes it."""
    decoy_lines = "\n".join(
        f"    stored_{i} = retry_upload(upload, retries, stored, could_not_store={i})\n"
        f"    attempt_{i} = write_bucket(bucket, upload, attempt_range=range(retries))"
        for i in range(8)
    )
    message = "the upload could not be stored after retries"
    root = _write(
        tmp_path,
        {
            "app/retries.py": f"def retry_stored_upload(upload, retries, stored):\n{decoy_lines}\n",
            "app/store.py": (
                "def put(upload, bucket, retries):\n"
                "    for attempt in range(retries):\n"
                "        if bucket.write(upload):\n            return attempt\n"
                f'    raise StoreError("{message}")\n\n\n'
                "def order(items):\n"
                "    items.sort(key=lambda item: -item.score)\n    return items\n"
            ),
            "app/scores.py": (
                "def by_score(items, key):\n    return sorted(items, key=key)\n\n\n"
                "def lambda_score(item, score, key):\n    return item.score * key(score)\n"
            ),
            "tests/test_store.py": (
                f'def test_put_gives_up():\n    assert str(error) == "{message}"\n'
            ),
            "docs/errors.md": f"# Errors\n\n`{message}`: the bucket refused every write.\n",
        },
    )
    index = Index(root)

    def first(query: str) -> tuple[str, str]:
        top = index.search(query, mode="lexical").results[0]
        return top.path, top.symbol

    assert first(message) == ("app/store.py", "put")
    assert first(f'raise StoreError("{message}")') == ("app/store.py", "put")
    assert first("items.sort(key=lambda item: -item.score)") == ("app/store.py", "order")
    # a snippet pasted over several lines, indented as in the file or not
    assert first("for attempt in range(retries):\n  if bucket.write(upload):") == (
        "app/store.py",
        "put",
    )
    # the same searches without the prior: the words alone point elsewhere
    monkeypatch.setitem(signals.PRIORS, "verbatim", 1.0)
    assert first(message) != ("app/store.py", "put")
    assert first("for attempt in range(retries):\n  if bucket.write(upload):") != (
        "app/store.py",
        "put",
    )


def test_what_counts_as_pasted_text() -> None:
    assert (
        verbatim_needle("  The upload could NOT be   stored ") == "the upload could not be stored"
    )
    assert verbatim_needle('"self._vectors.load()"') == "self._vectors.load()"
    assert verbatim_needle("x = load(y)") is None  # too short to point anywhere
    for phrase in ("error handling", "retry with backoff", "parse_config_file_name"):
        assert verbatim_needle(phrase) is None  # a common phrase, or a name


def test_a_name_asks_for_the_kind_its_case_tells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Index` asks for class Index and `index` for the function index(), though class
    Indexer (in indexer.py, which the word names) matches the word better."""
    root = _write(
        tmp_path,
        {
            "app/api.py": (
                "class Index:\n"
                '    """One repository\'s files and chunks, opened lazily."""\n\n'
                "    def __init__(self, root, model, tier):\n"
                "        self.root = root\n        self.model = model\n"
                "        self.tier = tier\n        self.files = []\n"
                "        self.chunks = []\n        self.notices = []\n\n"
                "    def close(self):\n        self.files = []\n"
            ),
            "app/indexer.py": (
                "class Indexer:\n    def run(self, index):\n        return index.update()\n"
            ),
            "app/store.py": "def index(rows):\n    return sorted(rows)\n",
        },
    )
    index = Index(root)

    def first(query: str) -> tuple[str, str]:
        top = index.search(query, mode="lexical").results[0]
        return top.path, top.symbol

    assert first("Index") == ("app/api.py", "Index")
    assert first("index") == ("app/store.py", "index")
    monkeypatch.setitem(signals.PRIORS, "type_name", 1.0)
    monkeypatch.setitem(signals.PRIORS, "function_name", 1.0)
    monkeypatch.setitem(signals.SIGNALS, "sole_definition_floor", 0.0)
    assert first("Index") == first("index") == ("app/indexer.py", "Indexer")


def test_a_query_no_chunk_holds_says_its_results_are_by_meaning_only(
    embedded_repo: Path,
) -> None:
    index = Index(embedded_repo)
    nowhere = index.search("xyzzyplugh", mode="hybrid")
    assert nowhere.results and any("closest by meaning" in n for n in nowhere.notices)
    found = index.search("retry failed upload", mode="hybrid")
    assert not any("closest by meaning" in n for n in found.notices)
    assert not index.search("xyzzyplugh", mode="lexical").results


def test_a_definition_merged_into_its_neighbours_chunk_is_shown_under_its_name(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    write_tree(
        root,
        {
            "chain.go": "package chi\n\n"
            "// ChainHandler is a http.Handler with support for handler composition.\n"
            "type ChainHandler struct {\n\tEndpoint http.Handler\n}\n\n"
            "func (c *ChainHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n"
            "\tc.Endpoint.ServeHTTP(w, r)\n}\n",
        },
    )
    git_init(root)
    index = Index(root)
    index.index(embed="none")
    top = index.search("ServeHTTP", mode="lexical").results[0]
    assert (top.path, top.symbol, top.kind) == ("chain.go", "ServeHTTP", "method")
    assert index.search("ChainHandler", mode="lexical").results[0].symbol == "ChainHandler"


def test_a_small_method_merged_into_its_neighbours_chunk_is_found_by_its_bare_name(
    tmp_path: Path,
) -> None:
    """Lua's ``M:valid`` is named with its owner and merged into the chunk of ``M.new``:
    asked for as ``valid``, it is the definition, ahead of ``M.validate``."""
    new = "\n".join(f"  self.opt{n} = opts.opt{n} or {n}" for n in range(12))
    root = _write(
        tmp_path,
        {
            "lua/win.lua": "local M = {}\n\nfunction M.new(opts)\n  local self = {}\n"
            f"{new}\n  return setmetatable(self, M)\nend\n\n"
            "function M:valid()\n  return self.buf ~= nil\nend\n\nreturn M\n",
            "lua/config.lua": "local M = {}\n\nfunction M.validate(opts)\n"
            "  -- a valid spec has keys; an invalid one is reported\n"
            "  if not opts.valid then\n    warn('not valid: ' .. vim.inspect(opts))\n  end\n"
            "  return opts.valid\nend\n\nreturn M\n",
        },
    )
    index = Index(root)
    top = index.search("valid", mode="lexical").results[0]
    assert (top.path, top.symbol) == ("lua/win.lua", "M:valid")
    assert top.start_line <= 21 <= top.end_line


def test_a_lower_case_name_asked_alone_finds_the_macro_of_that_name(tmp_path: Path) -> None:
    """Elixir's ``defmacro transport`` (and Rust's ``macro_rules!``) is called like a
    function: asked for as ``transport``, it comes before the module in transport.ex."""
    root = _write(
        tmp_path,
        {
            "lib/socket.ex": "defmodule Phoenix.Socket do\n"
            "  defmacro transport(path, module, config \\\\ []) do\n"
            "    quote do\n      @phoenix_transports {unquote(path), unquote(module)}\n"
            "    end\n  end\n\n"
            "  def connect(map, socket), do: {:ok, socket}\nend\n",
            "lib/socket/transport.ex": "defmodule Phoenix.Socket.Transport do\n"
            '  @moduledoc "The transport behaviour: a transport connects a client."\n'
            "  @callback init(state :: term) :: {:ok, term}\n"
            "  def connect_info(conn, keys), do: Map.take(conn, keys)\nend\n",
        },
    )
    index = Index(root)
    top = index.search("transport", mode="lexical").results[0]
    assert (top.path, top.symbol, top.kind) == ("lib/socket.ex", "transport", "macro")


def test_a_member_asked_for_with_its_owner_finds_that_owners_member(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "core.py": "class Context:\n"
            + "".join(f"    def helper_{i}(self):\n        return {i}\n\n" for i in range(6))
            + "    def invoke(self, callback):\n        return callback(self)\n",
            "testing.py": "class CliRunner:\n    '''Invokes a command line in isolation.'''\n\n"
            + "".join(f"    def setup_{i}(self):\n        return {i}\n\n" for i in range(6))
            + "    def invoke(self, cli, args=None):\n        return cli.main(args)\n",
        },
    )
    git_init(tmp_path)
    index = Index(tmp_path)
    index.index(embed="none")
    for query, path in (("CliRunner.invoke", "testing.py"), ("Context.invoke", "core.py")):
        top = index.search(query, mode="lexical").results[0]
        assert (top.path, top.symbol) == (path, "invoke"), query


def test_a_long_preview_line_says_it_is_cut() -> None:
    from sleuth.search.engine import PREVIEW_LINE_CHARS, preview

    shown = preview("x = call(" + "argument, " * 40 + ")\nshort line", ["argument"])
    first, second = shown.split("\n")
    assert len(first) == PREVIEW_LINE_CHARS and first.endswith("…")
    assert second == "short line"


def test_a_preview_starts_at_the_first_line_with_most_query_terms() -> None:
    from sleuth.search.engine import preview

    text = "\n".join(
        [
            "def retry(job):",  # one term
            "    # Retry retry retry",  # one term, however often (any case)
            "",
            "    for attempt in range(LIMIT):  # upload retry",  # two terms
            "        upload.send()  # retry upload again",  # two terms, later
            "    return None",
        ]
    )
    assert preview(text, ["retry", "upload"]).startswith("    for attempt in range(LIMIT)")
    assert preview(text, ["nowhere"]).startswith("def retry(job):")
    assert preview(text, ["none", "none"]).startswith("    return None")
    assert preview(text, []).startswith("def retry(job):")


def test_a_name_that_is_a_common_word_is_still_searched(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"app.py": "class Application:\n    def find(self, name):\n        return name\n"},
    )
    git_init(tmp_path)
    index = Index(tmp_path)
    index.index(embed="none")
    top = index.search("find", mode="lexical").results[0]
    assert (top.path, top.symbol) == ("app.py", "find")


def test_lookups_and_questions_about_uses_do_not_run_the_model(embedded_repo: Path) -> None:
    """A question about uses is answered by presence, and a callee or member lookup by
    the definitions: none waits for the query's embedding, which takes longer than the
    rest of such a search. A question in words still embeds its query."""
    index = Index(embedded_repo)
    for question in (
        "who calls retry_failed_upload",
        "where is ConfigParser used",
        "what does retry_failed_upload call",
        "methods of ConfigParser",
    ):
        assert index.search(question).results, question
    assert not index.model_loaded
    index.search("uploads sent again after a failure, asked once in these tests")
    assert index.model_loaded


SCANNER = (
    "int scan_number(const char *text) {\n"
    "    /* read the digits of a number token */\n"
    "    int value = 0;\n"
    "    while (*text >= '0' && *text <= '9') value = value * 10 + (*text++ - '0');\n"
    "    return value;\n"
    "}\n"
)


def test_a_file_a_tool_wrote_ranks_below_hand_written_code(tmp_path: Path) -> None:
    """A file whose first lines say a tool wrote it (a flex scanner, Go's `DO NOT
    EDIT`) ranks below the same code written by hand, and is still found; the mark is
    dropped when the file is rewritten by hand."""
    question = "read the digits of a number token"
    body = SCANNER.replace("scan_number", "yy_scan_number")
    root = _write(
        tmp_path,
        {
            "src/lexer.c": "/* A lexical scanner generated by flex */\n\n" + body,
            "src/number.c": "/* Numbers. */\n\n" + SCANNER,
        },
    )
    index = Index(root)
    results = index.search(question, mode="lexical").results
    assert [r.path for r in results[:2]] == ["src/number.c", "src/lexer.c"]
    before = results[1].score
    (root / "src/lexer.c").write_text("/* A lexical scanner written by hand */\n\n" + body)
    index.index(embed="none")
    after = {r.path: r.score for r in index.search(question, mode="lexical").results}
    assert after["src/lexer.c"] > 1.4 * before


_UMD_OPENING = (
    "(function (global, factory) {\n"
    "  typeof exports === 'object' && typeof module !== 'undefined' ? "
    "module.exports = factory() :\n"
    "  typeof define === 'function' && define.amd ? define(factory) : global.lib = factory();\n"
    "})(this, (function () { 'use strict';\n"
)
_PAGE_HEAD = '<!DOCTYPE html>\n<html lang="en">\n  <head><title>Request</title></head>\n<body>\n'
_JAZZY_FOOT = (
    '<p class="copyright">Generated by <a class="link" href="https://github.com/realm/jazzy"'
    ' target="_blank">jazzy &#9834;&#9835;</a></p>\n</body>\n</html>\n'
)


@pytest.mark.parametrize(
    ("head", "generated"),
    [
        ("// Code generated by stringer; DO NOT EDIT.\n\npackage x\n", True),
        ("/* A Bison parser, made by GNU Bison 3.8.2.  */\n", True),
        ("# This file is automatically generated.\nx = 1\n", True),
        ("# Generated by make_width_table.py\nWIDTHS = []\n", True),
        ("# Generated by Django 4.2 on 2024-01-01 10:00\n", True),
        # a single header assembled from the library's own headers (toml++'s toml.hpp)
        (
            "// - THIS FILE WAS ASSEMBLED FROM MULTIPLE HEADER FILES BY A SCRIPT"
            " - PLEASE DON'T EDIT IT DIRECTLY -\n",
            True,
        ),
        ("// generated from schema.proto\n", True),
        ("# the response generated by the server is cached\n", False),  # prose
        ('#include "parser.h"  /* Generated by bison. */\n', False),  # a comment on code
        ('"""Build the response generated from a request."""\n', False),
        ("x = 1  # do not edit\n", False),
        ("\n" * 20 + "// DO NOT EDIT\n", False),  # below the file's head
        # a web page built by a tool says so at its foot (jazzy's API reference)
        (_PAGE_HEAD + "<p>x</p>\n" * 500 + _JAZZY_FOOT, True),
        (_PAGE_HEAD + "<p>written by hand</p>\n</body></html>\n", False),
        ("<p>Generated by the server</p>\n", False),  # no page: a fragment, a template
        # a build's output names its source map at its end
        ("function a(){}\n//# sourceMappingURL=app.js.map\n", True),
        (".a{color:red}\n/*# sourceMappingURL=app.css.map */\n", True),
        ("// how to write //# sourceMappingURL=x.map in a comment\nlet a = 1\n", False),
        # a library bundled for every module system: thousands of lines in a UMD wrapper
        (_UMD_OPENING + "  function helper() {}\n" * 2000 + "}));\n", True),
        (_UMD_OPENING + "  function helper() {}\n" * 40 + "}));\n", False),  # by hand
    ],
)
def test_generated_files_are_told_by_their_first_comment_lines(head: str, generated: bool) -> None:
    assert generated_by_content(head) is generated


def test_recorded_test_data_ranks_below_the_tests(tmp_path: Path) -> None:
    """Snapshots and screenshots repeat the names of what they record: a question about
    tests finds the test code first; a question asking for fixtures does not lower
    them."""
    screen = "statusline: mode | git branch | diagnostics | filename | location\n" * 8
    root = _write(
        tmp_path,
        {
            "tests/test_statusline.lua": "local T = {}\n\n"
            "T['statusline']['shows the mode'] = function()\n"
            "  child.lua('MiniStatusline.setup()')\n"
            "  expect.equality(child.statusline(), 'mode')\n"
            "end\n\nreturn T\n",
            "tests/screenshots/statusline-default": screen,
            "tests/screenshots/statusline-narrow": screen.replace("git branch | ", ""),
        },
    )
    index = Index(root)
    top = index.search("tests for the statusline", mode="lexical").results[0]
    assert top.path == "tests/test_statusline.lua"
    shot = ChunkRow(1, "tests/screenshots/statusline-default", "text", 1, 8, "window", *[""] * 6)
    code = ChunkRow(2, "tests/statusline_helpers.lua", "lua", 1, 8, "function", *[""] * 6)
    ratios = []
    for question in ("how the statusline shows the mode", "statusline fixtures"):
        scored = [Scored(shot, 1.0), Scored(code, 1.0)]
        priors.apply_priors(classify(question), scored, {})
        ratios.append(scored[0].score / scored[1].score)
    assert ratios[0] < 1.0 == ratios[1]


def _declared_and_defined() -> dict[str, str]:
    """A Java interface whose documented methods say the words of the question, beside
    the class whose method does the work."""
    options = [
        f"    /**\n     * Option {i} of the queue, kept for every upload in the batch.\n"
        f"     * @return this queue, for chaining\n     */\n"
        f"    UploadQueue option{i}(int value);\n\n"
        for i in range(12)
    ]
    interface = (
        "package uploads;\n\npublic interface UploadQueue {\n"
        + "".join(options[:6])
        + "    /**\n     * Retry failed uploads: each failed upload is sent again\n"
        "     * until its attempts run out.\n"
        "     * @param attempts how often an upload is retried\n"
        "     * @return this queue, for chaining\n     */\n"
        "    UploadQueue retryFailedUploads(int attempts);\n\n" + "".join(options[6:]) + "}\n"
    )
    body = "".join(f"            long wait{i} = backoff * {i};\n" for i in range(6))
    steps = "".join(f"        buffer.put(part{i});\n" for i in range(70))
    send = f"    private void send(Upload upload) {{\n{steps}        socket.flush();\n    }}\n"
    implementation = (
        "package uploads;\n\nclass HttpUploadQueue implements UploadQueue {\n" + send + "\n"
        "    public UploadQueue retryFailedUploads(int attempts) {\n"
        "        // failed uploads are retried: each is sent again after a wait\n"
        "        for (Upload upload : failed) {\n" + body + "            send(upload);\n"
        "        }\n        return this;\n    }\n}\n"
    )
    return {"src/UploadQueue.java": interface, "src/HttpUploadQueue.java": implementation}


def test_a_question_in_words_is_answered_by_code_before_a_declaration_without_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interface's method declared with a long comment says the question's words more
    often than the method that does the work; a declaration without a body takes the
    `declarations` prior for a question in words (signals.SIGNALS["body_less"]). A name
    asked for is left alone, and an expression body (`=> attempts;`) is a body."""
    index = Index(write_tree(tmp_path, _declared_and_defined()))
    index.index(embed="none")
    question = "how are failed uploads retried"
    monkeypatch.setitem(signals.SIGNALS, "body_less", False)
    before = index.search(question, mode="lexical").results
    assert (before[0].path, before[0].symbol) == ("src/UploadQueue.java", "retryFailedUploads")
    monkeypatch.setitem(signals.SIGNALS, "body_less", True)
    results = index.search(question, mode="lexical").results
    assert [(r.path, r.symbol) for r in results[:2]] == [
        ("src/HttpUploadQueue.java", "retryFailedUploads"),
        ("src/UploadQueue.java", "retryFailedUploads"),
    ]
    # a name asked for: the prior does not apply, the order is the one without it
    named = index.search("retryFailedUploads", mode="lexical").results
    monkeypatch.setitem(signals.SIGNALS, "body_less", False)
    assert [r.path for r in index.search("retryFailedUploads", mode="lexical").results] == [
        r.path for r in named
    ]
    assert priors.body_less("/** Retries. {@link Upload} */\nUpload retry(int attempts);")
    assert priors.body_less("// Retries. {@link Upload}\nUpload retry(int n); // at most 3")
    assert not priors.body_less("public int Attempts() => attempts;")  # C#: a body
    assert not priors.body_less("int retry(int attempts) {\n    return attempts;\n}")


def test_a_question_in_words_lowers_an_interface_below_its_implementation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interface documents what its implementations do, in the question's words; for
    a question in words its chunk takes the `declarations` prior
    (signals.SIGNALS["interfaces"]), unless the question asks about interfaces or is a
    name."""
    interface = (
        "namespace Validation.Resources;\n\n"
        "public interface ILanguageManager {\n"
        "    /// <summary>The localized default error message for a culture.</summary>\n"
        "    string GetString(string key, CultureInfo culture = null);\n"
        "    bool Enabled { get; set; }\n}\n"
    )
    implementation = (
        "namespace Validation.Resources;\n\n"
        "public class LanguageManager : ILanguageManager {\n"
        "    public string GetString(string key, CultureInfo culture = null) {\n"
        "        culture ??= CultureInfo.CurrentUICulture;\n"
        "        return _messages[culture.Name + key];\n    }\n}\n"
    )
    files = {"src/ILanguageManager.cs": interface, "src/LanguageManager.cs": implementation}
    index = Index(write_tree(tmp_path, files))
    index.index(embed="none")
    meta = MetaStore(index.layout.meta)
    rows = {row.kind: row for row in meta.iter_chunks()}
    meta.close()
    assert rows["interface"].path == "src/ILanguageManager.cs"

    def ratio(question: str) -> float:
        scored = [Scored(rows["interface"], 1.0), Scored(rows["class"], 1.0)]
        priors.apply_priors(classify(question), scored, {})
        return scored[0].score / scored[1].score

    question = "localized default error message for a culture"
    assert ratio(question) == pytest.approx(signals.PRIORS["declarations"])
    assert ratio("interface for localized error messages") == 1.0
    assert ratio("ILanguageManager") >= 1.0
    monkeypatch.setitem(signals.SIGNALS, "interfaces", False)
    assert ratio(question) == 1.0


_DEPENDENCY_CODE = (
    "```python\ndef get_db():\n    db = Session()\n    try:\n        yield db\n"
    "    finally:\n        db.close()  # dependencies with yield are cleaned up here\n```\n"
)


def test_translated_docs_rank_below_the_original_for_a_question_in_english(
    tmp_path: Path,
) -> None:
    """Docs translated into other languages (``docs/de/``, ``docs/ru/``) repeat the
    original's code examples; an English question is answered by the original page, a
    question in the translation's own language by the translation."""
    english = (
        "# Dependencies with yield\n\nA dependency can do extra steps after the request is "
        "finished: use yield instead of return, and write the extra steps after it.\n\n"
        + _DEPENDENCY_CODE
    )
    files = {"docs/en/docs/dependencies.md": english}
    for language in ("ru", "ja"):
        files[f"docs/{language}/docs/dependencies.md"] = "# yield\n\n" + _DEPENDENCY_CODE
    files["docs/de/docs/dependencies.md"] = (
        "# Abhängigkeiten mit yield\n\nAbhängigkeiten mit yield werden aufgeräumt.\n\n"
        + _DEPENDENCY_CODE
    )
    index = Index(_write(tmp_path, files))
    results = index.search("how are dependencies with yield cleaned up").results
    assert results[0].path == "docs/en/docs/dependencies.md"
    german = index.search("Wie werden Abhängigkeiten mit yield aufgeräumt").results
    assert german[0].path == "docs/de/docs/dependencies.md"


def test_the_translation_prior_lowers_translated_docs_for_a_question_in_ascii() -> None:
    """At equal scores before the priors, the original page of the docs keeps its score
    and its translation takes ``PRIORS["translation"]``; a question with accents or in
    another script leaves both alike."""

    def scored() -> list[Scored]:
        return [
            Scored(ChunkRow(i, path, "markdown", 1, 9, "section", "", "", "", "", "", ""), 1.0)
            for i, path in enumerate(["docs/en/deps.md", "docs/ru/deps.md"])
        ]

    folders = frozenset({"docs/ru/"})
    english = scored()
    priors.apply_priors(classify("dependencies with yield"), english, {}, translations=folders)
    assert english[1].score == pytest.approx(english[0].score * signals.PRIORS["translation"])
    assert signals.PRIORS["translation"] < 1.0
    other = scored()
    priors.apply_priors(classify("зависимости с yield"), other, {}, translations=folders)
    assert other[1].score == pytest.approx(other[0].score)


def test_translation_folders_are_told_by_their_language_siblings() -> None:
    paths = [
        "docs/en/index.md",
        "docs/pt-BR/index.md",
        "docs/zh-hant/index.md",
        "website/i18n/ja/docs/intro.md",
        "src/io/read.rs",
        "src/os/path.rs",
        "guide/zh/intro.md",
    ]
    folders = translation_folders(paths)
    assert folders == {"docs/pt-BR/", "docs/zh-hant/", "website/i18n/ja/"}
    assert translated("docs/pt-BR/index.md", folders)
    assert not translated("docs/en/index.md", folders)
    assert not translated("src/io/read.rs", folders)


@pytest.mark.parametrize(
    ("path", "vendored"),
    [
        ("include/spdlog/fmt/bundled/format.h", True),
        ("src/pip/_vendor/rich/console.py", True),
        ("lib/vendored/six.py", True),
        ("src/bundler/cli.rb", False),
        ("src/vendoring.py", False),
        ("include/spdlog/logger.h", False),
    ],
)
def test_a_copy_of_another_project_takes_the_vendored_prior(path: str, vendored: bool) -> None:
    """Code copied in from another project under a folder that says so ranks below the
    project's own at the same score (the usual vendor/ folders are not indexed)."""
    own = ChunkRow(1, "src/own.c", "c", 1, 9, "function", "", "", "", "", "", "")
    other = ChunkRow(2, path, "c", 1, 9, "function", "", "", "", "", "", "")
    scored = [Scored(own, 1.0), Scored(other, 1.0)]
    priors.apply_priors(classify("how is a message written out"), scored, {})
    expected = signals.PRIORS["vendored"] if vendored else 1.0
    assert scored[1].score == pytest.approx(scored[0].score * expected)
    assert signals.PRIORS["vendored"] < 1.0
