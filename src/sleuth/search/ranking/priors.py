"""Priors: each candidate's score times what the candidate is (``PRIORS``).

A definition of a name asked for, a test, docs, generated or vendored code, data and
recorded fixtures, release notes, an older version folder, a declaration without a
body, a block of imports, a file the query names: each a multiplier, each switched off
in the ablation.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...languages import DATA_LANGUAGES
from ...locales import translated
from ...store.definitions import DefinitionSpan
from ...store.meta import ChunkRow
from ...tokens import names_path, short_name
from ..classify import QueryPlan
from ..filters import chunk_category
from .asked_names import (
    CALLABLE_KINDS,
    HOLDS_START,
    TYPE_KINDS,
    defined_only_in_tests,
    exact_case,
    holds_inner,
    how_defined,
    kind_defined,
    kinds_named,
    paths_defining,
)
from .fusion import Scored
from .path_words import path_matches, with_initialisms
from .signals import PRIORS, SIGNALS

_GENERATED_PATH = re.compile(
    r"(^|/)(generated|gen|autogen|__generated__|migrations)/"
    r"|\.generated\.|_generated\.|\.d\.[cm]?ts$"
)

_VENDORED_PATH = re.compile(r"(^|/)(_?vendored|_vendor|bundled)/")

_AUXILIARY_PATH = re.compile(
    r"(^|/)_*(examples?|samples?|snippets?|benchmarks?|bench|benches|demos?|docs?|docs_src"
    r"|playgrounds?)/"
    # the project's own tooling at its top (generators, release scripts): mordant's
    # `scripts/generate_cellwidth_table.py` is not where a width is measured
    r"|^scripts/",
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

#: A query for examples, demos, benchmarks or scripts, which those folders answer.
_ASKS_EXAMPLES = re.compile(
    r"\b(examples?|samples?|demos?|snippets?|usage|playgrounds?|benchmarks?|bench|scripts?)\b",
    re.I,
)

#: A question about interfaces, protocols or types, which declarations answer.
_ASKS_SHAPES = re.compile(
    r"\b(interfaces?|protocols?|contracts?|abstract\w*|traits?|signatures?|types?)\b", re.I
)

#: Words that name releases or release notes themselves.
_RELEASE_NAMES = r"change_?logs?|change log|releases?|released|release notes|news"

#: A query about releases or changes, which release notes answer.
_ASKS_RELEASES = re.compile(
    rf"\b({_RELEASE_NAMES}|changes|changed|versions?|upgrad\w*|migrat\w*|deprecat\w*)\b",
    re.I,
)

#: A question that names releases or the changelog (not versions, changes, upgrades or
#: deprecations, which code answers as often): it asks for release notes as for docs.
_NAMES_RELEASES = re.compile(rf"\b({_RELEASE_NAMES})\b", re.I)


def apply_priors(
    plan: QueryPlan,
    scored: list[Scored],
    definitions: dict[str, list[DefinitionSpan]],
    generated: frozenset[str] = frozenset(),
    translations: frozenset[str] = frozenset(),
    common: frozenset[str] = frozenset(),
) -> None:
    """Each candidate's score times its priors (``PRIORS``); ``generated``: the paths of
    files whose first lines say a tool wrote them; ``translations``: the folders of
    translated docs (``locales.translation_folders``); ``common``: words in many of the
    tree's file names, which the file-name prior passes over (``common_name_words``)."""
    names = plan.symbol_names
    exact = plan.exact_names
    terms = tuple(plan.terms)
    newest = _newest_versions(scored, terms, definitions)
    # a question in words may name a file by its initials (hmr.ts: hot module replacement)
    spelled_out = plan.kind != "identifier" and SIGNALS["initialisms"]
    path_terms = with_initialisms(terms) if spelled_out else terms
    named = kinds_named(plan.text, definitions) if plan.name_alone else frozenset()
    # a name asked for alone whose every definition in its very case is in test code (a
    # test helper, or source under a test/ folder: rails' `commands/test/`) asks for
    # that definition, wherever it lives
    test_only = plan.name_alone and defined_only_in_tests(plan.text, definitions)
    asks_releases = _ASKS_RELEASES.search(plan.text) is not None
    names_releases = _NAMES_RELEASES.search(plan.text) is not None
    # whether a name asked about is defined in the very case asked
    cased = bool(plan.uses_of) and any(
        short_name(span.name) in exact for spans in definitions.values() for span in spans
    )
    asks_shapes = _ASKS_SHAPES.search(plan.text) is not None
    asks_examples = plan.wants_docs or _ASKS_EXAMPLES.search(plan.text) is not None
    asks_data = plan.kind == "identifier" or _ASKS_DATA.search(plan.text) is not None
    # a question in another script or with accents may be asked in a translation's language
    translations = translations if plan.text.isascii() else frozenset()
    # the candidates share files: what a path tells is worked out once per path
    span_paths = paths_defining(names, definitions)
    path_words_named: dict[str, tuple[float, bool]] = {}
    for item in scored:
        row = item.row
        factor = 1.0
        category = chunk_category(row)
        defines = item.defines = how_defined(row, names, definitions, span_paths) if names else 0
        if defines and cased and not exact_case(row, exact, names, definitions, defines):
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
            if defines == HOLDS_START:
                factor *= PRIORS["definition_head"]
            if exact_case(row, exact, names, definitions, defines):
                factor *= PRIORS["exact_case"]
            if plan.name_alone:
                kind = kind_defined(row, plan.text, names, definitions)
                factor *= _kind_asked(plan.text, kind, named)
            if defines == HOLDS_START and holds_inner(row, names, definitions):
                factor *= PRIORS["inner_definition"]
        if category == "tests":
            if plan.wants_tests:
                factor *= PRIORS["asked_for"]
            elif not (test_only and defines):
                factor *= PRIORS["tests"]
        elif category == "docs":
            # (a question that names releases or the changelog asks for release notes,
            # as one that names docs asks for docs)
            asked = plan.wants_docs or (names_releases and _release_notes(row.path, category))
            factor *= PRIORS["asked_for"] if asked else PRIORS["docs"]
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
                named_by = path_words_named[row.path] = path_matches(path_terms, row.path, common)
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
        if plan.kind != "identifier" and (
            _declares_only(row) or (_interface(row) and not asks_shapes)
        ):
            factor *= PRIORS["declarations"]
        if row.path.endswith(_STUB_SUFFIX):
            factor *= PRIORS["stubs"]
        if not asks_releases and _release_notes(row.path, category):
            factor *= PRIORS["release_notes"]
        if not asks_data and (row.language in DATA_LANGUAGES or _recorded(row.path, row.language)):
            factor *= PRIORS["data_files"]
        place = "generated" if row.path in generated else _place_of(row.path)
        if place in ("generated", "vendored"):
            factor *= PRIORS[place]
        elif place == "auxiliary" and category == "code" and not asks_examples:
            factor *= PRIORS["auxiliary"]
        item.score *= factor


