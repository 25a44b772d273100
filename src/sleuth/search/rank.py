"""Fusion and priors: turn per-retriever scores into one ordered, merged list.

Fusion is weighted and scaled: BM25 scores are divided by the best one, cosines are
scaled from the candidates' mean (0) to the best (1), then mixed with the query class's
weights. A chunk without a vector (the deep tier still filling in) takes its lexical
score in place of the semantic one, so it is neither punished nor favoured for being
unembedded.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..languages import DATA_LANGUAGES, DOC_LANGUAGES
from ..locales import translated
from ..store.lexical import FIELD_BOOSTS
from ..store.meta import ChunkRow, DefinitionSpan
from ..tokens import bare_name, names_path, short_name, split_identifier
from .classify import QueryPlan
from .filters import category_of, chunk_category

_GENERATED_PATH = re.compile(
    r"(^|/)(generated|gen|autogen|__generated__|migrations)/"
    r"|\.generated\.|_generated\.|\.d\.[cm]?ts$"
)
_VENDORED_PATH = re.compile(r"(^|/)(_?vendored|_vendor|bundled)/")
_AUXILIARY_PATH = re.compile(
    r"(^|/)_*(examples?|samples?|snippets?|benchmarks?|bench|benches|demos?|docs?|docs_src"
    r"|playgrounds?)/",
    re.I,
)
#: Release notes: a changelog file (CHANGELOG.md, CHANGES.rst, HISTORY, NEWS) or a folder
#: of them (changelog.d/, docs/changelog/, release-notes/).
_RELEASE_NOTES_FILE = re.compile(
    r"(^|/)(change_?logs?|changes|history|news|releases?|release[-_]?notes)"
    r"(\.(md|markdown|rst|txt|adoc|org))?$",
    re.I,
)
_RELEASE_NOTES_FOLDER = re.compile(
    r"(^|/)(change_?logs?(\.d)?|changes|release[-_]?notes|releases)/", re.I
)
#: A question that asks for configuration or data, which such files answer.
_ASKS_DATA = re.compile(
    r"\b(config\w*|settings?|workflows?|ci|pipelines?|ya?ml|json|toml|xml|manifests?"
    r"|dependenc\w*|packages?|schemas?|fixtures?|snapshots?|data|keys?|values?|env\w*)\b",
    re.I,
)
#: A query about releases or changes, which release notes answer.
_ASKS_RELEASES = re.compile(
    r"\b(change_?logs?|change log|changes|changed|releases?|released|release notes|versions?"
    r"|news|upgrad\w*|migrat\w*|deprecat\w*)\b",
    re.I,
)

#: Multipliers; each is switched off in the ablation of docs/benchmarks.md.
PRIORS = {
    "definition": 1.6,  # the chunk defines a symbol the query names
    # ... and holds its first line: a long class is chunked in pieces, each named for it;
    # the piece with the signature answers a lookup (bench/definition_lookup.py)
    "definition_head": 1.05,
    "exact_case": 1.3,  # ... with the query's very case: class Command over def command
    # ... a capitalised name asked for alone, and the chunk is the type of exactly that
    # name: `Index` asks for class Index, not the method index() or class Indexer (the
    # case decides only between kinds that share the name: a lower-case C struct
    # `leveldb_options_t`, or a capitalised C# method `GetProcessId`, takes its prior
    # when nothing else has that name; ``_kind_asked``)
    "type_name": 2.5,
    # ... a lower-case one, and the chunk is the function, method or macro (Elixir's
    # defmacro, Rust's macro_rules!, called like functions) of exactly that name
    # (or holds its first line: an inner function, `transferTo` in a returned object):
    # `index` asks for def index(), not class Indexer in indexer.py
    "function_name": 2.5,
    # ... an upper-case one (`DEFAULT_LIMIT`), and the chunk defines the constant of
    # exactly that name, not code whose names hold its words (`limit`); a name of
    # another case too when no type or function has it (Go's `ShellCompDirectiveDefault`)
    "constant_name": 2.5,
    # ... as a function's inner function, which no symbol field names: it makes up for
    # the field match a definition of its own chunk would have
    "inner_definition": 1.6,
    # the query asks where a name is used ("where is parse_config called", "usages of
    # Index"): the chunk defining it, which says the name most, is not an answer
    "used_name_defined": 0.3,
    "tests": 0.5,  # test files, unless the query asks about tests
    "docs": 0.45,  # prose, unless the query asks about docs (below tests: source, tests, docs)
    "asked_for": 1.3,  # tests or docs when the query asks for them
    "auxiliary": 0.85,  # examples, benchmarks
    # release notes (CHANGELOG.md, CHANGES.rst, HISTORY): a line for every change says
    # the words of every question, but answers one about releases only
    "release_notes": 0.5,
    # documentation translated from English (``docs/ru/``, ``i18n/ja/``: ``locales``),
    # for a question written in ASCII: the original page answers it, not its copies
    "translation": 0.3,
    # data and configuration files (JSON, YAML, TOML, XML), and recorded test data
    # (snapshots, screenshots, fixtures as text), for a question in words that does not
    # ask for configuration or data: CI workflows and fixtures say many words
    "data_files": 0.6,
    # generated code: by its path (generated/, *.generated.*, .d.ts), or a file whose
    # first lines say a tool wrote it (``DO NOT EDIT``, a flex scanner; ``generated``)
    "generated": 0.6,
    # another project's code copied in (spdlog's fmt under fmt/bundled/, pip's _vendor/);
    # the usual folders (vendor/, third_party/) are not indexed at all
    "vendored": 0.6,
    # query words name the file (retry.py, lock.lua, Options.hs): the full boost when they
    # name every word of its name, a share of it for part (options: CommandLineOptions.hs)
    "file_name": 1.6,
    "folder_name": 1.2,  # a query word names a folder of the path (Writers/HTML.hs)
    "imports": 0.6,  # a block of import / use / require lines names things, defines none
    # an older version folder (src/v3/) beside a newer one among the candidates (src/v4/),
    # unless the query names that version
    "superseded": 0.6,
    # TypeScript/JavaScript type-declaration modules (a types/ folder, .d.ts files), and
    # functions declared without a body (SIGNALS["body_less"]), for questions in words:
    # they describe shapes, the code that does the work is elsewhere
    "declarations": 0.75,
    # a file that mentions every word of a question somewhere (in any chunk or its
    # path); partly covered files get the same share of the boost
    "coverage": 2.0,
    # the query writes the file's name as on disk, extension and all (keylog.h beside
    # keylog.c, `fastapi/utils.py` among other utils.py)
    "named_file": 4.0,
    # ... and the chunk holds the line written after it (rank.py:230, a stack trace's
    # frame): a pointer, so the other chunks of the file, however well they match the
    # file name's words, are not what was asked for
    "named_line": 10.0,
    # the chunk holds the query as written, case and spacing aside: a pasted line of code
    # or error message asks for the place it was copied from
    "verbatim": 10.0,
}

#: Other ranking signals, each switched off in the ablation (False or 0 is neutral).
SIGNALS: dict[str, bool | float | str] = {
    # "minmax": weighted min-max score fusion; "rrf": reciprocal rank fusion (measured
    # against each other in docs/benchmarks.md)
    "fusion": "minmax",
    "class_weights": True,  # fusion weights by query class; off: 0.5 / 0.5 for all
    # a function or method declared without a body (an interface's method, a C
    # prototype) takes the ``declarations`` prior for a question that is not a name
    "body_less": True,
    # Each further hit of a file already ranked higher keeps (1 - this) of its score,
    # compounding: one big file cannot fill the top 10 while other files also match.
    "same_file_penalty": 0.7,
    # The best hit of a file gains this share of its file's other hits' scores: a file
    # where many chunks match is more likely the one asked about.
    "file_evidence": 0.1,
    # Only a file's best 10 further hits count as evidence: a huge file (a 4,000-line
    # header) otherwise wins every query by the sheer number of its chunks. 0: all count.
    "evidence_hits": 10,
    # Where the semantic scale starts: "mean" of the candidates' cosines (the bulk of
    # weak candidates scores 0, the best 1), "min" (min-max: one far-off candidate
    # stretches the scale and flattens the rest), or "zero" (cosine over the best).
    "semantic_floor": "mean",
    # Each further hit of a file counts this much less than the one before as evidence
    # (geometric, 1.0: all the same); applied within the evidence_hits cap.
    "evidence_decay": 1.0,
    # The static table's share of the semantic side when both tiers are built: each
    # model's cosines scaled on their own (as above), then blended. 0: deep vectors only.
    "static_share": 0.3,
    # A question in words sits nearer to prose than to code in an embedding model's
    # space: prose candidates' cosines are moved onto the code candidates' mean and
    # spread before scaling, so a README paragraph does not outrank the code it describes
    # for being prose. False: one scale for all.
    "prose_alignment": True,
    # A definition cut in pieces, each named for it: when a later piece scores best, it
    # trades scores with the piece holding the first line (the file keeps its score).
    "lead_with_heads": True,
    # A test file's path names what it tests (tests/search/test_rank.py): unless the
    # query asks for tests, its words earn a test file no file-name or folder prior.
    "tested_by_path": True,
    # A name asked for alone that the tree only re-exports (`pub use dep::{Name}`): the
    # chunk holding the re-export scores at least this share of the best BM25 score
    # (``engine``). One name in a block of fifty otherwise sinks by length.
    "reexport_floor": 1.0,
    # A name asked for alone that exactly one definition has, case and all: the chunk
    # holding it scores at least this share of the best BM25 score (``engine``). One
    # line in a long block of values (`Scope = MutableMapping[..]`) otherwise sinks.
    "sole_definition_floor": 1.0,
    # A name asked for alone that no definition has (`cmd_parse_from_file` of a yacc
    # file, `DATABASE_URL`): the chunks holding it whole come first, before chunks that
    # only share its words (``engine``), each scoring at least the best BM25 score.
    "undefined_name_first": True,
    # BM25's boost of the symbol field for a question in words (a name asked for keeps
    # ``lexical.FIELD_BOOSTS``'s): the words of a question name what the code does, and
    # short chunks named with one of them (`set_error`, `sort_cmp`) outranked the code
    # that does it. 0: the same boost for every query.
    "words_symbol_boost": 1.5,
    # A question in words whose best chunk in a file is a type's header (its declaration
    # and fields, a name nothing asked for): when a function or method of the file scores
    # at least this share of it, the two trade scores (the file keeps its scores). The
    # header says what a thing is; the function, what it does. 0: off.
    "lead_with_code": 0.5,
    # For a question in words, a file's candidates are put in order by score x lines^this,
    # and take the file's scores in that order (the file keeps its scores): BM25's length
    # normalisation and the embedding of a short chunk (mostly its path and signature)
    # favour a file's short chunks, and the code asked about is more often a longer one.
    # 0: the scores' own order.
    "longer_first": 0.2,
}


@dataclass(slots=True)
class Scored:
    row: ChunkRow
    score: float
    lexical: float = 0.0
    semantic: float | None = None
    start_line: int = 0
    end_line: int = 0
    #: 0, or how the chunk defines a name the query asks for (``_defines``)
    defines: int = 0
    #: the chunk defines the name a question about uses asks about
    defines_used: bool = False

    def __post_init__(self) -> None:
        self.start_line = self.start_line or self.row.start_line
        self.end_line = self.end_line or self.row.end_line


def field_boosts(plan: QueryPlan) -> dict[str, float]:
    """BM25's boost per field for this query (``SIGNALS["words_symbol_boost"]``)."""
    boost = float(SIGNALS["words_symbol_boost"])
    if plan.kind == "identifier" or not boost:
        return FIELD_BOOSTS
    return {**FIELD_BOOSTS, "symbol": boost}


