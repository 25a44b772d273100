"""File extension -> language -> tree-sitter grammar (grammars come installed as wheels)."""

from __future__ import annotations

import importlib
import re
import time
from functools import cache
from pathlib import PurePosixPath

import tree_sitter

from . import config

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".ipp": "cpp",
    ".inl": "cpp",
    ".tpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".sbt": "scala",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".bats": "bash",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".hs": "haskell",
    ".lhs": "haskell",
    ".lua": "lua",
    ".zig": "zig",
    ".ex": "elixir",
    ".exs": "elixir",
    ".rst": "rst",
    ".txt": "text",
    ".adoc": "asciidoc",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".html": "html",
    ".css": "css",
    ".scss": "css",
    ".sql": "sql",
    ".proto": "proto",
    ".xml": "xml",
    ".gradle": "groovy",
    ".cmake": "cmake",
    ".vim": "vim",
    ".el": "elisp",
    ".erl": "erlang",
    ".ml": "ocaml",
    ".dart": "dart",
    ".r": "r",
    ".jl": "julia",
    ".nix": "nix",
    ".tf": "hcl",
    ".vue": "vue",
    ".svelte": "svelte",
    # code that no installed grammar reads: chunked by lines, ranked as code (an unknown
    # extension is text, which ranks as documentation)
    ".rbi": "ruby",
    ".y": "yacc",
    ".yy": "yacc",
    ".l": "lex",
    ".ll": "lex",
    ".pyx": "cython",
    ".pxd": "cython",
    ".pxi": "cython",
    ".pl": "perl",
    ".pm": "perl",
    ".m": "objc",
    ".mm": "objc",
    ".groovy": "groovy",
    ".ps1": "powershell",
    ".psm1": "powershell",
    ".bat": "batch",
    ".cmd": "batch",
    ".fish": "fish",
    ".clj": "clojure",
    ".cljs": "clojure",
    ".cljc": "clojure",
    ".fs": "fsharp",
    ".fsx": "fsharp",
    ".vb": "vb",
    ".asm": "assembly",
    ".s": "assembly",
    ".cu": "cuda",
    ".cuh": "cuda",
    ".glsl": "glsl",
    ".hlsl": "hlsl",
    ".wgsl": "wgsl",
    ".metal": "metal",
    ".sol": "solidity",
    ".tcl": "tcl",
    ".awk": "awk",
    ".nim": "nim",
    ".cr": "crystal",
    ".f90": "fortran",
    ".hx": "haxe",
    ".elm": "elm",
    ".purs": "purescript",
    ".mli": "ocaml",
    ".hrl": "erlang",
    ".coffee": "coffeescript",
    ".erb": "erb",
    ".ejs": "ejs",
    ".haml": "haml",
    ".slim": "slim",
    ".eex": "eex",
    ".heex": "eex",
    ".leex": "eex",
    ".j2": "jinja",
    ".jinja": "jinja",
    ".twig": "twig",
    ".liquid": "liquid",
    ".hbs": "handlebars",
    ".mustache": "mustache",
    ".cshtml": "razor",
    ".razor": "razor",
    ".less": "css",
    ".sass": "css",
    ".styl": "css",
    ".graphql": "graphql",
    ".gql": "graphql",
    ".thrift": "thrift",
    ".bzl": "starlark",
    ".scm": "scheme",
    ".rkt": "racket",
    ".lisp": "lisp",
    ".mk": "make",
}
FILENAMES: dict[str, str] = {
    "Makefile": "make",
    "Dockerfile": "docker",
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "CMakeLists.txt": "cmake",
    "Jenkinsfile": "groovy",
    "Vagrantfile": "ruby",
}

#: language -> (module, attribute returning the grammar)
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "swift": ("tree_sitter_swift", "language"),
    "scala": ("tree_sitter_scala", "language"),
    "bash": ("tree_sitter_bash", "language"),
    "markdown": ("tree_sitter_markdown", "language"),
    "rst": ("tree_sitter_rst", "language"),
    "haskell": ("tree_sitter_haskell", "language"),
    "lua": ("tree_sitter_lua", "language"),
    "zig": ("tree_sitter_zig", "language"),
    "elixir": ("tree_sitter_elixir", "language"),
}

DOC_LANGUAGES = frozenset({"markdown", "rst", "text", "asciidoc"})
#: Data and configuration formats: they hold values, not code.
DATA_LANGUAGES = frozenset({"json", "yaml", "toml", "xml"})


def language_for(path: str) -> str:
    """The language of a repository-relative path; ``text`` when unknown."""
    name = path.rpartition("/")[2]
    if name in FILENAMES:
        return FILENAMES[name]
    # a suffix as PurePosixPath gives it (none for ".bashrc" or "name."), without
    # building a path object: the whole file list is read this way on a search
    dot = name.rfind(".")
    suffix = name[dot:] if 0 < dot < len(name) - 1 else ""
    return EXTENSIONS.get(suffix.lower(), "text")