def named_line_in(row: ChunkRow, file_lines: tuple[tuple[str, int], ...]) -> int | None:
    """The line of a query's ``file:line`` that this chunk holds, if any."""
    for name, line in file_lines:
        if row.start_line <= line <= row.end_line and names_path(row.path, name):
            return line
    return None


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


#: Type stubs (prior ``stubs``).
_STUB_SUFFIX = ".pyi"

#: Type-declaration modules of TypeScript and JavaScript (prior ``declarations``); in
#: other languages a types/ folder often holds working code (Go packages, Rust crates).
_DECLARATIONS = re.compile(r"(^|/)(types|typings|@types)/|\.d\.[cm]?ts$")
#: A TypeScript module named for its types: its interfaces and type aliases declare
#: (swr's `_internal/types.ts`); its functions and classes are code (superstruct's
#: `structs/types.ts` builds the structs, zod's `v3/types.ts` is the library).
_TYPES_MODULE = re.compile(r"(^|/)types\.[cm]?tsx?$")
_DECLARATION_KINDS = frozenset({"interface", "type", "block"})

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
    if kind in CALLABLE_KINDS and (initial.islower() or "type" not in named):
        return PRIORS["function_name"]
    return 1.0


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


#: Languages whose interfaces (protocols in Swift) are their own chunk kind.
_INTERFACE_LANGUAGES = frozenset({"csharp", "java", "php", "swift"})


def _interface(row: ChunkRow) -> bool:
    """An interface's chunk (``SIGNALS["interfaces"]``): it declares what others do."""
    return (
        bool(SIGNALS["interfaces"])
        and row.kind == "interface"
        and row.language in _INTERFACE_LANGUAGES
    )


def _declares_only(row: ChunkRow) -> bool:
    """A chunk that describes a shape the code elsewhere gives (``PRIORS["declarations"]``):
    a TypeScript/JavaScript type-declaration module, the interfaces and type aliases of
    a TypeScript ``types.ts``, or a function declared without a body in a language of
    braced bodies (``SIGNALS["body_less"]``; the two language sets share none)."""
    if row.language in _DECLARING_LANGUAGES:
        if row.kind in _DECLARATION_KINDS and _TYPES_MODULE.search(row.path):
            return True
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