def fuse(
    plan: QueryPlan,
    lexical: dict[int, float],
    semantic: dict[int, float],
    rows: dict[int, ChunkRow],
    mode: str,
    static: dict[int, float] | None = None,
) -> list[Scored]:
    lex_scaled = _minmax(lexical, floor_zero=True)
    floor = str(SIGNALS["semantic_floor"])
    prose = _prose_rows(rows)
    sem_scaled = _scaled(_align_prose(semantic, prose), floor)
    share = float(SIGNALS["static_share"])
    if static and share:
        static_scaled = _scaled(_align_prose(static, prose), floor)
        sem_scaled = {
            key: (1 - share) * value + share * static_scaled.get(key, value)
            for key, value in sem_scaled.items()
        }
    if SIGNALS["fusion"] == "rrf":
        lex_scaled, sem_scaled = _reciprocal_ranks(lexical), _reciprocal_ranks(semantic)
    lex_weight, sem_weight = (
        (plan.lexical_weight, plan.semantic_weight) if SIGNALS["class_weights"] else (0.5, 0.5)
    )
    scored = []
    for chunk_id, row in rows.items():
        lex = lex_scaled.get(chunk_id, 0.0)
        sem = sem_scaled.get(chunk_id)
        if mode == "lexical":
            score = lex
        elif mode == "semantic":
            score = sem if sem is not None else 0.0
        else:
            score = lex_weight * lex + sem_weight * (sem if sem is not None else lex)
        scored.append(Scored(row, score, lex, sem))
    return scored