_CPP_IN_HEADER = re.compile(
    r"^\s*(template\s*<|namespace\s+[\w:]+\s*\{|class\s+\w+\s*(final\s*)?[:{]"
    r"|(public|private|protected)\s*:)",
    re.M,
)


#: ``#!/usr/bin/env bash``, ``#!/bin/sh -e``: the interpreter's name (group 1).
_SHEBANG = re.compile(r"#![ \t]*\S*/(?:env[ \t]+(?:-\S+[ \t]+)*)?([A-Za-z]+)")
#: Interpreters named in a script's first line, and the language they read.
INTERPRETERS = {
    "sh": "bash",
    "bash": "bash",
    "zsh": "bash",
    "ksh": "bash",
    "dash": "bash",
    "python": "python",
    "ruby": "ruby",
    "node": "javascript",
    "lua": "lua",
}


#: A scope written ``name::name`` in code (not in a comment, a directive or a string):
#: C has none, a header of member definitions (spdlog's ``sink-inl.h``) has little else.
_CPP_SCOPE = re.compile(r"(?m)^[^/*#\n\"]*\b[A-Za-z_]\w*::[A-Za-z_~]")


def language_of(path: str, text: str) -> str:
    """``language_for``, refined by content: a ``.h`` header written in C++ (templates,
    namespaces, classes, ``Class::member``) is C++, so its classes and methods are found
    (fmt, abseil, spdlog); a script without an extension (``bin/rbenv``,
    ``libexec/rbenv-init``) is read in the language its ``#!`` line names."""
    language = language_for(path)
    if (
        language == "c"
        and path.endswith(".h")
        and (_CPP_IN_HEADER.search(text) or _CPP_SCOPE.search(text))
    ):
        return "cpp"
    if language == "text" and text.startswith("#!") and not PurePosixPath(path).suffix:
        found = _SHEBANG.match(text)
        if found is not None:
            return INTERPRETERS.get(found.group(1).lower(), language)
    return language


def parse_seconds(size: int) -> float:
    """How long a parse of ``size`` bytes may take before the file becomes line windows."""
    budget = config.PARSE_BASE_SECONDS + size / config.PARSE_BYTES_PER_SECOND
    return min(config.PARSE_SECONDS, budget)


#: Parses this process gave up on (``parse``): each leaks the memory it took in the
#: binding, so a long-lived process prepares such files apart (``indexer``).
_halts = [0]


def halt_count() -> int:
    """How many parses this process has given up on so far."""
    return _halts[0]


def parse(
    parser: tree_sitter.Parser,
    source: bytes,
    seconds: float | None = None,
    old_tree: tree_sitter.Tree | None = None,
) -> tree_sitter.Tree:
    """``parser.parse`` that gives up after ``seconds`` with a ValueError, leaving the
    parser ready for the next file. By default the budget grows with the size, up to
    ``config.PARSE_SECONDS`` (``parse_seconds``). ``old_tree``, edited to match
    ``source``, lets the parser reuse what did not change."""
    deadline = time.monotonic() + (parse_seconds(len(source)) if seconds is None else seconds)

    def read(offset: int, _point: tree_sitter.Point) -> bytes:
        return source[offset : offset + 65_536]

    def halt(*_state: object) -> bool:
        return time.monotonic() > deadline

    try:
        if old_tree is None:
            guarded = parser.parse(read, progress_callback=halt)
        else:
            guarded = parser.parse(read, old_tree, progress_callback=halt)
    except ValueError:
        _halts[0] += 1
        parser.reset()  # a halted parse would otherwise resume on the next call
        raise ValueError("the parse took too long") from None
    # The same tree again from the bytes (no edits: nothing is parsed anew), so that
    # reading a node's text is a slice, not a call back per node (x40 slower).
    return parser.parse(source, old_tree=guarded)


@cache
def parser_for(language: str) -> tree_sitter.Parser | None:
    """A parser for the language, or None when no grammar is installed for it."""
    spec = GRAMMARS.get(language)
    if spec is None:
        return None
    module_name, attribute = spec
    try:
        module = importlib.import_module(module_name)
        return tree_sitter.Parser(tree_sitter.Language(getattr(module, attribute)()))
    except (ImportError, AttributeError, ValueError):
        return None


@cache
def known_languages() -> frozenset[str]:
    """Every language a file can be given (``lang:`` and ``--lang`` take these)."""
    return frozenset({*EXTENSIONS.values(), *FILENAMES.values(), *DOC_LANGUAGES})


def language_named(name: str) -> str | None:
    """The language an extension stands for (``py``: python), or None."""
    return EXTENSIONS.get("." + name.lower().lstrip("."))