#: Fewer prose candidates than this have no spread to align (the scale stays shared).
ALIGN_MIN_PROSE = 3


def _prose_rows(rows: dict[int, ChunkRow]) -> frozenset[int]:
    """The candidates that are prose (``_align_prose``)."""
    return frozenset(key for key, row in rows.items() if _is_prose(row))


def _align_prose(cosines: dict[int, float], prose_rows: frozenset[int]) -> dict[int, float]:
    """Prose candidates' cosines mapped onto the code candidates' distribution (z-scores);
    ``prose_rows``: ``_prose_rows`` of the candidates."""
    if not SIGNALS["prose_alignment"]:
        return cosines
    prose = prose_rows.intersection(cosines)
    if min(len(prose), len(cosines) - len(prose)) < ALIGN_MIN_PROSE:
        return cosines
    code = np.array([value for key, value in cosines.items() if key not in prose])
    text = np.array([cosines[key] for key in prose])
    scale = code.std() / (text.std() or 1.0)
    shift = code.mean() - text.mean() * scale
    return {key: shift + value * scale if key in prose else value for key, value in cosines.items()}


def _is_prose(row: ChunkRow) -> bool:
    return row.language in DOC_LANGUAGES and category_of(row.path, row.language) == "docs"


def _minmax(scores: dict[int, float], floor_zero: bool = False) -> dict[int, float]:
    """Scale to [0, 1]: by the best score (BM25, whose zero is meaningful) or min to max."""
    if not scores:
        return {}
    high = max(scores.values())
    low = 0.0 if floor_zero else min(scores.values())
    return _spread_over(scores, low, (high - low) or 1.0)


def _spread_over(scores: dict[int, float], low: float, spread: float) -> dict[int, float]:
    """``max(0, (score - low) / spread)`` of each score, in one array operation (this
    runs on every candidate twice or three times a query)."""
    values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    scaled = np.maximum((values - low) / spread, 0.0)
    return dict(zip(scores, scaled.tolist(), strict=True))


def _scaled(scores: dict[int, float], floor: str) -> dict[int, float]:
    if floor == "min" or not scores:
        return _minmax(scores)
    high = max(scores.values())
    low = 0.0 if floor == "zero" else sum(scores.values()) / len(scores)
    return _spread_over(scores, low, (high - low) or 1.0)


def _reciprocal_ranks(scores: dict[int, float], k: int = 60) -> dict[int, float]:
    """1 / (k + rank), scaled so that rank 1 scores 1: comparable with min-max scores."""
    ordered = sorted(scores, key=lambda key: -scores[key])
    return {key: (k + 1) / (k + rank) for rank, key in enumerate(ordered, 1)}


def apply_priors(
    plan: QueryPlan,
    scored: list[Scored],
    definitions: dict[str, list[DefinitionSpan]],
    generated: frozenset[str] = frozenset(),
    translations: frozenset[str] = frozenset(),
) -> None:
    """Each candidate's score times its priors (``PRIORS``); ``generated``: the paths of
    files whose first lines say a tool wrote them; ``translations``: the folders of
    translated docs (``locales.translation_folders``)."""
    names = plan.symbol_names
    exact = plan.exact_names
    terms = tuple(plan.terms)
    newest = _newest_versions(scored, terms, definitions)
    named = _kinds_named(plan.text, definitions) if plan.name_alone else frozenset()
    # a name asked for alone whose every definition in its very case is in test code (a
    # test helper, or source under a test/ folder: rails' `commands/test/`) asks for
    # that definition, wherever it lives
    test_only = plan.name_alone and _defined_only_in_tests(plan.text, definitions)
    asks_releases = _ASKS_RELEASES.search(plan.text) is not None
    # whether a name asked about is defined in the very case asked
    cased = bool(plan.uses_of) and any(
        short_name(span.name) in exact for spans in definitions.values() for span in spans
    )
    asks_data = plan.kind == "identifier" or _ASKS_DATA.search(plan.text) is not None
    # a question in another script or with accents may be asked in a translation's language
    translations = translations if plan.text.isascii() else frozenset()
    # the candidates share files: what a path tells is worked out once per path
    span_paths = _span_paths(names, definitions)
    path_words_named: dict[str, tuple[float, bool]] = {}
    for item in scored:
        row = item.row
        factor = 1.0
        category = chunk_category(row)
        defines = item.defines = _defines(row, names, definitions, span_paths) if names else 0
        if defines and cased and not _exact_case(row, exact, names, definitions, defines):
            # Go's ``responseWriter`` implements ``ResponseWriter``: another name's
            # definition, neither lowered nor raised in a question about uses
            defines = item.defines = 0
        # (a section of documentation titled with the name documents it: no use to lower)
        if defines and plan.uses_of and not (plan.use_kind == "doc" and category == "docs"):
            factor *= PRIORS["used_name_defined"]
            item.defines = 0  # its pieces are not asked for either
            item.defines_used = True
        elif defines:
            factor *= PRIORS["definition"]
            if defines == _HOLDS_START:
                factor *= PRIORS["definition_head"]
            if _exact_case(row, exact, names, definitions, defines):
                factor *= PRIORS["exact_case"]
            if plan.name_alone:
                kind = _kind_defined(row, plan.text, names, definitions)
                factor *= _kind_asked(plan.text, kind, named)
            if defines == _HOLDS_START and _holds_inner(row, names, definitions):
                factor *= PRIORS["inner_definition"]
        if category == "tests":
            if plan.wants_tests:
                factor *= PRIORS["asked_for"]
            elif not (test_only and defines):
                factor *= PRIORS["tests"]
        elif category == "docs":
            factor *= PRIORS["asked_for"] if plan.wants_docs else PRIORS["docs"]
            if translated(row.path, translations):
                factor *= PRIORS["translation"]
        # (a block of `pub use` lines that re-exports the name asked for is its answer)
        if (
            row.kind == "block"
            and not defines
            and plan.use_kind != "import"
            and mostly_imports(row.id, row.text)
        ):
            factor *= PRIORS["imports"]
        if category == "tests" and not plan.wants_tests and SIGNALS["tested_by_path"]:
            name_share, in_folder = 0.0, False  # test_search.py tests search, is not it
        elif plan.uses_of:
            name_share, in_folder = 0.0, False  # the file named for it defines it
        else:
            named_by = path_words_named.get(row.path)
            if named_by is None:
                named_by = path_words_named[row.path] = path_matches(terms, row.path)
            name_share, in_folder = named_by
        if name_share:
            factor *= 1.0 + (PRIORS["file_name"] - 1.0) * name_share
        if in_folder:
            factor *= PRIORS["folder_name"]
        if plan.file_names and any(names_path(row.path, n) for n in plan.file_names):
            factor *= PRIORS["named_file"]
            if named_line_in(row, plan.file_lines) is not None:
                factor *= PRIORS["named_line"]
        version = _version_of(row.path)
        if version is not None and version[1] < newest.get(version[0], ()):
            factor *= PRIORS["superseded"]
        if plan.kind != "identifier" and _declares_only(row):
            factor *= PRIORS["declarations"]
        if not asks_releases and _release_notes(row.path, category):
            factor *= PRIORS["release_notes"]
        if not asks_data and (row.language in DATA_LANGUAGES or _recorded(row.path, row.language)):
            factor *= PRIORS["data_files"]
        place = "generated" if row.path in generated else _place_of(row.path)
        if place in ("generated", "vendored"):
            factor *= PRIORS[place]
        elif place == "auxiliary" and category == "code":
            factor *= PRIORS["auxiliary"]
        item.score *= factor


def named_line_in(row: ChunkRow, file_lines: tuple[tuple[str, int], ...]) -> int | None:
    """The line of a query's ``file:line`` that this chunk holds, if any."""
    for name, line in file_lines:
        if row.start_line <= line <= row.end_line and names_path(row.path, name):
            return line
    return None


#: The best hits looked through for the query's text (a chunk that holds it holds all of
#: the query's words, but long chunks and common words can put it far down).
VERBATIM_HITS = 100
#: Shorter than this, or fewer words with no code punctuation, the query is a name or a
#: phrase common enough to stand in any comment ("error handling"); names have priors
#: of their own.
VERBATIM_MIN_CHARS = 12
VERBATIM_MIN_WORDS = 4
_CODE_MARKS = frozenset("()[]{}=;,'\"<>")


def verbatim_needle(query: str) -> str | None:
    """The query as a chunk would hold it when pasted from one (lower case, spaces as
    one, surrounding quotes off), or None when it is too short or too common a phrase."""
    wanted = " ".join(query.strip().strip("\"'`").lower().split())
    if len(wanted) < VERBATIM_MIN_CHARS:
        return None
    if wanted.count(" ") + 1 < VERBATIM_MIN_WORDS and _CODE_MARKS.isdisjoint(wanted):
        return None
    return wanted


def apply_verbatim(
    plan: QueryPlan,
    scored: list[Scored],
    holding: Callable[[list[int], str, bool], set[int]],
) -> None:
    """Raise the hits of source whose text holds the query as written, in any case
    (``MetaStore.chunks_holding``); of tests and docs only when the query asks for them,
    since tests repeat the messages they check and docs quote example questions."""
    boost = PRIORS["verbatim"]
    wanted = verbatim_needle(plan.text)
    if boost == 1.0 or wanted is None:
        return
    allowed = (
        {"code"}
        | ({"tests"} if plan.wants_tests else set())
        | ({"docs"} if plan.wants_docs else set())
    )
    top = sorted(scored, key=lambda item: -item.score)[:VERBATIM_HITS]
    top = [item for item in top if chunk_category(item.row) in allowed]
    found = holding([item.row.id for item in top], wanted, plan.spans_lines)
    for item in top:
        if item.row.id in found:
            item.score *= boost


#: Only the best files are checked for coverage: the boost at most doubles a score, and
#: files further down do not reach the top 10 with it.
COVERAGE_FILES = 50


def apply_coverage(
    plan: QueryPlan,
    scored: list[Scored],
    terms_of: Callable[[Iterable[str]], dict[str, list[str]]],
) -> None:
    """Raise each hit by the share of the query's terms its file mentions anywhere.

    Chunks are ranked one by one, but a question's words are often spread over a file
    (the class in one chunk, the option it reads in another); the file that mentions
    them all is more likely the one asked about. ``terms_of`` gives each file's sorted
    terms (``MetaStore.file_terms``). A shared prefix counts, as for path words.
    """
    boost = PRIORS["coverage"] - 1.0
    terms = sorted(set(plan.terms))
    if not boost or len(terms) < 2 or not scored:
        return
    best = {path: item.score for path, item in _best_by_file(scored).items()}
    top = sorted(best, key=lambda path: -best[path])[:COVERAGE_FILES]
    words = terms_of(top)
    share = {
        path: sum(1 for term in terms if _mentions(words[path], term)) / len(terms)
        for path in top
        if path in words
    }
    for item in scored:
        item.score *= 1.0 + boost * share.get(item.row.path, 0.0)


def _mentions(words: list[str], term: str) -> bool:
    """Whether sorted ``words`` hold ``term`` or a word sharing its stem (``_same_word``:
    equal, or four or more letters in common, so only words of the term's first four
    letters, a run of the sorted list, are looked at; a shorter term must be equal)."""
    head = term[:4]
    at = bisect_left(words, head)
    if len(term) < 4:
        return at < len(words) and words[at] == term
    while at < len(words) and words[at].startswith(head):
        if _same_word(term, words[at]):
            return True
        at += 1
    return False


#: A folder of one version: ``v3/``, ``v3.1/``, Docusaurus's ``version-9.x/``.
_VERSION_FOLDER = re.compile(r"(^|/)(?:v|version[-_]?)(\d+)(?:\.[\dx]+)*/", re.I)


@lru_cache(maxsize=65_536)
def _version_of(path: str) -> tuple[str, tuple[int, ...]] | None:
    """(the folder holding the version folders, the version) of ``a/src/v3/x.ts``: all
    its numbers, so that ``v1.8/`` is newer than ``v1.6/`` (``x`` counts as 0)."""
    found = _VERSION_FOLDER.search(path)
    if found is None:
        return None
    parts = path[found.start(2) : found.end() - 1].split(".")
    return path[: found.end(1)], tuple(int(part) if part.isdigit() else 0 for part in parts)


def _newest_versions(
    scored: list[Scored], terms: tuple[str, ...], definitions: dict[str, list]
) -> dict[str, tuple[int, ...]]:
    """The newest version folder per parent among the candidates. A parent is left out
    when the query names one of its older versions (v3), or names definitions that only
    its older versions hold (v3's `isEmoji`): that version is what was asked for."""
    newest: dict[str, tuple[int, ...]] = {}
    asked: set[str] = set()
    for item in scored:
        version = _version_of(item.row.path)
        if version is None:
            continue
        parent, number = version
        newest[parent] = max(newest.get(parent, ()), number)
        major = number[0]
        if f"v{major}" in terms or ("version" in terms and str(major) in terms):
            asked.add(parent)
    defined_in = [_version_of(span[0]) for spans in definitions.values() for span in spans]
    if defined_in and all(
        version is not None and version[1] < newest.get(version[0], ()) for version in defined_in
    ):
        asked.update(version[0] for version in defined_in if version is not None)
    return {parent: number for parent, number in newest.items() if parent not in asked}


#: Type-declaration modules of TypeScript and JavaScript (prior ``declarations``); in
#: other languages a types/ folder often holds working code (Go packages, Rust crates).
_DECLARATIONS = re.compile(r"(^|/)(types|typings|@types)/|\.d\.[cm]?ts$")
_DECLARING_LANGUAGES = frozenset({"typescript", "tsx", "javascript"})


@lru_cache(maxsize=65_536)
def _release_notes(path: str, category: str) -> bool:
    """Prose that is a changelog file or lives in a folder of release notes (a script
    named ``history``, or code in a ``changes/`` folder, is code)."""
    if category != "docs":
        return False
    return bool(_RELEASE_NOTES_FILE.search(path) or _RELEASE_NOTES_FOLDER.search(path))


#: Test data recorded to compare against (Jest snapshots, screenshots, golden files,
#: fixtures, Go's testdata/): text that repeats the names of what it records.
_RECORDED_PATH = re.compile(
    r"(^|/)(__snapshots__|snapshots?|screenshots?|golden|testdata|fixtures?)/|\.snap$"
)


@lru_cache(maxsize=65_536)
def _recorded(path: str, language: str) -> bool:
    """Recorded test data: text (not code) in a folder of snapshots or fixtures."""
    return language in ("text", "html") and _RECORDED_PATH.search(path) is not None


@lru_cache(maxsize=65_536)
def _place_of(path: str) -> str:
    """``generated``, ``vendored``, ``auxiliary`` (examples, benchmarks, docs folders)
    or ``""``."""
    if _GENERATED_PATH.search(path):
        return "generated"
    if _VENDORED_PATH.search(path):
        return "vendored"
    return "auxiliary" if _AUXILIARY_PATH.search(path) else ""


#: Chunk kinds that declare a type (prior ``type_name``; a subtype question's name is
#: one) or something called (``function_name``).
TYPE_KINDS = frozenset({"class", "struct", "interface", "enum", "trait", "type", "module"})
_CALLABLE_KINDS = frozenset({"function", "method", "macro"})


def _spans_named(name: str, definitions: dict[str, list[DefinitionSpan]]) -> list[DefinitionSpan]:
    """The definitions of exactly ``name``, case and all (``Index``, not ``index``)."""
    return [s for spans in definitions.values() for s in spans if short_name(s.name) == name]


def _defined_only_in_tests(name: str, definitions: dict[str, list[DefinitionSpan]]) -> bool:
    """Whether the definitions of exactly ``name`` (case and all) are all in test files."""
    paths = [span.path for span in _spans_named(name, definitions)]
    return bool(paths) and all(category_of(path, "") == "tests" for path in paths)


def _kinds_named(name: str, definitions: dict[str, list[DefinitionSpan]]) -> frozenset[str]:
    """Which of "type" and "callable" the definitions of exactly this name are."""
    kinds = set()
    for span in _spans_named(name, definitions):
        if span.kind in TYPE_KINDS:
            kinds.add("type")
        elif span.kind in _CALLABLE_KINDS:
            kinds.add("callable")
    return frozenset(kinds)


def _kind_asked(name: str, kind: str, named: frozenset[str]) -> float:
    """How a definition of exactly the name asked for alone fits the name's case: a
    constant for `DEFAULT_LIMIT`, a type for `Index`, a function or method for `index`
    (1.0 for any other pairing). The case decides only between kinds that share the
    name (``named``: what the definitions of exactly that name are): a constant of
    another case fits when no type or function has the name (Go's
    `ShellCompDirectiveDefault`; zod 4's `export const ZodError = $constructor(..)` stays
    behind `class ZodError`), a lower-case type when no function has it (C's
    `leveldb_options_t`), a capitalised function when no type has it (C#'s and Go's
    `GetProcessId`)."""
    if kind == "constant" and (name.isupper() or not named):
        return PRIORS["constant_name"]
    initial = name.lstrip("_")[:1]  # a private `_Payload` is written as `Payload` is
    if kind in TYPE_KINDS and (initial.isupper() or "callable" not in named):
        return PRIORS["type_name"]
    if kind in _CALLABLE_KINDS and (initial.islower() or "type" not in named):
        return PRIORS["function_name"]
    return 1.0


_TEST_MARKERS = frozenset({"test", "tests", "spec", "specs", "testing"})
#: File names that say nothing: the folder names the module instead (axum/extract/mod.rs).
_GENERIC_STEMS = frozenset({"mod", "index", "init", "__init__", "main", "lib", "default"})


@lru_cache(maxsize=65_536)
def path_words(path: str) -> tuple[frozenset[str], frozenset[str]]:
    """Words of a file's name (or of its folder's, for mod.rs, index.ts, __init__.py),
    and words of the folders above it."""
    parts = path.split("/")
    folders = parts[:-1]
    stem = parts[-1].split(".")[0]
    if stem.lower() in _GENERIC_STEMS and folders:
        stem = folders.pop()
    # In a test file, "test" and "spec" mark the kind of file, not its subject.
    skip = _TEST_MARKERS if category_of(path, "") == "tests" else frozenset()
    name = frozenset(w for w in split_identifier(stem) if len(w) > 1 and w not in skip)
    above = {w for f in folders for w in split_identifier(f) if len(w) > 1 and w not in skip}
    return name, frozenset(above - name)


@lru_cache(maxsize=262_144)
def _same_word(a: str, b: str) -> bool:
    """Equal, or sharing a stem-like prefix: lock/lockfile, float/floating, check/checker."""
    if a == b:
        return True
    shorter = min(len(a), len(b))
    need = max(4, math.ceil(0.75 * shorter))  # shared prefix of 4+ and 3/4 of the shorter
    return need <= shorter and a[:need] == b[:need]


def _by_prefix(words: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Words by their first four letters: ``_same_word`` needs four in common (or equality)."""
    buckets: dict[str, list[str]] = {}
    for word in words:
        buckets.setdefault(word[:4], []).append(word)
    return {prefix: tuple(group) for prefix, group in buckets.items()}


@lru_cache(maxsize=65_536)
def _path_buckets(path: str) -> tuple[frozenset[str], dict, frozenset[str], dict]:
    name, above = path_words(path)
    return name, _by_prefix(name), above, _by_prefix(above)


def _matches_any(term: str, words: frozenset[str], buckets: dict) -> bool:
    if term in words:
        return True
    return len(term) >= 4 and any(_same_word(term, w) for w in buckets.get(term[:4], ()))


@lru_cache(maxsize=65_536)
def path_matches(terms: tuple[str, ...], path: str) -> tuple[float, bool]:
    """The share of the file name's words that query terms name (0.0: none), and whether
    another term names a folder above it (a word already naming the file adds nothing:
    router/route.ex for "routes").

    A share, not a yes or no: "options" names all of ``Options.hs`` but a third of
    ``CommandLineOptions.hs``, a module about something more particular.
    """
    name, name_buckets, above, above_buckets = _path_buckets(path)
    keys = _term_keys(terms)
    naming = []
    if _may_match(keys, name, name_buckets):
        naming = [term for term in terms if _matches_any(term, name, name_buckets)]
    if not naming:
        share = 0.0
    else:
        named = sum(1 for word in name if any(_same_word(term, word) for term in naming))
        share = named / len(name)
    in_folder = _may_match(keys, above, above_buckets) and any(
        _matches_any(term, above, above_buckets) for term in terms if term not in naming
    )
    return share, in_folder


@lru_cache(maxsize=1024)
def _term_keys(terms: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The terms, and the first four letters of those of four or more (``_matches_any``)."""
    return frozenset(terms), frozenset(term[:4] for term in terms if len(term) >= 4)


def _may_match(
    keys: tuple[frozenset[str], frozenset[str]], words: frozenset[str], buckets: dict
) -> bool:
    """False when no term can match ``words`` (``_matches_any``), found by two set
    operations: most candidates' paths share no word with the query."""
    exact, heads = keys
    return not (exact.isdisjoint(words) and heads.isdisjoint(buckets))


#: A line that imports, uses, includes or requires something.
IMPORT_LINE = re.compile(
    r"\s*(import\b|from\s+\S+\s+import\b|use\s|using\s|require\b|#\s*include\b|package\s"
    r"|(const|let|var|local)\s+[\w{},\s]+=\s*require\b|extern\s+crate\b|open\s|alias\s"
    r"|[\w.]+\s*=\s*require\b|\}\s*from\s|\))"
)
#: A line that is a comment in most languages (or a preprocessor include).
COMMENT_LINE = re.compile(r"\s*(#(?!\s*include)|//|/\*|\*|--|;)")


@lru_cache(maxsize=65_536)
def mostly_imports(chunk_id: int, text: str) -> bool:
    """True for a chunk whose code lines are mostly imports (cached by chunk id)."""
    code = [line for line in text.split("\n") if line.strip() and not COMMENT_LINE.match(line)]
    if not code:
        return False
    imports = sum(1 for line in code if IMPORT_LINE.match(line))
    return imports >= 0.6 * len(code)


#: Languages whose function bodies are braced: a callable chunk without a brace outside
#: its comments declares a function without defining it (an interface's or an abstract
#: method, a C prototype). Kotlin and Scala are left out (``fun f() = g()`` has a body
#: without braces), and TypeScript too: its body-less functions are overload signatures
#: beside their implementation (zod's `api.ts`), and its declaration files have a prior
#: of their own.
_BRACED_LANGUAGES = frozenset({"java", "csharp", "c", "cpp", "go", "rust", "swift", "php"})
_DECLARABLE_KINDS = frozenset({"function", "method"})  # (a macro ending in `;` defines)
#: Block comments and line comments (whole lines, or after code: ``void f(); // why``).
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


def _declares_only(row: ChunkRow) -> bool:
    """A chunk that describes a shape the code elsewhere gives (``PRIORS["declarations"]``):
    a TypeScript/JavaScript type-declaration module, or a function declared without a
    body in a language of braced bodies (``SIGNALS["body_less"]``; the two language sets
    share none)."""
    if row.language in _DECLARING_LANGUAGES:
        return _DECLARATIONS.search(row.path) is not None
    return (
        bool(SIGNALS["body_less"])
        and row.kind in _DECLARABLE_KINDS
        and row.language in _BRACED_LANGUAGES
        and body_less(row.text)
    )


@lru_cache(maxsize=65_536)
def body_less(text: str) -> bool:
    """True for a chunk with no braced body outside its comments."""
    code = _COMMENTS.sub("", text).strip()
    return code.endswith(";") and "{" not in code and "=>" not in code


@lru_cache(maxsize=65_536)
def _short_names(symbols: str) -> tuple[str, ...]:
    return tuple(short_name(name) for name in symbols.split())


def _kind_defined(row: ChunkRow, name: str, names: set[str], definitions: dict) -> str:
    """The kind of the definition of exactly ``name`` the chunk is, or holds the first
    line of when another names it (a function's inner function, a small definition
    merged into its neighbour's chunk); "" when there is none."""
    if short_name(row.symbol) == name:
        return row.kind
    spans = _starting_in(row, names, definitions)
    return next((span.kind for span in spans if short_name(span.name) == name), "")


def _exact_case(
    row: ChunkRow, exact: frozenset[str], names: set[str], definitions: dict, defines: int
) -> bool:
    """Whether the chunk defines a name as the query writes it: by its symbols, or, for
    a function's inner function (which does not name the chunk holding it), by the
    definition that starts inside it."""
    if short_name(row.symbol) in exact or not exact.isdisjoint(_short_names(row.symbols)):
        return True
    if defines != _HOLDS_START:
        return False
    return any(short_name(span.name) in exact for span in _starting_in(row, names, definitions))


def _holds_inner(row: ChunkRow, names: set[str], definitions: dict) -> bool:
    """Whether an asked-for definition lies wholly inside the chunk while none of the
    chunk's own symbols is that name: a function's inner function. (A namespace or a
    class cut in pieces starts in a chunk but ends beyond it.)"""
    symbol = bare_name(row.symbol.lower())
    own = {symbol, short_name(symbol), *(n.lower() for n in _short_names(row.symbols))}
    if not own.isdisjoint(names):
        return False
    return any(span.end_line <= row.end_line for span in _starting_in(row, names, definitions))


def _starting_in(row: ChunkRow, names: set[str], definitions: dict) -> Iterator[DefinitionSpan]:
    """The asked-for definitions whose first line is in the chunk."""
    for name in names:
        for span in definitions.get(name, ()):
            if span.path == row.path and row.start_line <= span.start_line <= row.end_line:
                yield span


def asked_definition_in(row: ChunkRow, names: set[str], definitions: dict) -> DefinitionSpan | None:
    """The first definition the query asks for that starts in the chunk, when the chunk
    is named for something else: a small function merged into its neighbour's chunk is
    then shown under its own name. A function's inner function is not one of the
    chunk's symbols: the chunk stays the outer function's. A chunk named for nothing (a
    block of module-level values) is shown under the value asked for."""
    if not row.symbol:
        return min(_starting_in(row, names, definitions), default=None)
    symbol = bare_name(row.symbol.lower())
    asked = names | {short_name(name) for name in names}
    if symbol in asked or short_name(symbol) in asked:
        return None
    own = {name.lower() for name in row.symbols.split()}
    own.update(name.lower() for name in _short_names(row.symbols))
    for span in sorted(_starting_in(row, names, definitions)):
        if span.name.lower() in own or short_name(span.name).lower() in own:
            return span
    return None


_NAMED_FOR = 1  # the chunk is named for the definition (one piece of a long one)
_HOLDS_START = 2  # the chunk holds the definition's first line


def _span_paths(names: set[str], definitions: dict) -> frozenset[str]:
    """The files holding a definition the query asks for (``_defines`` looks no further
    for the others)."""
    return frozenset(span.path for name in names for span in definitions.get(name, ()))


def _defines(row: ChunkRow, names: set[str], definitions: dict, span_paths: frozenset[str]) -> int:
    """Whether the chunk defines a name the query asks for: 0, ``_NAMED_FOR`` or
    ``_HOLDS_START``. An ``impl`` block (Rust's ``impl Router``, Haskell's ``instance``,
    Elixir's ``defimpl``) is named for its type but does not define it: only the methods
    inside it count. ``span_paths``: ``_span_paths`` of the query's definitions."""
    if row.path in span_paths and any(True for _ in _starting_in(row, names, definitions)):
        return _HOLDS_START
    symbol = bare_name(row.symbol.lower())
    # qualified definitions answer for their last part: defmodule Phoenix.Router, Router
    if row.kind != "impl" and (symbol in names or short_name(symbol) in names):
        return _NAMED_FOR
    return 0


def longer_first(plan: QueryPlan, scored: list[Scored]) -> None:
    """For a question in words, each file's scores go to its candidates in the order of
    score x lines ^ ``SIGNALS["longer_first"]``: which chunk answers for a file leans to
    the longer of two that score alike (a 40-line function over a 4-line accessor that
    says the same words). Files rank as before: each keeps its set of scores."""
    power = float(SIGNALS["longer_first"])
    if not power or plan.kind == "identifier":
        return
    files: dict[str, list[Scored]] = {}
    for item in scored:
        files.setdefault(item.row.path, []).append(item)
    for items in files.values():
        if len(items) < 2:
            continue
        values = sorted((item.score for item in items), reverse=True)
        items.sort(key=lambda i: -i.score * (i.row.end_line - i.row.start_line + 1) ** power)
        for item, value in zip(items, values, strict=True):
            item.score = value


def lead_with_heads(scored: list[Scored]) -> None:
    """A definition cut in pieces is answered by the piece with its first line: when a
    later piece scores best, the two trade scores (the file keeps its best score)."""
    if not SIGNALS["lead_with_heads"]:
        return
    groups: dict[tuple[str, str], list[Scored]] = {}
    for item in scored:
        if item.defines:
            groups.setdefault((item.row.path, item.row.symbol), []).append(item)
    for pieces in groups.values():
        best = max(pieces, key=lambda item: item.score)
        if best.defines == _HOLDS_START:
            continue
        heads = [item for item in pieces if item.defines == _HOLDS_START]
        if heads:
            head = max(heads, key=lambda item: item.score)
            head.score, best.score = best.score, head.score


def lead_with_code(plan: QueryPlan, scored: list[Scored]) -> None:
    """For a question in words, a file's best function or method stands before the type
    header that scores best in the file when it comes close (``SIGNALS["lead_with_code"]``):
    a question asks how something is done, and a class's first lines only name it."""
    share = float(SIGNALS["lead_with_code"])
    if not share or plan.kind == "identifier":
        return
    heads = {
        path: head
        for path, head in _best_by_file(scored).items()
        if head.row.kind in TYPE_KINDS and not head.defines
    }
    if not heads:
        return
    code = _best_by_file(
        [s for s in scored if s.row.kind in _CALLABLE_KINDS and s.row.path in heads]
    )
    for path, method in code.items():
        head = heads[path]
        if method.score >= share * head.score:
            head.score, method.score = method.score, head.score


def _best_by_file(scored: list[Scored]) -> dict[str, Scored]:
    """Each file's best-scoring candidate, files in the order they first appear."""
    best: dict[str, Scored] = {}
    for item in scored:
        path = item.row.path
        held = best.get(path)
        if held is None or item.score > held.score:
            best[path] = item
    return best


def diversify(scored: list[Scored], evidence: bool = True) -> None:
    """Lower each hit by the number of better hits of its file (see SIGNALS); with
    ``evidence``, raise a file's best hit by its other hits."""
    keep = 1.0 - float(SIGNALS["same_file_penalty"])
    share = float(SIGNALS["file_evidence"]) if evidence else 0.0
    scored.sort(key=lambda s: -s.score)
    cap = int(SIGNALS["evidence_hits"]) or len(scored)
    decay = float(SIGNALS["evidence_decay"])
    best: dict[str, Scored] = {}
    rest: dict[str, float] = {}
    seen: dict[str, int] = {}
    for item in scored:
        path = item.row.path
        before = seen.get(path, 0)
        seen[path] = before + 1
        if before == 0:
            best[path] = item
        elif before <= cap:
            rest[path] = rest.get(path, 0.0) + item.score * decay ** (before - 1)
        item.score *= keep**before
    if share:
        for path, total in rest.items():
            best[path].score += share * total


def merge_and_cut(
    scored: list[Scored],
    k: int,
    evidence: bool = True,
    first: Callable[[Scored], bool] | None = None,
) -> list[Scored]:
    """Best first; a hit overlapping a better hit of the same file, or next to it in the
    same definition, widens that one.
    The hits ``first`` holds for come before the others (the uses asked for before mere
    mentions: a file's second call must not sink below another file's mention by the
    same-file penalty)."""
    diversify(scored, evidence)
    if first is None:
        scored.sort(key=lambda s: -s.score)
    else:
        scored.sort(key=lambda s: (not first(s), -s.score))
    kept: list[Scored] = []
    spans: dict[str, list[Scored]] = {}
    for item in scored:
        same_file = spans.setdefault(item.row.path, [])
        host = next((s for s in same_file if _joins(item, s)), None)
        if host is not None:
            host.start_line = min(host.start_line, item.start_line)
            host.end_line = max(host.end_line, item.end_line)
            continue
        same_file.append(item)
        kept.append(item)
        if len(kept) >= k:
            break
    return kept


#: Lines between two pieces of one definition that still make them next to each other
#: (the blank line a chunk leaves out).
PIECE_GAP = 2


def _joins(item: Scored, host: Scored) -> bool:
    """Whether a hit is shown as part of a better one of its file: it overlaps it, or it
    is the next or previous piece of the same definition (one function, one result)."""
    if item.start_line <= host.end_line and item.end_line >= host.start_line:
        return True
    return (
        bool(item.row.symbol)
        and (item.row.symbol, item.row.kind) == (host.row.symbol, host.row.kind)
        and item.start_line - 1 - PIECE_GAP <= host.end_line
        and item.end_line + 1 + PIECE_GAP >= host.start_line
    )


#: Other matching chunks of a file named with its first hit (``Result.also``), on the
#: first hits only: the trade of found chunks against reply size is measured in
#: docs/benchmarks.md (eighteenth round).
FURTHER_HITS = 5
POINTED_RESULTS = 2


def further_hits(
    scored: list[Scored],
    kept: list[Scored],
    limit: int = FURTHER_HITS,
    results: int = POINTED_RESULTS,
) -> list[list[Scored]]:
    """For each of the first ``results`` kept hits, the best other hits of its file that
    no kept hit covers (none for the rest).

    ``scored`` is best first, as ``merge_and_cut`` leaves it. Pointers go with the
    file's first kept hit: one file, one list.
    """
    out: list[list[Scored]] = [[] for _ in kept]
    if not limit:
        return out
    taken: dict[str, list[tuple[int, int]]] = {}
    first: dict[str, int] = {}
    for at, item in enumerate(kept):
        taken.setdefault(item.row.path, []).append((item.start_line, item.end_line))
        if at < results:
            first.setdefault(item.row.path, at)
    for item in scored:
        at = first.get(item.row.path)
        if at is None or len(out[at]) >= limit:
            continue
        spans = taken[item.row.path]
        if any(item.start_line <= end and item.end_line >= start for start, end in spans):
            continue
        spans.append((item.start_line, item.end_line))
        out[at].append(item)
    return out
