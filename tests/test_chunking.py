"""Chunk boundaries, symbols, kinds and parents for every supported language."""

from __future__ import annotations

import pytest

from sleuth import config
from sleuth.chunking import chunk_text
from sleuth.chunking.parser_copy import parser_source
from sleuth.chunking.treesitter.lines import bracket_nesting
from sleuth.languages import language_for, language_of, parse_seconds, parser_for

# (language, source, expected definitions as (name, kind, parent))
CASES = [
    (
        "python",
        "class Store:\n    def save(self, item):\n        return item\n\n\n"
        "def load(path):\n    return open(path).read()\n",
        {("Store", "class", ""), ("save", "method", "Store"), ("load", "function", "")},
    ),
    (
        "javascript",
        "export function parseConfig(s) {\n  return JSON.parse(s);\n}\n"
        "const handler = async (req) => req;\nclass Server {\n  listen(port) {}\n}\n"
        "res.set =\nres.header = function header(field, val) {\n  return this;\n};\n",
        {
            ("parseConfig", "function", ""),
            ("handler", "function", ""),
            ("Server", "class", ""),
            ("listen", "method", "Server"),
            ("res.set", "function", ""),
        },
    ),
    (
        "typescript",
        "interface Options { retries: number }\n"
        "export class Client {\n  send(req: Request): void {}\n}\n"
        "type Id = string;\nenum Color { Red }\n",
        {
            ("Options", "interface", ""),
            ("Client", "class", ""),
            ("send", "method", "Client"),
            ("Id", "type", ""),
            ("Color", "enum", ""),
        },
    ),
    (
        "javascript",
        "app.set = function set(key, value) {\n  this.settings[key] = value;\n};\n"
        "Router.prototype.route = function route(path) {\n  return path;\n};\n",
        {("app.set", "function", ""), ("Router.route", "function", "")},
    ),
    (
        "typescript",
        "export const ZodObject: Ctor<ZodObject> = make('ZodObject', (inst) => {\n"
        "  inst.shape = {};\n});\nconst limit = 3;\n",
        {("ZodObject", "constant", "")},
    ),
    (
        "tsx",
        "interface Props { label: string }\n"
        "export const Button = (p: Props) => <button>{p.label}</button>;\n",
        {("Props", "interface", ""), ("Button", "function", "")},
    ),
    (
        "go",
        "package main\n\ntype Config struct {\n\tName string\n}\n\n"
        "func (c *Config) Load(path string) error {\n\treturn nil\n}\n\nfunc main() {}\n"
        "func (l *List[T]) Len() int {\n\treturn 0\n}\n",
        {
            ("Config", "type", ""),
            ("Load", "method", "Config"),  # the receiver's type owns it
            ("main", "function", ""),
            ("Len", "method", "List"),
        },
    ),
    (
        "rust",
        "struct Point { x: i32 }\nimpl Point {\n    fn norm(&self) -> i32 { self.x }\n}\n"
        "trait Shape { fn area(&self) -> f64; }\npub fn origin() -> Point { Point { x: 0 } }\n",
        {
            ("Point", "struct", ""),
            ("Point", "impl", ""),
            ("norm", "method", "Point"),
            ("Shape", "trait", ""),
            ("origin", "function", ""),
        },
    ),
    (
        "java",
        "package a;\npublic class JsonReader {\n  public JsonReader() {}\n"
        "  public int peek() { return 1; }\n}\ninterface Source { int read(); }\n",
        {
            ("JsonReader", "class", ""),
            ("JsonReader", "method", "JsonReader"),
            ("peek", "method", "JsonReader"),
            ("Source", "interface", ""),
        },
    ),
    (
        "c",
        "#include <stdio.h>\nstruct point { int x; };\n"
        "static int *make_buffer(int n) {\n  return 0;\n}\n",
        {("point", "struct", ""), ("make_buffer", "function", "")},
    ),
    (
        "cpp",
        "namespace fmt {\nclass buffer {\n public:\n  void push_back(int v) {}\n};\n"
        "int format_to(int x) { return x; }\n}\n",
        {
            ("fmt", "module", ""),
            ("buffer", "class", "fmt"),
            ("push_back", "method", "buffer"),
            ("format_to", "function", "fmt"),
        },
    ),
    (
        "csharp",
        "namespace Json {\n  public class JsonReader {\n"
        "    public bool Read() { return true; }\n  }\n}\n",
        {("Json", "module", ""), ("JsonReader", "class", "Json"), ("Read", "method", "JsonReader")},
    ),
    (
        "ruby",
        "module Rack\n  class Request\n    def params\n      {}\n    end\n  end\nend\n",
        {("Rack", "module", ""), ("Request", "class", "Rack"), ("params", "method", "Request")},
    ),
    (
        "php",
        "<?php\nclass Client {\n  public function send($r) { return $r; }\n}\n"
        "function helper() {}\n",
        {("Client", "class", ""), ("send", "method", "Client"), ("helper", "function", "")},
    ),
    (
        "kotlin",
        "class Route(val path: String) {\n    fun handle(call: String) { }\n}\nfun main() {}\n",
        {("Route", "class", ""), ("handle", "method", "Route"), ("main", "function", "")},
    ),
    (
        "swift",
        "class Constraint {\n    func update() {}\n}\nprotocol Target { }\n",
        {
            ("Constraint", "class", ""),
            ("update", "method", "Constraint"),
            ("Target", "interface", ""),
        },
    ),
    (
        "scala",
        "object Main {\n  def run(x: Int): Int = x\n}\n"
        "trait Codec[A] { def encode(a: A): String }\n",
        {
            ("Main", "class", ""),
            ("run", "method", "Main"),
            ("Codec", "trait", ""),
            ("encode", "method", "Codec"),
        },
    ),
    (
        "bash",
        "nvm_ls() {\n  echo hi\n}\nfunction nvm_use {\n  echo use\n}\n",
        {("nvm_ls", "function", ""), ("nvm_use", "function", "")},
    ),
    (
        "lua",
        "local M = {}\nM.pick = function(opts)\n  return opts\nend\n"
        "local helper = function(x) return x end\nfunction M.close(p) end\n"
        "M.value = 3\nM.handlers = {\n  on_open = function(buf) end,\n  count = 3,\n}\n"
        "T['setup()']['creates side effects'] = function()\n  eq(1, 1)\nend\n"
        "t[key] = function() end\n"
        "return M\n",
        {
            ("M.pick", "function", ""),
            ("helper", "function", ""),
            ("M.close", "function", ""),
            # a table the file defines over lines is a constant, owning its functions
            ("M.handlers", "constant", ""),
            ("on_open", "function", "M.handlers"),
            # a function kept under string keys (mini.test's cases) is named as written
            ("T['setup()']['creates side effects']", "function", ""),
        },
    ),
    (
        "zig",
        "pub const Parser = struct {\n    pub fn parse(self: *Parser) void {}\n};\n"
        "const Mode = enum { strict, lax };\npub fn main() void {}\n",
        {
            ("Parser", "struct", ""),
            ("parse", "method", "Parser"),
            ("Mode", "enum", ""),
            ("main", "function", ""),
        },
    ),
]


def checked_chunks(language: str, source: str) -> tuple[list, list]:
    """``chunk_text``, with what must hold for any source: chunks are the file's own lines,
    and every definition is findable through the chunk that holds its first line."""
    chunks, definitions = chunk_text(language, source)
    lines = source.split("\n")
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    for d in definitions:
        holder = [c for c in chunks if c.start_line <= d.start_line <= c.end_line]
        # a function's own helpers are found by name but do not name its chunk
        assert holder and (d.name in holder[0].symbols) != d.local
    return chunks, definitions


@pytest.mark.parametrize(("language", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_definitions_per_language(language: str, source: str, expected: set) -> None:
    _, definitions = checked_chunks(language, source)
    found = {(d.name, d.kind, d.parent) for d in definitions}
    assert expected <= found, f"missing: {expected - found}"


def test_markdown_sections_by_heading_with_title_path() -> None:
    source = "# Guide\nintro\n\n## Install\npip install\n\n### From source\nclone\n"
    chunks, _ = chunk_text("markdown", source)
    assert [(c.symbol, c.parent, c.kind) for c in chunks] == [
        ("Guide", "", "section"),
        ("Install", "Guide", "section"),
        ("From source", "Guide > Install", "section"),
    ]
    assert chunks[1].start_line == 4 and chunks[1].end_line == 5


#: (language, a document whose headings have nothing of their own above a deeper one,
#: and its chunks as (first line, title, heading path))
HEADINGS_ALONE = [
    (
        "markdown",
        "# Guide\n\n## Subscriptions\n\n### Start one\n\nsend subscribe\n\n"
        "### Stop one\n\nsend stop\n\n## Errors\n\n### Shape\n\n#### Code\n\nan int\n",
        [
            (1, "Start one", "Guide > Subscriptions"),
            (9, "Stop one", "Guide > Subscriptions"),
            (13, "Code", "Guide > Errors > Shape"),
        ],
    ),
    (
        "rst",
        "Guide\n=====\n\nSubscriptions\n-------------\n\nStart one\n~~~~~~~~~\n\n"
        "send subscribe\n\nErrors\n------\n\nShape of an error.\n",
        [(1, "Start one", "Guide > Subscriptions"), (12, "Errors", "Guide")],
    ),
]


@pytest.mark.parametrize(("language", "source", "expected"), HEADINGS_ALONE, ids=["md", "rst"])
def test_a_heading_with_nothing_of_its_own_titles_its_first_subsection(
    language: str, source: str, expected: list[tuple[int, str, str]]
) -> None:
    """``## Subscriptions`` right above ``### Start one``: the heading alone matched
    every question about its part and answered none, so it joins the subsection below
    (headings in a chain too), and no line is lost."""
    chunks, _ = chunk_text(language, source)
    assert [(c.start_line, c.symbol, c.parent) for c in chunks] == expected
    assert chunks[0].text.startswith("# Guide" if language == "markdown" else "Guide")


def test_long_function_is_split_at_statement_boundaries() -> None:
    body = "\n".join(f"    value_{i} = compute({i})" for i in range(300))
    source = f"def huge():\n{body}\n\n\ndef small():\n    return 1\n"
    chunks, definitions = chunk_text("python", source)
    pieces = [c for c in chunks if c.symbol == "huge"]
    assert len(pieces) >= 5
    assert all(c.end_line - c.start_line + 1 <= config.CHUNK_MAX_LINES for c in chunks)
    assert pieces[0].start_line == 1
    covered = sorted(line for c in pieces for line in range(c.start_line, c.end_line + 1))
    assert covered == list(range(1, 302))  # no line lost, none twice
    assert {d.name for d in definitions} == {"huge", "small"}


def test_tiny_siblings_merge_but_keep_every_name() -> None:
    source = "\n".join(f"def f{i}():\n    return {i}\n" for i in range(6))
    chunks, _ = chunk_text("python", source)
    assert len(chunks) < 6
    names = {n for c in chunks for n in c.symbols}
    assert names == {f"f{i}" for i in range(6)}


def test_a_rust_test_function_takes_in_no_code_beside_it() -> None:
    """A unit struct after a ``#[test]`` function (ripgrep's flag definitions) is code:
    merged into the test, it ranked as a test and lent it its definition."""
    source = (
        "#[cfg(test)]\n#[test]\nfn test_search_zip() {\n    let a = 1;\n"
        "    assert_eq!(a, 1);\n}\n\nstruct SmartCase;\n\n"
        'impl Flag for SmartCase {\n    fn name(&self) -> &str {\n        "smart-case"\n'
        "    }\n}\n"
    )
    chunks, _ = chunk_text("rust", source)
    holding = next(c for c in chunks if "struct SmartCase;" in c.text)
    assert "#[test]" not in holding.text
    assert holding.symbol == "SmartCase"


def test_haskell_quickcheck_properties_are_tests_apart_from_the_code() -> None:
    """shellcheck writes each check's QuickCheck properties (``prop_..``) just above or
    below it: merged into the check, the next check's properties made its chunk."""
    source = (
        'prop_checkUuoc1 = verify checkUuoc "cat foo | grep bar"\n'
        'prop_checkUuoc2 = verifyNot checkUuoc "cat * | grep bar"\n'
        "checkUuoc _ (T_Pipeline _ _ (cmd:_:_)) =\n"
        '    checkCommand "cat" (const f) cmd\n'
        "  where\n"
        "    f _ = return ()\n"
        "checkUuoc _ _ = return ()\n\n"
        'prop_checkPipePitfalls3 = verify checkPipePitfalls "ls | grep -v mp3"\n'
        'prop_checkPipePitfalls4 = verifyNot checkPipePitfalls "find . | xargs"\n'
    )
    chunks, _ = chunk_text("haskell", source)
    check = next(c for c in chunks if c.symbol == "checkUuoc")
    assert "prop_" not in check.text
    assert {"prop_checkUuoc1", "prop_checkPipePitfalls3"} <= {c.symbol for c in chunks}


def test_a_ruby_comment_above_a_first_member_opens_its_chunk_when_short() -> None:
    """Ruby's grammar makes the comment above a container's first member the
    container's own: a short one is the member's documentation; a long one (Rails'
    300 lines above ``class Engine``) stays, or the member's head piece is all comment;
    a comment after code on its line is the line's."""
    short = (
        "module Faraday\n  class Response\n"
        "    # RaiseError raises exceptions on client or server error responses.\n"
        "    class RaiseError < Middleware\n"
        + "".join(f"      STATUS_{n} = {n}\n" for n in range(8))
        + "".join(
            f"\n      def check_{n}(env)\n"
            + "".join(f"        raise ClientError if env.status == {n}{m}\n" for m in range(8))
            + "      end\n"
            for n in range(8)
        )
        + "    end\n  end\nend\n"
    )
    chunks, _ = chunk_text("ruby", short)
    raise_error = next(c for c in chunks if c.symbol == "RaiseError")
    assert raise_error.text.lstrip().startswith("# RaiseError raises exceptions")
    long = short.replace(
        "    # RaiseError raises",
        "".join(f"    # line {n} of a long story\n" for n in range(30)) + "    # RaiseError raises",
    )
    chunks, _ = chunk_text("ruby", long)
    raise_error = next(c for c in chunks if c.symbol == "RaiseError")
    assert raise_error.text.lstrip().startswith("class RaiseError")
    nodoc = "module A\n  class B # :nodoc:\n    def c\n      1\n    end\n  end\nend\n"
    _, definitions = chunk_text("ruby", nodoc)
    assert {(d.name, d.start_line) for d in definitions} == {("A", 1), ("B", 2), ("c", 3)}


def test_big_class_opens_into_method_chunks() -> None:
    methods = "\n".join(
        f"    def method_{i}(self):\n" + "\n".join(f"        x = {j}" for j in range(12))
        for i in range(8)
    )
    source = f"class Big:\n    '''Doc.'''\n\n{methods}\n"
    chunks, _ = chunk_text("python", source)
    method_chunks = [c for c in chunks if c.symbol.startswith("method_")]
    assert len(method_chunks) >= 4
    assert all(c.parent == "Big" for c in method_chunks)
    assert all(c.kind == "method" for c in method_chunks)


def test_kotlin_variable_named_where_does_not_hide_the_rest_of_the_file() -> None:
    """``where?.let { ... }`` (a variable named ``where``, as query builders have) can
    read to the Kotlin grammar as a type-constraint clause, and then nothing after it is
    found. The parser's copy is rewritten; the chunks keep the file's own text."""
    source = """class QueryRenderer {
    open fun update(): String = with(QueryBuilder(true)) {
        columns.appendTo(this, prefix = " SET ") { (column, value) ->
        }
        where?.let {
            logger.warn("Tables in ${statement.name} are joined")
        }
    }

    fun render(builder: Builder) {
        builder.add(1)
    }
}

fun <T> ordered(a: T): T
    where T : Comparable<T> {
    return a
}
"""
    chunks, definitions = chunk_text("kotlin", source)
    assert {(d.name, d.kind) for d in definitions} >= {
        ("QueryRenderer", "class"),
        ("update", "method"),
        ("render", "method"),
        ("ordered", "function"),
    }
    text = "\n".join(c.text for c in chunks)
    assert "where?.let" in text and "wherE" not in text


def test_kotlin_when_guards_and_annotated_getters_do_not_hide_the_rest_of_the_file() -> None:
    """Kotlin 2's guard conditions (``is X if cond ->``, over lines inside brackets), an
    annotated getter of an untyped property, an annotated primary constructor on its own
    line and a name ``suspend`` are unknown to the grammar, which then loses everything
    after them. The parser's copy blanks or renames them; chunks keep the text."""
    source = """class AutoInc(val delegate: ColumnType) {
    val identifier
        @OptIn(InternalApi::class)
        get() = quote(name)

    private fun resolve(type: IColumnType): String = when (type) {
        is IntegerColumnType if autoincSeq != null -> "integer"
        !is LongColumnType if (
            type.nullable && seq == null
        ) -> "long"
        else if fallback -> "auto"
        else -> guess(type.sqlType())
    }

    fun render(builder: Builder) {
        val label = when (kind) {
            is Text -> if (short) "t" else "text"
            else -> "other"
        }
        builder.add(label)
    }
}

class Other {
    fun sqlType(): String = "x"
}

@JvmInline
public value class Outcome<out T>
@PublishedApi internal constructor(@PublishedApi internal val holder: Any?) {
    fun acquire(waiter: Waiter) = acquire(waiter, suspend = { cont -> add(cont) })
}

fun release() = 1
"""
    chunks, definitions = checked_chunks("kotlin", source)
    assert {(d.name, d.kind) for d in definitions} >= {
        ("AutoInc", "class"),
        ("resolve", "method"),
        ("render", "method"),
        ("Other", "class"),
        ("sqlType", "method"),
        ("Outcome", "class"),
        ("acquire", "method"),
        ("release", "function"),
    }
    text = "\n".join(c.text for c in chunks)
    assert "is IntegerColumnType if autoincSeq != null ->" in text
    assert "@OptIn(InternalApi::class)" in text


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            "  public class Options\n  private constructor(\n    internal val size: Int,\n  ) {",
            "Options",
        ),
        (
            "  class Token<T : Comparable<T>>\n  internal constructor(data: ByteArray) : Any() {",
            "Token",
        ),
    ],
)
def test_kotlin_nested_class_with_its_constructor_on_the_next_line(
    header: str, expected: str
) -> None:
    """Inside a class body the grammar took the constructor for the outer class's own:
    the nested class was one line and its members the outer class's."""
    source = f"""class JsonReader {{
  fun peek(): Int = 1

{header}
    public fun strings(): List<String> = listOf()

    public companion object {{
      public fun of(vararg strings: String): Int = 1
    }}
  }}

  fun skipValue() = 2
}}
"""
    start = header.count("\n") + 5
    _, definitions = checked_chunks("kotlin", source)
    assert {
        (expected, "class", "JsonReader", 4, start + 5),
        ("strings", "method", expected, start, start),
        ("of", "method", expected, start + 3, start + 3),
        ("skipValue", "method", "JsonReader", start + 7, start + 7),
    } <= {(d.name, d.kind, d.parent, d.start_line, d.end_line) for d in definitions}


def test_unknown_text_uses_overlapping_windows() -> None:
    source = "\n".join(f"line {i}" for i in range(120))
    chunks, _ = chunk_text("text", source)
    assert [c.kind for c in chunks] == ["window"] * len(chunks)
    assert chunks[0].start_line == 1 and chunks[1].start_line < chunks[0].end_line
    assert chunks[-1].end_line == 120
    # a last line break ends the last line; it starts no line of its own
    for text, last in (("a\nb\nc\n", 3), ("one line\n", 1), ("a\nb\n\n", 3)):
        assert chunk_text("text", text)[0][-1].end_line == last, text


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b.py", "python"),
        ("x.tsx", "tsx"),
        ("x.ts", "typescript"),
        ("m.go", "go"),
        ("Makefile", "make"),
        ("README.md", "markdown"),
        ("notes.unknown", "text"),
        ("x.cs", "csharp"),
        ("x.kt", "kotlin"),
        ("x.ex", "elixir"),
        ("x.hs", "haskell"),
    ],
)
def test_language_by_path(path: str, language: str) -> None:
    assert language_for(path) == language


def test_a_module_one_line_value_is_a_definition_without_a_chunk() -> None:
    """``const isFetchSupported = ..``, ``export const safeParse = ..``: names a module
    gives values, found by name; an import (``require``) and a function's own values
    are not definitions."""
    source = (
        "const debug = require('debug')('app');\nconst { join } = require('path');\n"
        "let n = 1;\nexport const safeParse = _safeParse(RealError);\n"
        "function f() {\n  const inner = 3;\n  return inner;\n}\n"
    )
    _, definitions = checked_chunks("javascript", source)
    assert [(d.name, d.kind, d.local) for d in definitions] == [
        ("n", "constant", True),
        ("safeParse", "constant", True),
        ("f", "function", False),
    ]


def test_a_doc_comment_joins_its_definition_across_one_blank_line() -> None:
    filler = "\n".join(f"  step{i}();" for i in range(8))
    source = (
        f"function first() {{\n{filler}\n}}\n\n"
        "/**\n * Assign `setting` to `val`.\n *\n * @param {String} setting\n */\n\n"
        f"app.set = function set(setting, val) {{\n{filler}\n}};\n"
    )
    chunks, _ = chunk_text("javascript", source)
    holder = next(c for c in chunks if c.symbol == "app.set")
    assert holder.text.startswith("/**")
    assert not any(c.kind == "block" for c in chunks)


def test_a_cpp_header_is_read_as_cpp() -> None:
    cpp = "namespace fmt {\ntemplate <typename T> class basic_args {\n public:\n  int n;\n};\n}\n"
    c = "struct Curl_easy {\n  int magic;\n};\nvoid Curl_close(struct Curl_easy *data);\n"
    assert language_of("include/fmt/base.h", cpp) == "cpp"
    assert language_of("lib/urldata.h", c) == "c"
    inline = "SPDLOG_INLINE bool spdlog::sinks::sink::should_log(level msg_level) const {\n}\n"
    assert language_of("include/spdlog/sinks/sink-inl.h", inline) == "cpp"
    assert language_of("lib/x.h", "/* see Foo::bar */\nint x;\n") == "c"  # a comment
    _, definitions = chunk_text(language_of("base.h", cpp), cpp)
    assert ("basic_args", "class") in {(d.name, d.kind) for d in definitions}


def test_a_template_specialisation_is_named_without_its_arguments() -> None:
    source = "template <typename T>\nstruct formatter<T, char> {\n  int parse();\n};\n"
    _, definitions = chunk_text("cpp", source)
    assert "formatter" in {d.name for d in definitions}
    # a template's member defined outside it is named for the class, not the class alone
    member = "template <typename Mutex>\nvoid base_sink<Mutex>::log(const msg &m) {\n  f(m);\n}\n"
    assert [d.name for d in chunk_text("cpp", member)[1]] == ["base_sink::log"]


def test_ruby_operator_methods_keep_their_names() -> None:
    source = "class Version\n  def <=>(other)\n    0\n  end\n\n  def <<(part)\n  end\nend\n"
    _, definitions = checked_chunks("ruby", source)
    assert [d.name for d in definitions] == ["Version", "<=>", "<<"]


def test_a_script_without_an_extension_is_read_in_its_interpreters_language() -> None:
    bash = "#!/usr/bin/env bash\nset -e\n\nrbenv_init() {\n  echo init\n}\n"
    assert language_of("libexec/rbenv-init", bash) == "bash"
    assert language_of("bin/tool", "#!/usr/bin/env -S python3 -u\nprint(1)\n") == "python"
    assert language_of("bin/tool", "#!/usr/bin/perl\nprint 1;\n") == "text"
    assert language_of("notes.txt", bash) == "text"  # an extension says what it is
    _, definitions = chunk_text(language_of("libexec/rbenv-init", bash), bash)
    assert [d.name for d in definitions] == ["rbenv_init"]


def test_zig_test_blocks_are_tests_not_definitions() -> None:
    """``test Parser { }`` exercises Parser; it must not pass for its definition."""
    source = (
        "const Parser = struct {\n    depth: u32,\n};\n\n"
        "test Parser {\n    _ = Parser{ .depth = 0 };\n}\n\n"
        'test "parses nested lists" {\n    _ = Parser{ .depth = 2 };\n}\n'
    )
    chunks, definitions = chunk_text("zig", source)
    assert {(d.name, d.kind) for d in definitions} == {("Parser", "struct")}
    tests = [c for c in chunks if c.kind == "test"]
    assert tests[0].symbol == "test Parser"  # as the source reads
    covered = {line for c in tests for line in range(c.start_line, c.end_line + 1)}
    assert {5, 9} <= covered and not covered & {1, 2, 3}  # tests do not join the struct
    assert all(not c.symbols for c in tests)


def test_an_anonymous_c_type_takes_its_typedef_name() -> None:
    """``typedef struct { .. } parse_buffer;`` is how C code often names a type: a look-up
    of ``parse_buffer`` needs it as a definition. A tagged struct keeps its tag (its
    alias is a type of its own, ``test_c_typedef_names_are_types``), and an untyped
    anonymous struct declaring a variable defines no type."""
    source = (
        "typedef struct {\n    const char *content;\n    size_t length;\n} parse_buffer;\n\n"
        "typedef enum {\n    OK,\n    FAILED\n} status;\n\n"
        "typedef struct hooks {\n    void *(*allocate)(size_t);\n} hooks_t;\n\n"
        "struct {\n    int depth;\n} settings;\n"
    )
    for language in ("c", "cpp"):
        _, definitions = checked_chunks(language, source)
        named = {(d.name, d.kind, d.start_line) for d in definitions if d.name}
        expected = {
            ("parse_buffer", "struct", 1),
            ("status", "enum", 6),
            ("hooks", "struct", 11),
            ("hooks_t", "type", 11),
        }
        assert named == expected


def test_c_typedef_names_are_types() -> None:
    """Every name a ``typedef`` gives is a type found by name in the chunk that holds it:
    a tagged struct's alias (code says ``unz_global_info``, not ``unz_global_info_s``),
    a callback's type, a plain alias, each of several declarators. An alias spelled as
    its tag is the struct itself, once."""
    source = (
        "typedef struct unz_global_info_s {\n    unsigned long number_entry;\n"
        "} unz_global_info;\n\n"
        "typedef void (*xev_timer_cb)(void *userdata, int result);\n"
        "typedef unsigned long uLong;\n"
        "typedef struct node node_t, *node_ptr;\n"
        "typedef struct Foo {\n    int a;\n} Foo;\n"
    )
    for language in ("c", "cpp"):
        _, definitions = checked_chunks(language, source)
        named = {(d.name, d.kind, d.start_line) for d in definitions}
        assert named == {
            ("unz_global_info_s", "struct", 1),
            ("unz_global_info", "type", 1),
            ("xev_timer_cb", "type", 5),
            ("uLong", "type", 6),
            ("node_t", "type", 7),
            ("node_ptr", "type", 7),
            ("Foo", "struct", 8),
        }


def test_a_cpp_using_alias_is_a_type() -> None:
    """``using appender = basic_appender<char>;`` is C++'s typedef: a type found by name,
    a template alias too, and a class's member alias with the class as its parent;
    ``using namespace`` and an alias inside a function's body define nothing."""
    source = (
        "namespace fmt {\n"
        "using appender = basic_appender<char>;\n"
        "template <typename S> using char_t = typename S::char_type;\n"
        "struct K {\n"
        "  using value_type = int;\n"
        "  int f() { using inner = long; return 1; }\n"
        "};\n"
        "using namespace std;\n"
        "}\n"
    )
    _, definitions = checked_chunks("cpp", source)
    assert {(d.name, d.kind, d.start_line, d.parent) for d in definitions} == {
        ("fmt", "module", 1, ""),
        ("appender", "type", 2, "fmt"),
        ("char_t", "type", 3, "fmt"),
        ("K", "struct", 4, "fmt"),
        ("value_type", "type", 5, "K"),
        ("f", "method", 6, "K"),
    }


def test_a_c_constant_defined_by_the_preprocessor_is_found_by_name() -> None:
    """``#define REDIS_OPT_NOAUTOFREE 0x04`` names a constant: a definition without a chunk
    of its own. An include guard has no value and a macro with parameters stands in for
    a function; neither is one."""
    source = (
        "#ifndef CLIENT_H\n#define CLIENT_H\n\n"
        "#define REDIS_OPT_NOAUTOFREE 0x04\n"
        "#define REDIS_READER_MAX_BUF \\\n    (1024 * 16)\n"
        "#define redisIsConnected(c) ((c)->flags & 1)\n\n"
        "int redisConnect(const char *ip);\n\n#endif\n"
    )
    for language in ("c", "cpp"):
        _, definitions = checked_chunks(language, source)
        assert {(d.name, d.kind, d.start_line, d.local) for d in definitions} == {
            ("REDIS_OPT_NOAUTOFREE", "constant", 4, True),
            ("REDIS_READER_MAX_BUF", "constant", 5, True),
        }


def test_haskell_constructors_are_found_in_their_types_chunk() -> None:
    """Code builds and matches on ``Server``, not on ``Command``: each constructor of a
    ``data`` (plain, record, infix, GADT) or ``newtype`` is a definition in its type's
    chunk. A constructor named as its type is the type."""
    source = (
        "module M where\n\n"
        "data Command = Build | Server { host :: String } | Int :+ Int\n  deriving (Show)\n\n"
        "newtype Wrap = Wrap Int\nnewtype Age = MkAge Int\n\n"
        "data G a where\n  GInt :: Int -> G Int\n\n"
        "run :: Command -> IO ()\nrun Build = pure ()\nrun _ = pure ()\n"
    )
    _, definitions = checked_chunks("haskell", source)
    constructors = {(d.name, d.parent) for d in definitions if d.kind == "constant"}
    assert constructors == {
        ("Build", "Command"),
        ("Server", "Command"),
        (":+", "Command"),
        ("MkAge", "Age"),
        ("GInt", "G"),
    }
    assert all(d.local for d in definitions if d.kind == "constant")


def test_elixir_typespecs_are_types() -> None:
    """``@type scheme :: :http | :https`` (and ``@typep``, ``@opaque t(a)``) names a type
    that specs and docs refer to; ``@spec`` and other attributes define nothing."""
    source = (
        "defmodule Plug.Conn do\n"
        "  @type scheme :: :http | :https\n"
        "  @typep secret :: binary\n"
        "  @opaque t(value) :: {value}\n"
        "  @spec port(t(integer)) :: integer\n"
        "  def port(conn), do: elem(conn, 0)\n"
        "  @limit 3\n"
        "end\n"
    )
    _, definitions = checked_chunks("elixir", source)
    assert {(d.name, d.kind, d.start_line) for d in definitions} == {
        ("Plug.Conn", "module", 1),
        ("scheme", "type", 2),
        ("secret", "type", 3),
        ("t", "type", 4),
        ("port", "function", 6),
    }


def test_zig_error_sets_are_types() -> None:
    """``error{ .. }`` and sets merged with ``||`` are types a function's signature names
    (``ReadError!usize``): looked up by name, they are definitions, not an unnamed block.
    A constant computed with ``or`` is no type."""
    source = (
        'const std = @import("std");\n\n'
        "pub const ReadError = error{\n    AccessDenied,\n    IsDir,\n};\n\n"
        "pub const Error = ReadError || std.mem.Allocator.Error;\n\n"
        "const verbose = debug or tracing;\n\n"
        "pub fn read(buf: []u8) ReadError!usize {\n    return buf.len;\n}\n"
    )
    _, definitions = checked_chunks("zig", source)
    assert {(d.name, d.kind, d.start_line) for d in definitions} == {
        ("ReadError", "type", 3),
        ("Error", "type", 8),
        ("read", "function", 12),
    }


def test_a_haskell_definition_keeps_its_signature_and_doc_comment() -> None:
    """The type signature and the haddock above an equation belong to its chunk, also for
    the first one after the imports."""
    body = "".join(f"    step{i} <- tick\n" for i in range(6))
    source = (
        "module M where\n\n"
        + "".join(f"import Data.Module{i}\n" for i in range(6))
        + "\n-- | Write the state to a file\n-- so that a restart resumes it.\n"
        "writeState :: FilePath -> X ()\nwriteState path = do\n" + body + "    return ()\n\n"
        "-- | Read the state back.\n"
        "readState :: FilePath -> X ()\nreadState path = do\n" + body + "    return ()\n"
    )
    chunks, _ = chunk_text("haskell", source)
    by_name = {c.symbol: c for c in chunks if c.symbol}
    assert by_name["writeState"].text.startswith("-- | Write the state to a file")
    assert by_name["readState"].text.startswith("-- | Read the state back.\nreadState ::")


def test_a_haskell_equation_without_arguments_is_a_definition() -> None:
    """Point-free equations and parsers built in a `do` block (`label = do ...`) define
    their names as much as equations with arguments; a pattern binding names nothing."""
    body = "".join(f"  step{i} <- tick\n" for i in range(6))
    source = (
        "module M where\n\n"
        "-- | Escape underscores.\n"
        'escapeText :: Text -> Text\nescapeText = T.replace "_" "x" . T.strip\n\n'
        "-- | A \\label command.\n"
        "label :: PandocMonad m => LP m ()\nlabel = do\n" + body + "  return ()\n\n"
        "(>>?) :: Maybe a -> a -> a\n(>>?) = flip fromMaybe\n\n"
        "(first, second) = (1, 2)\n\n"
        "combine :: [a] -> a\ncombine xs = head xs\n"
    )
    chunks, definitions = checked_chunks("haskell", source)
    assert {(d.name, d.kind) for d in definitions} == {
        ("escapeText", "function"),
        ("label", "function"),
        (">>?", "function"),
        ("combine", "function"),
    }
    by_name = {c.symbol: c for c in chunks if c.symbol}
    assert "-- | Escape underscores.\nescapeText ::" in by_name["escapeText"].text
    assert by_name["label"].text.startswith("-- | A \\label command.\nlabel ::")
    assert "step5 <- tick" in by_name["label"].text


def test_kotlin_multiplatform_constructors_and_soft_keywords_do_not_hide_the_rest() -> None:
    """``internal actual constructor(`` on the line after its class, a variable named
    ``final`` or ``by`` starting a statement, a call ``get(copy)`` after a ``val``, and
    an annotated setter each made the grammar lose the rest of the file (okio, ktor)."""
    source = """actual open class ByteString
internal actual constructor(
    internal actual val data: ByteArray,
) {
    actual fun utf8(): String = data.decodeToString()

    fun copyInto(buffer: Buffer) {
        val copy = ByteArray(3)
        get(copy)
    }

    private var final = false

    fun doFinal() {
        final = true
        by.writeUtf8("by")
    }

    public var bodyType: TypeInfo?
        get() = attributes.getOrNull(Key)

        @InternalAPI set(value) {
            attributes.put(Key, value)
        }

    actual override fun hashCode(): Int = data.hashCode()
}

typealias Rights = Long
"""
    chunks, definitions = checked_chunks("kotlin", source)
    assert {(d.name, d.kind) for d in definitions} >= {
        ("ByteString", "class"),
        ("utf8", "method"),
        ("copyInto", "method"),
        ("doFinal", "method"),
        ("bodyType", "method"),
        ("hashCode", "method"),
        ("Rights", "type"),
    }
    text = "\n".join(c.text for c in chunks)
    assert "internal actual constructor(" in text and "final = true" in text
    assert "        get(copy)" in text


def test_kotlin_properties_with_accessor_bodies_are_definitions() -> None:
    """``val isAbsolute: Boolean get() = ..`` runs code when read, a method in all but
    syntax; a property with a value only, or a bodiless ``private set``, is not."""
    source = (
        "class Path {\n"
        "    val isAbsolute: Boolean\n        get() = commonIsAbsolute()\n"
        "    var size: Int = 0\n        private set\n"
        "    val FileSystem.isFake: Boolean get() = true\n"
        "}\n\n"
        "val isRoot: Boolean\n    get() = false\n"
    )
    _, definitions = checked_chunks("kotlin", source)
    assert {(d.name, d.kind) for d in definitions} == {
        ("Path", "class"),
        ("isAbsolute", "method"),
        ("isFake", "method"),
        ("isRoot", "function"),
    }


def test_a_semicolon_inside_a_shell_expansion_does_not_hide_the_functions_after_it() -> None:
    """``"${out:+${out};}1"`` (a separator added when a value is set) read to the shell
    grammar as the end of a command, and every function after it was lost."""
    source = 'function __bold() {\n\tout="$("__$1")"\n\techo "${out:+${out};}1"\n}\n\n' + "".join(
        f"function __color_{c}() {{\n\techo {c}\n}}\n\n" for c in ("red", "blue")
    )
    chunks, definitions = checked_chunks("bash", source)
    assert [d.name for d in definitions] == ["__bold", "__color_red", "__color_blue"]
    assert '"${out:+${out};}1"' in "\n".join(c.text for c in chunks)


def test_a_haskell_function_defined_under_else_is_found() -> None:
    """With ``{-# LANGUAGE CPP #-}`` a fallback for older compilers sits under ``#else``;
    the grammar read only the first branch, so the fallback's functions were lost."""
    source = (
        "{-# LANGUAGE CPP #-}\nmodule CastFloat (castDoubleToWord64) where\n\n"
        "#if MIN_VERSION_base(4,11,0)\nimport GHC.Float (castDoubleToWord64)\n#else\n"
        "castDoubleToWord64 :: Double -> Word64\ncastDoubleToWord64 = reinterpretCast\n\n"
        "reinterpretCast :: a -> b\nreinterpretCast x = unsafeCoerce x\n#endif\n\n"
        'castFloatTests :: TestTree\ncastFloatTests = testGroup "cast" []\n'
    )
    chunks, definitions = checked_chunks("haskell", source)
    assert {d.name for d in definitions} >= {
        "castDoubleToWord64",
        "reinterpretCast",
        "castFloatTests",
    }
    assert "#else" in "\n".join(c.text for c in chunks)


def test_a_kotlin_top_level_value_spanning_lines_is_a_definition() -> None:
    """`val SSE = createClientPlugin(..) { .. }` is how Kotlin libraries define plugins
    and modules; one-line values and class members are not definitions of their own."""
    body = "".join(f"    val setting{i} = pluginConfig.setting{i}\n" for i in range(8))
    source = (
        "package io.example\n\n"
        "/** Server-sent events for the client. */\n"
        "@OptIn(InternalAPI::class)\n"
        "public val SSE: ClientPlugin<SSEConfig> = createClientPlugin(\n"
        '    name = "SSE",\n'
        ") {\n" + body + "}\n\n"
        'private val LOGGER = KtorSimpleLogger("sse")\n\n'
        "object Defaults {\n    val retries = listOf(\n        1,\n        2,\n    )\n}\n"
    )
    chunks, definitions = checked_chunks("kotlin", source)
    assert {(d.name, d.kind) for d in definitions} == {
        ("SSE", "constant"),
        ("Defaults", "class"),
    }
    sse = next(c for c in chunks if c.symbol == "SSE")
    assert "/** Server-sent events for the client. */\n@OptIn" in sse.text
    assert "setting7" in sse.text


def test_scala_type_aliases_and_package_objects_are_definitions() -> None:
    """`type HttpRoutes[F[_]] = ...` in a package object is where a Scala library defines
    a name its users write everywhere; an abstract type member (`type F[_]`) is not."""
    source = (
        "package org\n\n"
        "package object http4s {\n"
        "  /** Routes: a request to an optional response. */\n"
        "  type HttpRoutes[F[_]] = Http[OptionT[F, *], F]\n"
        "  def helper(x: Int): Int = x\n"
        "}\n\n"
        "trait Effects { type F[_] }\n"
    )
    _, definitions = checked_chunks("scala", source)
    assert {(d.name, d.kind) for d in definitions} == {
        ("http4s", "module"),
        ("HttpRoutes", "type"),
        ("helper", "function"),
        ("Effects", "trait"),
    }


def test_a_python_module_level_name_assigned_over_lines_is_a_definition() -> None:
    """`DEFAULT_SETTINGS = {..}` over several lines defines a table by name, as JavaScript's
    `export const` does; a one-line value is a definition without a chunk of its own;
    `__all__` and a function's locals are not definitions."""
    source = (
        "import os\n\n"
        'DEFAULT_SETTINGS = {\n    "debug": False,\n    "timeout": 30,\n    "retries": 3,\n}\n\n'
        '__all__ = [\n    "a",\n    "b",\n]\nlimit = 1\n\n'
        "def load():\n    table = {\n        1: 2,\n    }\n    return table\n"
    )
    chunks, definitions = checked_chunks("python", source)
    assert {(d.name, d.kind, d.local) for d in definitions} == {
        ("DEFAULT_SETTINGS", "constant", False),
        ("load", "function", False),
        ("limit", "constant", True),  # one line: found by name, no chunk of its own
    }
    assert next(c for c in chunks if c.symbol == "DEFAULT_SETTINGS").end_line == 7


def test_a_ruby_constant_assigned_over_lines_is_a_definition() -> None:
    """`DEFAULTS = { .. }` in a class defines a table by name; a one-line constant is a
    definition without a chunk of its own; a method's locals are not definitions."""
    source = (
        "module Rack\n  class Lint\n"
        "    REQUEST_METHODS = %w[\n      GET POST\n    ].freeze\n"
        "    LIMIT = 1\n"
        "    def call(env)\n      table = {\n        a: 2,\n      }\n    end\n  end\nend\n"
    )
    _, definitions = checked_chunks("ruby", source)
    assert {(d.name, d.kind, d.parent, d.local) for d in definitions} == {
        ("Rack", "module", "", False),
        ("Lint", "class", "Rack", False),
        ("REQUEST_METHODS", "constant", "Lint", False),
        ("LIMIT", "constant", "Lint", True),  # one line: no chunk of its own
        ("call", "method", "Lint", False),
    }


def test_a_go_package_variable_set_over_lines_is_a_definition() -> None:
    """`var defaultPlatforms = []string{..}` defines a table by name; one-line values,
    grouped or not, are definitions without chunks of their own; a function's locals are
    not definitions."""
    source = (
        "package gin\n\nvar DefaultWriter io.Writer = os.Stdout\n\n"
        'var defaultPlatforms = []string{\n\t"linux",\n\t"darwin",\n}\n\n'
        'var (\n\tErrNotFound = errors.New("not found")\n)\n\n'
        "func New() *Engine {\n\tx := []int{\n\t\t1,\n\t}\n\treturn &Engine{x: x}\n}\n"
    )
    chunks, definitions = checked_chunks("go", source)
    assert {(d.name, d.kind, d.local) for d in definitions} == {
        ("defaultPlatforms", "constant", False),
        ("New", "function", False),
        # one-line values are found by name, in the chunk that holds them
        ("DefaultWriter", "constant", True),
        ("ErrNotFound", "constant", True),
    }
    assert [c.symbol for c in chunks] == ["defaultPlatforms", "New"]


def test_a_c_table_initialised_over_lines_is_a_definition() -> None:
    """`struct Curl_cftype Curl_cft_unix = { .. }` defines a vtable by name; a one-line
    variable, and a table inside a function, do not define anything to look up."""
    fields = "".join(f"  handler_{i},\n" for i in range(8))
    source = (
        "#ifdef USE_UNIX_SOCKETS\n"  # a file's code often sits inside one feature test
        "/* The UNIX socket filter. */\n"
        "struct Curl_cftype Curl_cft_unix = {\n" + fields + "};\n#endif\n\n"
        "static int counter = 0;\n\n"
        "int setup(void)\n{\n  static const int order[] = {\n    1,\n    2,\n  };\n"
        "  return order[0];\n}\n"
    )
    chunks, definitions = checked_chunks("c", source)
    assert {(d.name, d.kind) for d in definitions} == {
        ("Curl_cft_unix", "constant"),
        ("setup", "function"),
    }
    table = next(c for c in chunks if c.symbol == "Curl_cft_unix")
    assert "/* The UNIX socket filter. */\nstruct" in table.text and "handler_7" in table.text


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_function_header_written_per_configuration_defines_both_names(language: str) -> None:
    """jq's main: the parser reads the first branch (`umain`); the other branch's header
    names the same function for the other configuration, and a search for `main` must
    find it. A header that only precedes such a group (`wmain`) gains no name."""
    text = (
        "#ifdef WIN32\n"
        "int umain(int argc, char* argv[]);\n"
        "int wmain(int argc, wchar_t* wargv[]) {\n"
        "  return umain(argc, argv);\n"
        "}\n"
        "\n"
        "int umain(int argc, char* argv[]) {\n"
        "#else /*}*/\n"
        "int main(int argc, char* argv[]) {\n"
        "#endif\n"
        "  int x = 0;\n"
        "  return x;\n"
        "}\n"
    )
    _, definitions = chunk_text(language, text)
    spans = {(d.name, d.start_line, d.end_line) for d in definitions if d.kind == "function"}
    assert spans == {("wmain", 3, 5), ("umain", 7, 13), ("main", 7, 13)}


def test_the_tail_of_a_long_definition_does_not_name_the_next_one() -> None:
    """A long function is cut in pieces; its last few lines are too small to stand
    alone and join the next method. That chunk is the next method's, named and signed
    for it (mini-redis' `Set::apply` was shown as `parse_frames`)."""
    body = "".join(
        f"        let x{n} = parse.next()?;\n" for n in range(config.CHUNK_MAX_LINES + 2)
    )
    text = (
        "impl Set {\n"
        "    pub fn parse_frames(parse: &mut Parse) -> Result<Set> {\n"
        + body
        + "        Ok(Set { x0 })\n"
        "    }\n"
        "\n"
        "    pub async fn apply(self, db: &Db) -> Result<()> {\n"
        "        db.set(self.key, self.value);\n"
        "        Ok(())\n"
        "    }\n"
        "}\n"
    )
    chunks, _ = chunk_text("rust", text)
    last = chunks[-1]
    assert "pub async fn apply" in last.text and last.symbol == "apply"
    assert last.signature.startswith("pub async fn apply")
    assert "parse_frames" in last.symbols  # its tail is still found under its name


def test_a_private_member_signs_its_chunk() -> None:
    text = "class Ky {\n  #calculateDelay(count: number): number {\n    return count * 2;\n  }\n}\n"
    _, definitions = chunk_text("typescript", text)
    assert [d.signature for d in definitions if d.name == "#calculateDelay"] == [
        "#calculateDelay(count: number): number {"
    ]


def test_c_conditionals_inside_a_statement_do_not_hide_the_function() -> None:
    """``#ifdef`` in the middle of an expression, a condition or a parameter list leaves
    the grammar without a function; the parser reads the first branch of such a group,
    as one configuration would compile. Groups between statements stay as written."""
    source = (
        "CURLcode ctx_init(struct ctx *octx,\n"
        "                  int flags\n"
        "#ifdef DEBUGBUILD\n"
        "                  , const char *reason\n"
        "#endif\n"
        "                  )\n{\n"
        "  octx->ssl_ctx =\n"
        "#ifdef HAS_PROVIDERS\n"
        "    octx->libctx ? new_ex(octx->libctx) :\n"
        "#endif\n"
        "    new_plain();\n"
        "#ifdef USE_SSL\n"
        "  if(!supported(octx))\n"
        "#endif\n"
        "    if(is_https(octx)) {\n"
        "      return 1;\n"
        "    }\n"
        "  return 0;\n}\n\n"
        "const struct backend *current =\n"
        "#ifdef WITH_MULTI\n  &backend_multi;\n#elif defined(USE_WOLF)\n  &backend_wolf;\n"
        '#else\n#error "no backend"\n#endif\n\n'
        "static const struct backend *available[] = {\n"
        "#ifdef USE_WOLF\n  &backend_wolf,\n#endif\n#ifdef USE_OPENSSL\n  &backend_openssl,\n"
        "#endif\n  NULL\n};\n\n"
        "int cleanup(void)\n{\n#ifdef USE_WOLF\n  wolf_cleanup();\n#else\n  plain_cleanup();\n"
        "#endif\n  return 0;\n}\n\n"
        "static bool match_auth(struct conn *conn)\n{\n  if(wanted) {\n"
        "#ifdef USE_SPNEGO\n"  # each branch opens the block the code after it closes
        "    if((conn->ntlm == NONE)\n       && (conn->negotiate == NONE)) {\n"
        "#else\n    if(conn->ntlm == NONE) {\n#endif\n"
        "      found = conn;\n    }\n    return FALSE;\n  }\n  return TRUE;\n}\n\n"
        "#ifdef _WIN32\nint open_file(const wchar_t *name)\n{\n  return wopen(name);\n}\n"
        "#else\nint open_file(const char *name)\n{\n  return open(name);\n}\n#endif\n"
    )
    chunks, definitions = checked_chunks("c", source)
    assert {(d.name, d.kind) for d in definitions} == {
        ("ctx_init", "function"),
        ("available", "constant"),
        ("cleanup", "function"),
        ("match_auth", "function"),
        ("open_file", "function"),
    }
    assert sum(d.name == "open_file" for d in definitions) == 2  # whole branches: both read
    assert "#ifdef HAS_PROVIDERS" in next(c.text for c in chunks if c.symbol == "ctx_init")


def cleanly_parsed(language: str, source: str) -> tuple[list, list]:
    """``checked_chunks`` of a source whose parser's copy the grammar reads without an
    error."""
    assert not parser_for(language).parse(parser_source(language, source)).root_node.has_error
    return checked_chunks(language, source)


def test_c_values_and_labels_beside_directives_keep_the_parse() -> None:
    """A name alone on its line after `x =` is a value, not a macro to blank
    (`ver_min =` / `#ifdef TLS1_2` / `MBEDTLS_SSL_VERSION_TLS1_2`); a label just before
    `#endif` labels nothing the grammar can see. Both cost curl's `mbedtls.c` its parse."""
    source = (
        "static int set_min_max(struct cfg *cfg)\n{\n  int ver_min =\n"
        "#ifdef MBEDTLS_SSL_PROTO_TLS1_2\n    MBEDTLS_SSL_VERSION_TLS1_2\n#else\n"
        "    MBEDTLS_SSL_VERSION_TLS1_3\n#endif\n    ;\n  return ver_min;\n}\n\n"
        "static int set_ciphers(const char *ciphers)\n{\n#ifndef TLS1_3\n  (void)ciphers;\n"
        "#else\n  if(!ciphers)\n    goto add_ciphers;\nadd_ciphers:\n#endif\n"
        "  return 0;\n}\n\n"
        "FMT_BEGIN_NAMESPACE\nint after(void)\n{\n  return 1;\n}\n"
    )
    assert [d.name for d in cleanly_parsed("c", source)[1]] == [
        "set_min_max",
        "set_ciphers",
        "after",
    ]


def test_cpp_macro_statements_at_file_scope_keep_the_parse() -> None:
    """`ABSL_FLAG(int, retries, 3, "help");` passes a type and literals to a macro at
    file scope: the grammar lost the rest of the file (abseil's flag tests). The call
    is blanked in the parser's copy; what follows is read."""
    source = (
        'ABSL_FLAG(int, retries, 3,\n          "how often to retry");\n'
        'ABSL_FLAG(bool, verbose, {}, "");\n'
        "DEFINE_CONSTRUCTED_FLAG(bool, true, kOneWord);\n\n"
        "namespace {\n\nint Retries() { return absl::GetFlag(FLAGS_retries); }\n\n"
        "TEST(FlagTest, Retries) {\n  EXPECT_EQ(Retries(), 3);\n}\n\n}  // namespace\n"
    )
    chunks, definitions = cleanly_parsed("cpp", source)
    assert [d.name for d in definitions] == ["Retries"]
    assert chunks[0].text.startswith("ABSL_FLAG(int, retries, 3,")


def test_a_parse_that_takes_too_long_falls_back_to_line_windows(monkeypatch) -> None:
    """Some malformed input makes a grammar's error recovery quadratic (80,000 lines of
    `label:` / `#endif` took 40 s): past ``config.PARSE_SECONDS`` the parse gives up, the
    file is cut into line windows, and the parser is ready for the next file."""
    source = "int main(void) {\n  return 0;\n}\n\n" * 40
    monkeypatch.setattr(config, "PARSE_SECONDS", 0.0)
    chunks, definitions = chunk_text("c", source)
    assert {c.kind for c in chunks} == {"window"}
    assert definitions == []
    monkeypatch.setattr(config, "PARSE_SECONDS", 5.0)
    chunks, definitions = chunk_text("c", source)
    assert {c.kind for c in chunks} == {"function"}
    assert {d.name for d in definitions} == {"main"}


def test_brackets_nested_past_the_limit_make_line_windows(monkeypatch) -> None:
    """Queries over a tree thousands of brackets deep cost the square of its depth in
    C, where no deadline reaches (100,000 nested lists in Python: 282 s). Past
    ``config.MAX_BRACKET_NESTING`` the file is line windows before any parse; below it,
    the grammar reads it."""
    source = "def build():\n    return " + "[" * 30 + "1" + "]" * 30 + "\n\n" * 3
    source = source * 3 + "def main():\n    return build()\n"
    assert bracket_nesting(source.encode()) == 30
    monkeypatch.setattr(config, "MAX_BRACKET_NESTING", 29)
    chunks, definitions = chunk_text("python", source)
    assert {c.kind for c in chunks} == {"window"} and definitions == []
    monkeypatch.setattr(config, "MAX_BRACKET_NESTING", 30)
    _, definitions = chunk_text("python", source)
    assert {d.name for d in definitions} == {"build", "main"}


def test_definitions_nested_past_the_limit_make_line_windows(monkeypatch) -> None:
    """tree-sitter finds a node's parent and siblings by a descent from the root, so a
    walk over definitions nested thousands deep is quadratic (20,000 nested Kotlin
    classes: 85 s; 30,000 nested Elixir `if` blocks: 94 s). Past
    ``config.MAX_DEFINITION_NESTING`` (the deepest of 29,000 real files nests 20) the
    file is line windows; and the walk gives up after ``config.CHUNK_WALK_SECONDS``."""
    depth = 6
    source = "".join("    " * i + f"class Level{i}:\n" for i in range(depth))
    source += "    " * depth + "pass\n"
    monkeypatch.setattr(config, "MAX_DEFINITION_NESTING", depth - 1)
    chunks, definitions = chunk_text("python", source)
    assert {c.kind for c in chunks} == {"window"} and definitions == []
    monkeypatch.setattr(config, "MAX_DEFINITION_NESTING", depth)
    _, definitions = chunk_text("python", source)
    assert {d.name for d in definitions} == {f"Level{i}" for i in range(depth)}
    monkeypatch.setattr(config, "CHUNK_WALK_SECONDS", 0.0)
    chunks, definitions = chunk_text("python", source)
    assert {c.kind for c in chunks} == {"window"} and definitions == []


def test_a_parse_that_finds_no_structure_makes_line_windows(monkeypatch) -> None:
    """40,000 `template<` in a row: C++'s error recovery leaves them as bare tokens at
    the top level, and each query over them then took 11 s. Past
    ``config.MAX_BARE_TOP_LEVEL`` such pieces the file is line windows; a file whose
    top-level pieces have structure of their own is read as ever."""
    source = (
        "int keep(void) { return 1; }\n" + "template<" * 100 + ">" * 100 + "\n"
        "int after(void) { return 2; }\n"
    )
    monkeypatch.setattr(config, "MAX_BARE_TOP_LEVEL", 50)
    chunks, definitions = chunk_text("cpp", source)
    assert {c.kind for c in chunks} == {"window"} and definitions == []
    structured = "".join(f"int f{i}(void) {{ return {i}; }}\n" for i in range(60))
    _, definitions = chunk_text("cpp", structured + "template<\n")
    assert len(definitions) == 60
    monkeypatch.setattr(config, "MAX_BARE_TOP_LEVEL", 20_000)
    _, definitions = chunk_text("cpp", source)
    assert {d.name for d in definitions} == {"keep", "after"}


def test_a_small_file_gets_a_small_parse_budget() -> None:
    """Error recovery can take memory as fast as time (1.8 kB of broken Kotlin grew to
    930 MB in 5 s): a file's budget grows with its size, so this one gives up within a
    fraction of a second and becomes line windows."""
    broken = (
        "{t\ns{d(){h(){{}}}}\n  " + "\x00" * 7 + "(e fun same(other: Any?): Boolean {\n"
        "        return data.matches" + "\ufffd" * 98 + "(other.data)\n    }\n"
        "    override fun code(): Int = data.hash()\n\n    /** First [Stream] note. */\n"
        "    fun hex(): String = data.toHex()\n\n    /** Second note. */J    private fun "
        'Array.toHex(): String = joinToString(separator = "") { b -> "%02x".format(b) }\n}\n'
    )
    assert parse_seconds(len(broken.encode())) < 0.3
    assert parse_seconds(config.MAX_FILE_BYTES) == config.PARSE_SECONDS
    chunks, definitions = chunk_text("kotlin", broken)
    assert {c.kind for c in chunks} == {"window"} and definitions == []
    # the parser is ready for the next file
    _, definitions = chunk_text("kotlin", "fun greet(name: String) = println(name)\n")
    assert [d.name for d in definitions] == ["greet"]


def test_swift_computed_properties_and_keyword_members_are_definitions() -> None:
    """`var snp: ConstraintViewDSL { .. }` runs code when read (SnapKit's entry point);
    `subscript`, `deinit` and `typealias` define members too; `var x = 3` stores a value."""
    source = (
        "public extension ConstraintView {\n"
        "    var snp: ConstraintViewDSL {\n        return ConstraintViewDSL(view: self)\n    }\n"
        "}\n\n"
        "public class Maker {\n"
        "    var count = 3\n"
        "    public typealias Closure = (Maker) -> Void\n"
        "    subscript(index: Int) -> Int {\n        return index\n    }\n"
        "    deinit {\n        print(count)\n    }\n"
        "}\n"
    )
    _, definitions = checked_chunks("swift", source)
    assert {(d.name, d.kind, d.parent) for d in definitions} == {
        ("ConstraintView", "impl", ""),  # an extension: named for a type it adds to
        ("snp", "method", "ConstraintView"),
        ("Maker", "class", ""),
        ("Closure", "type", "Maker"),
        ("subscript", "method", "Maker"),
        ("deinit", "method", "Maker"),
    }


def test_a_rust_type_declared_inside_a_macro_call_is_a_definition() -> None:
    """`pin_project! { pub struct RouteFuture<E> { .. } }` declares RouteFuture; a macro
    call that declares no type (`impl_service!(T1)`, `vec![..]` in a body) does not."""
    fields = "".join(f"        field_{i}: u32,\n" for i in range(6))
    source = (
        "pin_project! {\n    /// Response future for a route.\n"
        "    pub struct RouteFuture<E> {\n" + fields + "    }\n}\n\n"
        "impl_service!(T1, T2);\n\n"
        "fn build() -> Vec<u32> {\n    vec![1, 2]\n}\n"
    )
    chunks, definitions = checked_chunks("rust", source)
    assert {(d.name, d.kind) for d in definitions} == {
        ("RouteFuture", "struct"),
        ("build", "function"),
    }
    assert "field_5" in next(c for c in chunks if c.symbol == "RouteFuture").text


def test_a_rust_trait_s_required_methods_are_definitions_of_the_trait() -> None:
    """`fn serialize_char(..);` in a trait declares a method every implementation
    provides: it is found by name, as the trait's, and keeps the trait in one chunk."""
    source = (
        "/// A data format that can serialize any data structure.\n"
        "pub trait Serializer: Sized {\n    type Ok;\n"
        "    /// Serialize a `char` value.\n"
        "    fn serialize_char(self, v: char) -> Result<Self::Ok, Self::Error>;\n"
        "    fn serialize_str(self, v: &str) -> Result<Self::Ok, Self::Error>;\n"
        "    fn collect_str<T>(self, value: &T) -> Result<Self::Ok, Self::Error> {\n"
        "        self.serialize_str(&value.to_string())\n    }\n}\n\n"
        'extern "C" {\n    fn abs(input: i32) -> i32;\n}\n'
    )
    chunks, definitions = checked_chunks("rust", source)
    assert {(d.name, d.kind, d.parent, d.local) for d in definitions} == {
        ("Serializer", "trait", "", False),
        ("serialize_char", "method", "Serializer", True),
        ("serialize_str", "method", "Serializer", True),
        ("collect_str", "method", "Serializer", False),
    }
    assert [c.symbol for c in chunks] == ["Serializer"]
    values = "pub const MAX_SIZE: usize = 1024;\nimpl Foo {\n    const ZERO: u8 = 0;\n"
    values += "    fn f() -> u8 {\n        const INNER: u8 = 1;\n        INNER\n    }\n}\n"
    assert {(d.name, d.parent, d.local) for d in checked_chunks("rust", values)[1]} == {
        ("MAX_SIZE", "", True),  # consts: found by name, in the chunk that holds them
        ("Foo", "", False),
        ("ZERO", "Foo", True),
        ("f", "Foo", False),
    }


def test_a_rust_constant_written_over_lines_has_its_own_chunk() -> None:
    """ripgrep's ``const FLAGS: &[&dyn Flag] = &[..]``: a table over many lines is a
    constant with a chunk named for it (its doc comment too), as Go's and Python's are;
    without one it was cut into unnamed windows. ``const _: () = { .. }`` names nothing."""
    source = (
        "/// Every flag, in the order the help shows them.\n"
        "pub(super) const FLAGS: &[&str] = &[\n"
        '    "--regexp",\n    "--file",\n    "--count",\n    "--context",\n'
        '    "--glob",\n    "--ignore-case",\n];\n\n'
        "static DEFAULT: LazyLock<Config> = LazyLock::new(|| {\n"
        "    let config = Config::default();\n    config.with_color(true)\n});\n\n"
        "const _: () = {\n    assert!(FLAGS.len() > 0);\n};\n\n"
        "const LIMIT: usize = 10;\n"
    )
    chunks, definitions = checked_chunks("rust", source)
    assert (chunks[0].start_line, chunks[0].symbol, chunks[0].kind) == (1, "FLAGS", "constant")
    assert {(d.name, d.local) for d in definitions if d.name != "_"} == {
        ("FLAGS", False),
        ("DEFAULT", False),  # (small: it joins the chunk before it, and names it too)
        ("LIMIT", True),  # one line: found by name in the chunk holding it
    }
    assert all(c.symbol != "_" for c in chunks)


def test_public_re_exports_are_definitions_without_chunks() -> None:
    """`pub use dep::{A, B as C}` (Rust) and `export { A, B as C } from './x'` (TS) name
    what a module re-exports: definitions without chunks, found by name. A private
    `use` is an import, and `*` or `self` name nothing new."""
    rust = (
        "use std::collections::HashMap;\n\n"
        "pub use axum_core::extract::{\n    FromRef, FromRequest as Extract, self,\n};\n"
        "pub(crate) use crate::json::Json;\npub use crate::prelude::*;\n\n"
        "pub fn route() -> u8 {\n    use inner::Hidden;\n    0\n}\n"
    )
    chunks, definitions = checked_chunks("rust", rust)
    assert {(d.name, d.kind, d.start_line, d.local) for d in definitions} == {
        ("FromRef", "reexport", 4, True),
        ("Extract", "reexport", 4, True),
        ("Json", "reexport", 6, True),
        ("route", "function", 9, False),
    }
    assert all("FromRef" not in c.symbols for c in chunks)
    typescript = (
        "export { expect, vi as mock } from '@vitest/expect'\n"
        "export * from './runner'\nexport * as ns from './ns'\n"
        "export function run(): void {}\n"
    )
    assert {(d.name, d.kind) for d in checked_chunks("typescript", typescript)[1]} == {
        ("expect", "reexport"),
        ("mock", "reexport"),
        ("run", "function"),
    }


def test_rust_items_inside_a_configuration_macro_are_definitions() -> None:
    """tokio gates items behind macros of its own (`cfg_rt! { pub fn spawn .. }`), whose
    bodies the grammar keeps as tokens; the wrapper is read past. `cfg_if!` has a syntax
    of its own and is left alone."""
    source = (
        "cfg_io_std! {\n    /// A handle to the standard output.\n"
        "    pub fn stdout() -> Stdout {\n        let open = '{';\n        let close = \"}\";\n"
        "        Stdout { inner: 1 }\n    }\n}\n\n"
        "impl Handle {\n    cfg_rt! {\n"
        "        pub(crate) fn spawn<'a>(&'a self) -> u8 {\n            1\n        }\n    }\n}\n\n"
        "cfg_if! {\n    if #[cfg(unix)] {\n        fn unix_only() {}\n    }\n}\n"
    )
    chunks, definitions = checked_chunks("rust", source)
    assert {(d.name, d.kind, d.parent) for d in definitions} == {
        ("stdout", "function", ""),
        ("Handle", "impl", ""),
        ("spawn", "method", "Handle"),
    }
    assert next(c for c in chunks if c.symbol == "stdout").text.startswith("cfg_io_std! {")
    # a wrapper with arms of its own keeps its first arm's items, and the rest of the
    # file is still read
    arms = (
        "impl Batch {\n    cfg_metrics_variant! {\n"
        "        stable: {\n            fn park(&mut self) {}\n        },\n"
        "        unstable: {\n            fn park(&mut self) {\n                self.n += 1;\n"
        "            }\n        }\n    }\n\n    pub fn submit(&self) {}\n}\n\n"
        "cfg_unstable! {\n    macro_rules! trace_op {\n        () => {};\n    }\n}\n"
        "fn now() -> u64 {\n    0\n}\n"
    )
    assert [(d.name, d.kind) for d in checked_chunks("rust", arms)[1]] == [
        ("Batch", "impl"),
        ("park", "method"),
        ("submit", "method"),
        ("trace_op", "macro"),
        ("now", "function"),
    ]


def test_a_rust_impl_for_a_reference_is_named_for_the_type() -> None:
    """`impl IntoIterator for &'a RawPathParams` implements for RawPathParams: its
    methods are found as `RawPathParams.into_iter`, not under `&'a RawPathParams`."""
    source = (
        "pub struct RawPathParams {\n    v: Vec<u32>,\n}\n\n"
        "impl<'a> IntoIterator for &'a RawPathParams {\n"
        "    type Item = &'a u32;\n"
        "    fn into_iter(self) -> Self::IntoIter {\n        self.v.iter()\n    }\n}\n\n"
        "impl<T> Read for &mut Wrapper<T> {\n"
        "    fn read(&mut self, buf: &mut [u8]) -> usize {\n        0\n    }\n}\n"
    )
    _, definitions = checked_chunks("rust", source)
    found = {(d.name, d.kind, d.parent) for d in definitions}
    assert ("RawPathParams", "impl", "") in found
    assert ("into_iter", "method", "RawPathParams") in found
    assert ("read", "method", "Wrapper") in found


def test_csharp_properties_indexers_and_operators_are_definitions() -> None:
    """A property's accessors are methods in all but syntax, and its doc comment says what
    it is for; indexers and operators are named as code uses them."""
    source = (
        "namespace N {\npublic class Settings {\n"
        "    /// <summary>How reference loops are handled.</summary>\n"
        "    public ReferenceLoopHandling ReferenceLoopHandling\n    {\n"
        "        get => _loops ?? DefaultLoops;\n        set => _loops = value;\n    }\n"
        "    public object this[int index] { get { return null; } }\n"
        "    public static Settings operator +(Settings a, Settings b) { return a; }\n"
        "    public static implicit operator int(Settings s) { return 1; }\n"
        "    public delegate void Handler(object sender);\n"
        "}\n}\n"
    )
    _, definitions = checked_chunks("csharp", source)
    members = {(d.name, d.kind) for d in definitions if d.parent == "Settings"}
    assert members == {
        ("ReferenceLoopHandling", "method"),
        ("this", "method"),
        ("operator+", "method"),
        ("operator int", "method"),
        ("Handler", "type"),
    }


def test_php_class_constants_are_definitions() -> None:
    """`RequestOptions::ALLOW_REDIRECTS` under its docblock is what a reader looks up."""
    doc = "".join(f"     * option detail {i}\n" for i in range(8))
    source = (
        "<?php\nfinal class RequestOptions\n{\n"
        "    /**\n     * allow_redirects: (bool|array) Controls redirect behavior.\n"
        + doc
        + "     */\n"
        "    public const ALLOW_REDIRECTS = 'allow_redirects';\n"
        "    const CONNECT_TIMEOUT = 'connect_timeout', TIMEOUT = 'timeout';\n"
        "}\n"
    )
    chunks, definitions = checked_chunks("php", source)
    assert {(d.name, d.kind) for d in definitions} == {
        ("RequestOptions", "class"),
        ("ALLOW_REDIRECTS", "constant"),
        ("CONNECT_TIMEOUT", "constant"),
    }
    allow = next(c for c in chunks if "ALLOW_REDIRECTS" in c.symbols)
    assert "allow_redirects: (bool|array) Controls redirect behavior." in allow.text


def test_doc_comments_and_attributes_open_the_definition_they_describe() -> None:
    """Rust's `///` and `#[derive]`, Elixir's `@doc` and `@spec` belong to the next
    definition's chunk (they used to stay in the chunk before it); `@moduledoc` does not."""
    body = "".join(f"    let x{i} = {i};\n" for i in range(6))
    rust = (
        "".join(f"use std::module{i};\n" for i in range(6))
        + "\n/// Adds one to a number.\n#[inline]\n#[must_use]\n"
        "pub fn add_one(a: i32) -> i32 {\n" + body + "    a + 1\n}\n"
    )
    chunks, _ = chunk_text("rust", rust)
    add_one = next(c for c in chunks if c.symbol == "add_one")
    assert add_one.text.startswith("/// Adds one to a number.\n#[inline]")
    filler = "".join(f"  def helper{i}(x), do: x + {i}\n\n" for i in range(30))
    elixir = (
        'defmodule Plug.Conn do\n  @moduledoc "The connection."\n\n' + filler + '  @doc """\n'
        "  Assigns multiple values to keys in the connection.\n\n"
        "  Equivalent to calling assign/3 for each key.\n"
        '  """\n'
        "  @spec merge_assigns(t, Enumerable.t()) :: t\n"
        "  def merge_assigns(conn, new) do\n"
        "    %{conn | assigns: Enum.into(new, conn.assigns)}\n"
        "  end\nend\n"
    )
    chunks, _ = chunk_text("elixir", elixir)
    merge = next(c for c in chunks if "def merge_assigns" in c.text)
    assert '  @doc """\n  Assigns multiple values' in merge.text
    assert "@spec merge_assigns" in merge.text
    steps = "".join(f"    step{i}(conn)\n" for i in range(8))
    right_after = (
        "defmodule Plug.Router do\n"
        + "".join(f"  alias Plug.Part{i}\n" for i in range(5))
        + '  @moduledoc "Routes requests."\n'
        + "  def call(conn) do\n"
        + steps
        + "  end\n\n"
        + filler
        + "end\n"
    )
    chunks, _ = chunk_text("elixir", right_after)
    call = next(c for c in chunks if "def call" in c.text)
    assert call.symbol == "call" and "@moduledoc" not in call.text


def test_a_lua_function_under_a_computed_key_has_no_name() -> None:
    """`map[function(v) .. end] = function ..` keys a table by a value: the key's code
    is no name to search by (it was: `map[function(v)returnv==falseend]`)."""
    source = (
        "local map = {}\nmap[function(v)\n  return v == false\nend] = function(_, v)\n"
        "  return v\nend\nmap.plain = function(v) return v end\nreturn map\n"
    )
    _, definitions = checked_chunks("lua", source)
    assert [d.name for d in definitions] == ["map.plain"]


def test_javascript_and_typescript_tests_are_named_for_their_description() -> None:
    """`test("..", fn)` and `it("..", fn)` (Jest, Vitest, Mocha, node:test) are test
    chunks named for what they test, as Zig's `test ".."` blocks are; other calls with a
    string and a function stay code, and a test defines no name."""
    source = (
        'import { expect, test } from "vitest";\n\n'
        'test("parses ISO dates", () => {\n  const d = parse("2024-01-01");\n'
        "  expect(d.year).toBe(2024);\n  expect(d.month).toBe(1);\n});\n\n"
        "it.skip('rejects empty input', async () => {\n"
        "  await expect(parse('')).rejects.toThrow();\n  expect(calls).toBe(0);\n"
        "  expect(errors).toHaveLength(1);\n});\n\n"
        'register("plugin", () => {\n  return setup();\n});\n'
    )
    for language in ("typescript", "javascript"):
        chunks, definitions = checked_chunks(language, source)
        tests = [(c.symbol, c.start_line) for c in chunks if c.kind == "test"]
        assert tests == [('test "parses ISO dates"', 3), ("test 'rejects empty input'", 9)]
        assert all(not c.symbols for c in chunks if c.kind == "test")
        assert not definitions


def test_javascript_suites_hold_their_tests() -> None:
    """`describe("..", fn)` is a suite: its own lines (set-up) are a test chunk named
    for it, and the tests inside a long suite are chunks of their own that name it as
    their parent, as a long class's methods name the class; suites nest."""
    tests = "".join(
        f"  it('matches route {i}', () => {{\n"
        + "".join(f"    expect(router.match('/r{i}/{j}')).toBe({j});\n" for j in range(8))
        + "  });\n\n"
        for i in range(6)
    )
    source = (
        'import { describe, it, beforeEach } from "vitest";\n\n'
        "describe('Router', () => {\n  let router;\n  beforeEach(() => {\n"
        "    router = new Router();\n    router.use(logger);\n    router.use(auth);\n  });\n\n"
        + tests
        + "  describe.each([1, 2])('with %i params', (n) => {\n    test('binds them', () => {\n"
        + "".join(f"      expect(bind(n, {j})).toBe(true);\n" for j in range(6))
        + "    });\n  });\n});\n"
    )
    for language in ("typescript", "javascript"):
        chunks, definitions = checked_chunks(language, source)
        named = [(c.symbol, c.parent, c.start_line) for c in chunks if c.kind == "test"]
        assert named[0] == ("describe 'Router'", "", 3)
        assert named[1] == ("test 'matches route 0'", "describe 'Router'", 11)
        assert len([n for n in named if n[0].startswith("test 'matches route")]) == 6
        assert named[-1] == ("describe 'with %i params'", "describe 'Router'", 77)
        assert "beforeEach" in chunks[1].text
        assert all(not c.symbols for c in chunks) and not definitions


def _long_block(indent: str, line: str, count: int = 24) -> str:
    return "".join(f"{indent}{line.format(k=k)}\n" for k in range(count))


def test_ruby_lua_and_elixir_tests_are_named_and_cut_one_by_one() -> None:
    """RSpec, minitest, busted and ExUnit tests are blocks passed to a call: each is a
    test named as it reads (``it "passes"``), inside its suite, not a nameless block;
    an ordinary call with a block (``each do``) is none of these."""
    ruby = (
        "describe Rack::Lint do\n"
        + "".join(
            f'  it "checks case {i}" do\n'
            + _long_block("    ", "x{k} = lint(" + str(i) + ")")
            + "  end\n\n"
            for i in range(3)
        )
        + '  context "with a body" do\n    it "reads it" do\n'
        + _long_block("      ", "body{k} = read")
        + "    end\n  end\n\n"
        + "  [1, 2].each do |n|\n"
        + _long_block("    ", "y{k} = n")
        + "  end\nend\n\n"
        + "class UserTest < ActiveSupport::TestCase\n"
        + "".join(
            f'  test "{verb} a user" do\n'
            + _long_block("    ", "assert " + verb + "({k})", 60)
            + "  end\n\n"
            for verb in ("creates", "deletes")
        )
        + "end\n"
    )
    chunks, definitions = checked_chunks("ruby", ruby)
    tests = [(c.symbol, c.parent) for c in chunks if c.kind == "test"]
    assert tests[0] == ("describe Rack::Lint", "")
    assert ('it "checks case 1"', "describe Rack::Lint") in tests
    assert ('context "with a body"', "describe Rack::Lint") in tests
    assert ('test "deletes a user"', "UserTest") in tests
    assert not any(symbol.startswith("each") for symbol, _ in tests)
    assert {d.name for d in definitions} == {"UserTest"}  # tests define nothing
    lua = (
        'describe("config", function()\n'
        + "".join(
            f'  it("applies option {i}", function()\n'
            + _long_block("    ", "local v{k} = apply(" + str(i) + ")")
            + "  end)\n\n"
            for i in range(3)
        )
        + "end)\n"
    )
    chunks, _ = checked_chunks("lua", lua)
    lua_tests = [(c.symbol, c.parent) for c in chunks if c.kind == "test"]
    assert {(f'it "applies option {i}"', 'describe "config"') for i in (1, 2)} <= set(lua_tests)
    elixir = (
        "defmodule Plug.ConnTest do\n  use ExUnit.Case\n\n"
        + '  describe "halt" do\n'
        + "".join(
            f'    test "halts {i}", %{{conn: conn}} do\n'
            + _long_block("      ", "assert halted(conn, {k})")
            + "    end\n\n"
            for i in range(3)
        )
        + "  end\nend\n"
    )
    chunks, _ = checked_chunks("elixir", elixir)
    assert ('test "halts 2"', 'describe "halt"') in [
        (c.symbol, c.parent) for c in chunks if c.kind == "test"
    ]


def test_a_long_function_is_cut_around_its_inner_functions() -> None:
    """A factory too long for one chunk (immer's ``enablePatches``) is cut between its
    helpers, not at a blank line inside one of them, when the helper fits a chunk."""
    body = "    value = value + 1\n" * 8 + "\n" + "    value = value * 2\n" * 8

    def helper(name: str) -> str:
        head = f"  // {name} does its part\n  function {name}(value) {{\n"
        return head + body + "    return value\n  }\n"

    names = ["getPath", "resolvePath", "generatePatches", "applyPatches", "clonePatch"]
    source = "export function enablePatches() {\n  let count = 0\n\n"
    source += "\n".join(helper(name) for name in names) + "\n  return count\n}\n"
    chunks, definitions = checked_chunks("typescript", source)
    assert len(chunks) > 1  # too long for one chunk
    lines = source.split("\n")
    for d in (d for d in definitions if d.local):
        comment = d.start_line - 1  # the comment above it goes with it
        assert lines[comment - 1].strip().startswith("//")
        holding = [c for c in chunks if c.start_line <= d.end_line and c.end_line >= comment]
        assert len(holding) == 1, (d.name, [(c.start_line, c.end_line) for c in holding])
        assert holding[0].start_line <= comment
    covered = sorted(line for c in chunks for line in range(c.start_line, c.end_line + 1))
    assert covered == sorted(set(covered))  # no line twice


def test_functions_inside_a_function_are_definitions_of_their_own() -> None:
    """A factory's inner functions (redux's ``replaceReducer`` inside ``createStore``)
    stay in its chunks, split at statements, but are found by name."""
    helpers = "\n".join(
        f"  function {name}(value) {{\n" + "    value = value + 1\n" * 12 + "    return value\n  }"
        for name in ("getState", "dispatch", "replaceReducer")
    )
    source = f"export function createStore(reducer) {{\n  let state\n{helpers}\n  return {{}}\n}}\n"
    chunks, definitions = checked_chunks("typescript", source)
    inner = {(d.name, d.kind, d.parent) for d in definitions if d.local}
    assert inner == {
        (n, "function", "createStore") for n in ("getState", "dispatch", "replaceReducer")
    }
    assert {c.symbol for c in chunks} == {"createStore"}  # no chunk of their own
    replace = next(d for d in definitions if d.name == "replaceReducer")
    assert source.split("\n")[replace.start_line - 1].strip().startswith("function replaceReducer")
    nested = "def outer():\n    def helper(x):\n        return x\n    return helper(1)\n"
    _, python = checked_chunks("python", nested)
    assert [(d.name, d.parent, d.local) for d in python] == [
        ("outer", "", False),
        ("helper", "outer", True),
    ]
    tests = (
        'describe("client", () => {\n  test("retries", () => {\n'
        "    function isLeaking(api) {\n      return api.open > 0\n    }\n"
        "    const fake = {\n      async fetch(request) {\n        return 1\n      },\n"
        "      parseJson: function (text) {\n        return text\n      },\n    }\n"
        "  })\n})\n"
    )
    # a function expression with a name (what a stack trace shows) is found by name
    named = (
        "export function createInputMiddleware(parse) {\n"
        "  const inputMiddleware = async function inputValidatorMiddleware(opts) {\n"
        "    return parse(opts)\n  }\n  return inputMiddleware\n}\n"
        "app.use(function requestLogger(req, res, next) {\n  next()\n})\n"
        "app.use(function (req, res, next) {\n  next()\n})\n"
    )
    assert {d.name for d in checked_chunks("javascript", named)[1]} == {
        "createInputMiddleware",
        "inputMiddleware",
        "inputValidatorMiddleware",
        "requestLogger",
    }
    found = chunk_text("typescript", tests)[1]
    # a test's helper is found by name; its fakes' members are not
    assert [(d.name, d.kind, d.local) for d in found] == [("isLeaking", "function", True)]


def test_a_macro_standing_for_try_does_not_hide_the_rest_of_the_file() -> None:
    """``SPDLOG_TRY {`` (``try`` with exceptions, nothing without) read to the grammar as
    an expression, and the functions after it were lost (spdlog's thread pool)."""
    source = (
        "SPDLOG_INLINE thread_pool::thread_pool(size_t n)\n    : q_(n) {}\n\n"
        "SPDLOG_INLINE thread_pool::~thread_pool() {\n    SPDLOG_TRY {\n"
        "        for (size_t i = 0; i < threads_.size(); i++) {\n            post(i);\n"
        "        }\n    }\n    SPDLOG_CATCH_STD\n}\n\n"
        + "".join(f"size_t thread_pool::count_{n}() {{\n    return 1;\n}}\n\n" for n in "abc")
    )
    chunks, definitions = checked_chunks("cpp", source)
    assert [d.name for d in definitions] == [
        "thread_pool::thread_pool",
        "thread_pool::~thread_pool",
        "thread_pool::count_a",
        "thread_pool::count_b",
        "thread_pool::count_c",
    ]
    assert "SPDLOG_TRY {" in "\n".join(c.text for c in chunks)


def test_cpp_calling_conventions_and_empty_overrides_keep_the_parse() -> None:
    """``extern "C" .. __stdcall F();`` made the namespace after it F's body, and an
    overriding member's empty body with a ``;`` (``override{};``) read as a field."""
    source = (
        'extern "C" __declspec(dllimport) int __stdcall IsDebuggerPresent();\n\n'
        "namespace sinks {\n"
        "class msvc_sink : public base_sink {\n"
        "public:\n"
        "    msvc_sink() = default;\n"
        "protected:\n"
        "    void sink_it_(const log_msg &msg) override {\n        write(msg);\n    }\n"
        "    void flush_() override{};\n"
        "    void close_() const final {};\n"
        "};\n"
        "}  // namespace sinks\n"
    )
    _, definitions = checked_chunks("cpp", source)
    assert [(d.name, d.kind) for d in definitions] == [
        ("sinks", "module"),
        ("msvc_sink", "class"),
        ("msvc_sink", "method"),
        ("sink_it_", "method"),
        ("flush_", "method"),
        ("close_", "method"),
    ]
    # the parser's copy keeps every offset; the source is shown as written
    assert len(parser_source("cpp", source)) == len(source.encode())


def test_c_type_macros_and_comments_in_macros_keep_their_meaning() -> None:
    """An upper-case name the file declares as a type stays the type (flex's
    ``YY_BUFFER_STATE``); a specifier macro ending its line is not the function's name
    (``void SPDLOG_INLINE`` / ``sink::log(..)``); a comment inside a macro continued over
    lines no longer ends the macro and hides the function after it."""
    source = (
        "typedef struct yy_buffer_state *YY_BUFFER_STATE;\n\n"
        "YY_BUFFER_STATE yy_scan_string(const char *s)\n{\n    return scan(s);\n}\n\n"
        "#define FAIL(msg)  \\\n  do {          \\\n    report(msg); \\\n"
        "    /*YYERROR*/;   \\\n  } while (0)\n\n"
        "static void yyerror(const char *s)\n{\n    FAIL(s);\n}\n"
    )
    _, definitions = checked_chunks("c", source)
    assert [(d.name, d.kind) for d in definitions] == [
        ("YY_BUFFER_STATE", "type"),
        ("yy_scan_string", "function"),
        ("yyerror", "function"),
    ]
    source = (
        "template<typename Mutex>\nvoid SPDLOG_INLINE\n"
        "sinks::base_sink<Mutex>::set_formatter(std::unique_ptr<formatter> f) {\n"
        "    set_formatter_(std::move(f));\n}\n\n"
        "static YYPTRDIFF_T\nyystrlen(const char *s) {\n    return 0;\n}\n"
    )
    _, definitions = checked_chunks("cpp", source)
    assert [d.name for d in definitions] == ["sinks::base_sink::set_formatter", "yystrlen"]


def test_c_macros_defined_inside_an_initializer_keep_the_functions_after_it() -> None:
    """jq's table of builtins defines and undefines a macro between its entries; the
    grammar read a string from there on and lost the functions after the table."""
    source = (
        "static const struct cfunction function_list[] = {\n"
        '#include "libm.h"\n'
        '  CFUNC(f_negate, "_negate", 1),\n'
        '#define BINOP(name) CFUNC(f_ ## name, "_" #name, 3),\n'
        "BINOPS\n"
        "#undef BINOP\n"
        '  CFUNC(f_dump, "tojson", 1),\n'
        '  CFUNC(f_json_parse, "fromjson", 1),\n'
        "};\n\n"
        "static block gen_last_1(void) {\n  return gen_op_simple(DUP);\n}\n\n"
        "static block bind_builtins(block b) {\n  return b;\n}\n"
    )
    _, definitions = checked_chunks("c", source)
    assert [d.name for d in definitions] == ["function_list", "gen_last_1", "bind_builtins"]


def test_kotlin_2_forms_and_infix_calls_keep_the_rest_of_the_file() -> None:
    """Each of these lost every definition after it: an infix ``get`` after an
    expression (read as a getter), a multi-dollar string, context parameters, a
    suspending lambda. Two annotations before a class made it an expression, its
    methods top-level functions."""
    source = (
        "@Component\n@Transactional\nclass UserService {\n"
        "    fun findUser(id: Int) = id\n}\n\n"
        "fun insertDeveloper(): Int {\n"
        '    val developerId = Developer.insert { it[name] = "a" } get Developer.id\n'
        "    return developerId\n}\n\n"
        '@Value($$"${spring.exposed.excluded-packages:}")\n'
        'fun excluded(): String = ""\n\n'
        "context(_: VerificationScope)\n"
        "fun contains(name: String): Boolean = true\n\n"
        "fun configure(block: context(Scope) Project.() -> Unit) {}\n\n"
        "fun runSuspending() {\n"
        "    suspend { load() }.startCoroutine(Continuation(EmptyCoroutineContext) {})\n}\n\n"
        "class After {\n    fun last() = 1\n}\n"
    )
    _, definitions = checked_chunks("kotlin", source)
    assert [(d.name, d.parent) for d in definitions] == [
        ("UserService", ""),
        ("findUser", "UserService"),
        ("insertDeveloper", ""),
        ("excluded", ""),
        ("contains", ""),
        ("configure", ""),
        ("runSuspending", ""),
        ("After", ""),
        ("last", "After"),
    ]


def test_csharp_java_and_c_declarations_the_grammars_misread() -> None:
    """C# 11's ``ref partial struct`` (read as a method named ``struct``), the elements
    of a Java annotation type, and a C function whose header a macro wraps."""
    _, definitions = checked_chunks(
        "csharp",
        "ref partial struct MessagePackReader\n{\n    public byte ReadByte() { return 0; }\n}\n",
    )
    assert [d.name for d in definitions] == ["MessagePackReader", "ReadByte"]
    _, definitions = checked_chunks(
        "java",
        "public @interface SerializedName {\n  String value();\n"
        "  String[] alternate() default {};\n}\n",
    )
    assert [(d.name, d.kind) for d in definitions] == [
        ("SerializedName", "interface"),
        ("value", "method"),
        ("alternate", "method"),
    ]
    _, definitions = checked_chunks(
        "c",
        "HEAP_EXPORT(void heap_init(struct heap* heap)) {\n  heap->min = NULL;\n}\n\n"
        "UV_UNUSED(static void uv__update_time(uv_loop_t* loop)) {\n  loop->time = 0;\n}\n",
    )
    assert [d.name for d in definitions] == ["heap_init", "uv__update_time"]


def test_a_c_export_macro_holding_the_return_type_keeps_it() -> None:
    """cJSON's ``CJSON_PUBLIC(cJSON *) cJSON_Parse(..)``: the macro's argument is the
    function's return type; blanked with the macro, the function read as a call and went
    unnamed. A macro whose argument is not followed by one name and its ``(`` (a printf
    check before ``void f(``) is still blanked whole."""
    chunks, definitions = checked_chunks(
        "c",
        "CJSON_PUBLIC(cJSON *) cJSON_Parse(const char *value)\n{\n"
        "    return cJSON_ParseWithOpts(value, 0, 0);\n}\n\n"
        "CJSON_PUBLIC(void) cJSON_Delete(cJSON *item)\n{\n    free(item);\n}\n\n"
        "ABSL_PRINTF_ATTRIBUTE(2, 3) void log_line(int level, const char *format, ...)\n"
        "{\n    (void)level;\n}\n",
    )
    assert [(d.name, d.kind) for d in definitions] == [
        ("cJSON_Parse", "function"),
        ("cJSON_Delete", "function"),
        ("log_line", "function"),
    ]
    assert chunks[0].text.startswith("CJSON_PUBLIC(cJSON *) cJSON_Parse(")  # text as written


def test_haskell_pattern_synonyms_are_definitions() -> None:
    """``pattern T_Bang id = OuterToken id Inner_T_Bang`` (shellcheck's AST) is used as a
    constructor is: a definition named for the synonym, applied, bare or infix; its own
    signature line (a pattern synonym node too) defines nothing more."""
    source = (
        "module AST where\n\n"
        "data Token = OuterToken Int Inner\n\n"
        "-- | A bang before a command.\n"
        "pattern T_Bang :: Int -> Token\n"
        "pattern T_Bang id = OuterToken id Inner_T_Bang\n\n"
        'pattern DefaultString = "default"\n\n'
        "pattern x :> y = Cons x y\n\n"
        "pattern Name s <- Tok s where\n  Name s = Tok s\n"
    )
    chunks, definitions = checked_chunks("haskell", source)
    assert [(d.name, d.kind) for d in definitions if d.kind == "constant"] == [
        ("OuterToken", "constant"),  # the data type's constructor
        ("T_Bang", "constant"),
        ("DefaultString", "constant"),
        (":>", "constant"),
        ("Name", "constant"),
    ]
    assert not [c for c in chunks if c.symbol == "T_Bang" and c.start_line > 6]


def test_haskell_synonyms_operators_and_literate_files_are_read() -> None:
    """``type X = ..`` is a definition (the table misspelt the grammar's node type); a
    function type inside one (``A -> B``) is no function named ``A``; an equation written
    infix (``x // f = f x``) is named for its operator; a CPP ``#else`` that continues a
    declaration is an alternative, not more code."""
    source = (
        "module Links where\n\n"
        "type Get = Verb 'GET 200\n"
        "type ClientApplication = Request -> ClientM Response\n\n"
        "(//) :: a -> (a -> b) -> b\n"
        "x // f = f x\n\n"
        "instance HasLink sub => HasLink (Auth (tag :: [Type]) value :> sub)\n"
        "#if MIN_VERSION_servant(0,14,0)\n"
        "  where\n    type MkLink (Auth (tag :: [Type]) value :> sub) a = MkLink sub a\n"
        "    toLink toA _ = toLink toA (Proxy :: Proxy sub)\n"
        "#else\n"
        "  where\n    type MkLink (Auth (tag :: [Type]) value :> sub) = MkLink sub\n"
        "    toLink _ = toLink (Proxy :: Proxy sub)\n"
        "#endif\n\n"
        "data JWT\n\n"
        "data Cookie\n"
    )
    _, definitions = checked_chunks("haskell", source)
    names = [(d.name, d.kind) for d in definitions]
    assert ("Get", "type") in names and ("ClientApplication", "type") in names
    assert ("//", "function") in names
    assert ("JWT", "type") in names and ("Cookie", "type") in names
    assert not {"Request", "Verb"} & {name for name, _ in names}
    # an escaped character literal, then a name with a prime: the grammar's scanner
    # lost what lay between (pandoc's Markdown reader)
    _, definitions = checked_chunks(
        "haskell",
        "spnl = notFollowedBy (char '\\n')\n\nspnl' :: Parser Text\nspnl' = many space\n\n"
        "indentSpaces :: Parser Text\nindentSpaces = count 4 (char ' ')\n",
    )
    assert [d.name for d in definitions] == ["spnl", "spnl'", "indentSpaces"]


def test_literate_haskell_keeps_only_its_code_blocks() -> None:
    """A ``.lhs`` tutorial is Markdown with Haskell in fenced blocks: the prose was one
    parse error over the whole file. A plain Haskell file is left as it is."""
    source = (
        "# Serving an API\n\nFirst some imports, and a type for our API.\n\n"
        "``` haskell\nmodule Server where\n\nimport Servant\n\n"
        'type UserAPI = "users" :> Get \'[JSON] [User]\n```\n\n'
        "A server for it: it answers with the users we know.\n\n"
        "``` haskell\nserver :: Server UserAPI\nserver = return users\n```\n\n"
        "```\nillustration = not compiled\n```\n"
    )
    chunks, definitions = checked_chunks("haskell", source)
    assert [d.name for d in definitions] == ["UserAPI", "server"]
    assert "A server for it" in "\n".join(c.text for c in chunks)  # shown as written
    plain = "module M where\n\n-- > not a bird track\nf :: Int\nf = 1\n"
    assert parser_source("haskell", plain) == plain.encode()


def test_swift_diagnostics_typescript_casts_and_scala_operators() -> None:
    """A ``#warning`` among a Swift type's members lost the type; a TypeScript function
    wrapped in ``( ) as T`` was no function; Scala's ``?<`` was cut to ``?`` as if its
    ``<`` opened template arguments."""
    _, definitions = checked_chunks(
        "swift",
        "struct CompressionTests {\n    func testOne() {}\n\n"
        '    #warning("Bring back")\n\n    func testTwo() {}\n}\n',
    )
    assert [d.name for d in definitions] == ["CompressionTests", "testOne", "testTwo"]
    _, definitions = checked_chunks(
        "typescript",
        "const got: Got = ((url: string) => makeRequest(url)) as Got;\n",
    )
    assert [(d.name, d.kind) for d in definitions] == [("got", "function")]
    _, definitions = checked_chunks(
        "scala", "trait Laws[A] {\n  def ?<(rhs: A): Boolean\n  def ?<=(rhs: A): Boolean\n}\n"
    )
    assert [d.name for d in definitions] == ["Laws", "?<", "?<="]


def test_kotlin_swift_rust_and_cpp_statements_the_grammars_misread() -> None:
    """Each lost the rest of its type or file: Kotlin's ``set = set or bit`` after a
    ``val`` (an accessor), ``in1.close()`` (the keyword ``in``) and ``dynamic`` passed as
    a value; Swift's ``()`` as an empty case, ``#if`` around cases, ``fallthrough`` in
    an ``#if``; tokio's ``feature! { .. }``; C++'s ``typename T::size_type{0}``."""
    _, definitions = checked_chunks(
        "kotlin",
        "class Settings {\n  private var set = 0\n\n  operator fun set(id: Int): Settings {\n"
        "    val bit = 1 shl id\n    set = set or bit\n    return this\n  }\n\n"
        "  fun readAll(in1: Source) {\n    in1.close()\n  }\n\n"
        "  fun decode(dynamic: Any) = jsTypeOf(dynamic)\n\n  fun size() = 0\n}\n",
    )
    assert [(d.name, d.parent) for d in definitions] == [
        ("Settings", ""),
        ("set", "Settings"),
        ("readAll", "Settings"),
        ("decode", "Settings"),
        ("size", "Settings"),
    ]
    for body in (
        "        do {\n            try g()\n        } catch let error as E where error.x {\n"
        "            // Not all.\n            ()\n        }\n        print(1)\n",
        "        switch x {\n        #if os(Linux)\n        case .link:\n            return\n"
        "        #endif\n        case .other:\n            return\n        }\n",
        "        switch x {\n        case 1:\n            #if os(Windows)\n"
        "            fallthrough\n            #else\n            return\n"
        "            #endif\n        default:\n            return\n        }\n",
    ):
        source = f"final class A {{\n    func f(_ x: Int) {{\n{body}    }}\n    func g() {{}}\n}}\n"
        _, definitions = checked_chunks("swift", source + "struct B {}\n")
        assert [(d.name, d.parent) for d in definitions] == [
            ("A", ""),
            ("f", "A"),
            ("g", "A"),
            ("B", ""),
        ]
    _, definitions = checked_chunks(
        "rust",
        "feature! {\n    #![unix]\n    impl DirBuilder {\n"
        "        pub fn mode(&mut self, mode: u32) -> &mut Self {\n            self\n        }\n"
        "    }\n}\n",
    )
    assert [d.name for d in definitions] == ["DirBuilder", "mode"]
    _, definitions = checked_chunks(
        "cpp",
        "namespace absl {\ntemplate <typename T>\nvoid Fallback(T& s, size_t n) {\n"
        "  HardeningAssertGE(n, typename T::size_type{0});\n  s.resize(n);\n}\n\n"
        "template <typename T>\nvoid Impl(T& s) {\n  s.clear();\n}\n}  // namespace absl\n",
    )
    assert [(d.name, d.parent) for d in definitions] == [
        ("absl", ""),
        ("Fallback", "absl"),
        ("Impl", "absl"),
    ]


def test_rust_methods_declared_through_a_macro_of_the_same_file() -> None:
    """tokio's ``read_impl! { fn read_u8(&mut self) -> ReadU8; .. }`` inside a trait: a
    call of a macro the file defines, whose body is items, holds definitions. A call
    whose body is arguments after an attribute or a doc comment (serde's ``deref_impl!
    { /// This impl .. Rc }``) is left to the grammar, which keeps what follows it."""
    _, definitions = checked_chunks(
        "rust",
        "macro_rules! read_impl {\n    ($(fn $name:ident(&mut self) -> $fut:ident;)*) => {\n"
        "        $(fn $name(&mut self) -> $fut<&mut Self> { $fut::new(self) })*\n"
        "    }\n}\n\npub trait AsyncReadExt {\n    fn chain(self) -> Chain;\n\n"
        "    read_impl! {\n        /// Reads an unsigned 8 bit integer.\n"
        "        fn read_u8(&mut self) -> ReadU8;\n\n        /// Reads a signed one.\n"
        "        fn read_i8(&mut self) -> ReadI8;\n    }\n}\n",
    )
    names = [(d.name, d.parent) for d in definitions]
    assert ("read_u8", "AsyncReadExt") in names and ("read_i8", "AsyncReadExt") in names, names
    _, definitions = checked_chunks(
        "rust",
        "macro_rules! deref_impl {\n    ($($desc:tt)*) => {};\n}\n\n"
        "deref_impl! {\n    /// This impl requires the rc feature.\n"
        '    #[cfg(feature = "rc")]\n    Rc\n}\n\n'
        "impl Serialize for Unit {\n    fn serialize(&self) -> u8 {\n        0\n    }\n}\n",
    )
    assert [d.name for d in definitions][-2:] == ["Unit", "serialize"], definitions


def test_zsh_go_type_groups_and_elixir_macro_heads() -> None:
    """zsh read as bash: ``(( $+commands[x] ))``, ``${(f)"$(cmd)"}``, a brace group
    closed without ``;`` or opened without a space, a length in arithmetic
    (``(( #arr ))``, a comment to bash) and glob qualifiers after a brace expansion
    (``{_*,*.zsh}(N)``) lost or nested every function after them.
    Go's ``type ( .. )`` group named only its first type (or none after a comment). Elixir's ``@spec
    defguard(Macro.t())`` and ``defmacro def(call, ..)`` were bogus definitions."""
    _, definitions = checked_chunks(
        "bash",
        'function gdv() { git diff -w "$@" | view - }\n\n'
        "if (( $+commands[rg] )); then\n  alias grep=rg\nfi\n\n"
        'function _omz::plugin::enable {\n  local lines=(${(f)"$(cat $zshrc)"})\n}\n\n'
        'function ggf() {\n  git push --force origin "${b:=$1}"\n}\n\n'
        'jump() {\n  cd "$(readlink $1)" || {echo "No such mark: $1"; return 1}\n}\n\n'
        "mark() {\n  ln -s $PWD $1\n}\n",
    )
    assert [(d.name, d.parent) for d in definitions] == [
        ("gdv", ""),
        ("_omz::plugin::enable", ""),
        ("ggf", ""),
        ("jump", ""),
        ("mark", ""),
    ]
    _, definitions = cleanly_parsed(
        "bash",
        '_omz_source() {\n  if (( #pre && !#b )); then\n    a=("${(@kv)pre}")\n  fi\n}\n'
        # glob qualifiers after a brace expansion
        '_omz_plugins() {\n  a=("$ZSH"/plugins/*/{_*,*.plugin.zsh}(-.N:h:t))\n}\n',
    )
    assert [d.name for d in definitions] == ["_omz_source", "_omz_plugins"]
    _, definitions = checked_chunks(
        "go",
        "package promql\n\ntype (\n"
        "\t// ErrQueryTimeout is returned if a query timed out.\n"
        "\tErrQueryTimeout string\n\tErrStorage struct{ Err error }\n)\n\n"
        "func (e ErrQueryTimeout) Error() string { return string(e) }\n",
    )
    assert [(d.name, d.kind) for d in definitions] == [
        ("ErrQueryTimeout", "type"),
        ("ErrStorage", "type"),
        ("Error", "method"),
    ]
    _, definitions = checked_chunks(
        "elixir",
        "defmodule Kernel do\n  @spec defguardp(Macro.t()) :: Macro.t()\n"
        "  defmacro defguardp(guard) do\n    define_guard(:defp, guard, __CALLER__)\n  end\n"
        "end\n",
    )
    assert [d.name for d in definitions] == ["Kernel", "defguardp"]


def test_c_and_cpp_export_macros_do_not_hide_definitions() -> None:
    """Export, visibility and namespace macros the grammar cannot know are blanked in
    the parser's copy only: the definitions they decorate are found, named as written."""
    source = (
        '#define FMT_API __attribute__((visibility("default")))\n'
        "FMT_BEGIN_NAMESPACE\n"
        "namespace detail {\n"
        'FMT_PRAGMA_CLANG(diagnostic ignored "-Wweak-vtables")\n'
        'class FMT_SO_VISIBILITY("default") format_error : public std::runtime_error {\n'
        " public:\n"
        "  using std::runtime_error::runtime_error;\n"
        "};\n"
        "FMT_EXPORT template <typename Context> class dynamic_format_arg_store {\n"
        "  template <typename T> FMT_CONSTEXPR20 void push_back(const T& arg) {\n"
        "    if FMT_CONSTEXPR20 (need_copy<T>::value) {\n"
        "      data_.push_back(copy(arg));\n"
        "    } else {\n"
        "      data_.push_back(arg);\n"
        "    }\n"
        "  }\n"
        "  void clear() { data_.clear(); }\n"
        "};\n"
        "}  // namespace detail\n"
        "FMT_END_NAMESPACE\n"
    )
    chunks, definitions = checked_chunks("cpp", source)
    found = {(d.name, d.kind) for d in definitions}
    assert {("format_error", "class"), ("dynamic_format_arg_store", "class")} <= found
    assert {("push_back", "method"), ("clear", "method")} <= found  # after `if MACRO (..)`
    # (the macro's own `#define FMT_API ..` is a constant of that name)
    hidden = {name for name, kind in found if name.isupper() and kind != "constant"}
    assert not hidden and "namespace" not in {name for name, _ in found}
    assert "".join(c.text + "\n" for c in chunks).count("FMT_SO_VISIBILITY") == 1  # text kept
    annotated = (  # thread-safety annotations after the parameters
        "class Counter {\n public:\n  void Add(int v) ABSL_LOCKS_EXCLUDED(mu_) {\n"
        "    total_ += v;\n  }\n  int Total() const ABSL_SHARED_LOCKS_REQUIRED(mu_);\n"
        " private:\n  int total_;\n};\n\n"
        "int Counter::Total() const ABSL_NO_THREAD_SAFETY_ANALYSIS {\n  return total_;\n}\n"
    )
    found = {(d.name, d.kind) for d in checked_chunks("cpp", annotated)[1]}
    assert found == {("Counter", "class"), ("Add", "method"), ("Counter::Total", "function")}
    wrapped = (  # the annotation on the next line; a macro after a parameter's name
        "class Mutex {\n public:\n  void LockWhen(const Condition& cond)\n"
        "      ABSL_EXCLUSIVE_LOCK_FUNCTION() {\n    Lock();\n  }\n"
        "  iterator insert(T&& value ABSL_INTERNAL_ATTRIBUTE_CAPTURED_BY(this))\n"
        "      ABSL_ATTRIBUTE_LIFETIME_BOUND {\n    return emplace(value);\n  }\n};\n"
    )
    found = {(d.name, d.kind) for d in checked_chunks("cpp", wrapped)[1]}
    assert found == {("Mutex", "class"), ("LockWhen", "method"), ("insert", "method")}
    qualified = (  # a nullability macro after `*`, C++ the grammar does not know
        "namespace absl {\nclass Status {\n public:\n"
        "  static const std::string* absl_nonnull EmptyString();\n"
        "  bool ok() const { return rep_ == 0; }\n"
        "  Status& operator<<(char v) { return operator<< <char>(v); }\n"
        " private:\n  uintptr_t rep_;\n};\n\n"
        "namespace internal {\nextern template Status MakeError<0>(string_view message);\n"
        "}  // namespace internal\n\n"
        "const char* absl_nonnull StatusMessage(const Status& status) {\n  return nullptr;\n}\n"
        "}  // namespace absl\n"
    )
    assert [(d.name, d.kind) for d in checked_chunks("cpp", qualified)[1]] == [
        ("absl", "module"),
        ("Status", "class"),
        ("ok", "method"),
        ("operator<<", "method"),
        ("internal", "module"),
        ("StatusMessage", "function"),
    ]
    # a function returning a reference is named for itself, not for its return type
    references = (
        "class S {\n public:\n  const T& value() const& { return v; }\n"
        "  operator bool() const { return true; }\n};\n\n"
        "S& S::operator=(const S& o) { return *this; }\n\n"
        "std::ostream& operator<<(std::ostream& os, const S& s) { return os; }\n"
    )
    assert [d.name for d in checked_chunks("cpp", references)[1]] == [
        "S",
        "value",
        "operator bool",
        "S::operator=",
        "operator<<",
    ]
    gtest = 'TEST_F(ParserTest, Empty)\n{\n  EXPECT_TRUE(parse(""));\n}\n'
    test_chunks, test_definitions = chunk_text("cpp", gtest)
    assert test_chunks[0].text.startswith("TEST_F(ParserTest, Empty)")
    # a gtest test is a test named as gtest names it, not a function named TEST_F
    assert (test_chunks[0].kind, test_chunks[0].symbol) == ("test", "test ParserTest.Empty")
    assert test_definitions == []


def test_catch2_and_doctest_test_cases_are_tests_named_by_their_strings() -> None:
    """`TEST_CASE("vectors resize", "[vector]") {` names a test with strings, which the
    grammar read as a call and a loose block: the file was unnamed blocks. Each is now
    a test named as written, and the code after them is still read."""
    tests = "".join(
        f"{opening} {{\n    std::vector<int> v({i});\n    REQUIRE(v.size() == {i});\n"
        + "".join(f"    CHECK(v.empty() == false); // {k}\n" for k in range(6))
        + "}\n\n"
        for i, opening in enumerate(
            [
                'TEST_CASE("vectors resize", "[vector][size]")',
                'TEST_CASE_METHOD(Fixture, "a \\"quoted\\" name")',
                'SCENARIO("données")',
            ]
        )
    )
    chunks, definitions = checked_chunks("cpp", tests + "int helper(int x) {\n  return x;\n}\n")
    assert [(c.kind, c.symbol) for c in chunks] == [
        ("test", "test vectors resize"),
        ("test", 'test a \\"quoted\\" name'),
        ("test", "test données"),
        ("function", "helper"),
    ]
    assert [d.name for d in definitions] == ["helper"]
    assert chunks[0].text.startswith('TEST_CASE("vectors resize"')


def test_csharp_pointer_casts_do_not_hide_the_methods_after_them() -> None:
    """The C# grammar cannot read `*(int*)(pDst + 4) = *(int*)(pSrc + 4);` (unsafe code)
    and lost every method after such a line; the parser's copy blanks the casts."""
    method = (
        "    public static unsafe void WriteRaw{n}(byte* pSrc, byte* pDst)\n    {{\n"
        "        *(int*)(pDst + 0) = *(int*)(pSrc + 0);\n"
        "        *(long*)pDst = (long)*(short*)(pSrc + {n});\n    }}\n\n"
    )
    source = "public static class UnsafeMemory\n{\n"
    source += "".join(method.format(n=n) for n in range(4)) + "}\n"
    chunks, definitions = checked_chunks("csharp", source)
    assert [d.name for d in definitions] == ["UnsafeMemory"] + [f"WriteRaw{n}" for n in range(4)]
    assert "*(int*)(pDst + 0)" in chunks[0].text  # chunks keep the file's own text


def test_a_csharp_file_scoped_namespace_names_no_chunk() -> None:
    """`namespace Polly.CircuitBreaker;` is a statement about the whole file, as Java's
    `package` is: a small file is one chunk named for its class, not the namespace."""
    text = (
        "using System;\n\nnamespace Polly.CircuitBreaker;\n\n"
        "internal sealed class AdvancedCircuitBehavior : CircuitBehavior\n{\n"
        "    public override void OnActionFailure(CircuitState state, out bool shouldBreak)\n"
        "    {\n        shouldBreak = false;\n    }\n}\n"
    )
    chunks, definitions = chunk_text("csharp", text)
    assert [c.symbol for c in chunks] == ["AdvancedCircuitBehavior"]
    assert "Polly.CircuitBreaker" not in {d.name for d in definitions}


def test_a_namespace_around_one_type_is_named_for_the_type() -> None:
    """A block namespace (C#, C++) or a Ruby module that holds one type: the chunk of the
    whole is named for the type, under the namespace as parent, and signed with the
    type's line; the lines before it join it as they joined the namespace (one chunk
    per small file). A namespace of two types keeps its own name."""
    csharp = (
        "using System;\n\nnamespace Newtonsoft.Json.Linq\n{\n"
        "    /// <summary>Settings used when cloning JSON.</summary>\n"
        "    public class JsonCloneSettings\n    {\n"
        "        public JsonCloneSettings()\n        {\n            CopyAnnotations = true;\n"
        "        }\n\n        public bool CopyAnnotations { get; set; }\n    }\n}\n"
    )
    chunks, _ = chunk_text("csharp", csharp)
    whole = chunks[-1]
    assert (whole.kind, whole.symbol, whole.parent) == (
        "class",
        "JsonCloneSettings",
        "Newtonsoft.Json.Linq",
    )
    assert whole.signature == "public class JsonCloneSettings"
    assert whole.start_line == 1  # the `using` line joins it, as it joined the namespace
    ruby = (
        '# frozen_string_literal: true\n\nrequire "rails/generators/named_base"\n\n'
        "module Rails\n  module Generators\n    class GeneratorGenerator < NamedBase\n"
        "      def create_generator_files\n        directory '.', generator_dir\n"
        "      end\n    end\n  end\nend\n"
    )
    chunks, _ = chunk_text("ruby", ruby)
    assert [(c.kind, c.symbol, c.parent) for c in chunks] == [
        ("class", "GeneratorGenerator", "Generators")
    ]
    two = csharp.replace("    }\n}\n", "    }\n\n    public class Other\n    {\n    }\n}\n")
    chunks, _ = chunk_text("csharp", two)
    assert chunks[-1].symbol == "Newtonsoft.Json.Linq"
    # Rust's `mod tests` around one type stays a test module: it does not join the code
    rust = (
        "fn lib() -> u32 {\n    1\n}\n\n#[cfg(test)]\nmod tests {\n"
        "    struct Fixture {\n        n: u32,\n        m: u32,\n    }\n}\n"
    )
    chunks, _ = chunk_text("rust", rust)
    assert [(c.kind, c.symbol) for c in chunks] == [("function", "lib"), ("module", "tests")]


def test_a_csharp_pragma_keeps_a_doc_comment_with_its_type() -> None:
    """Polly puts `#pragma warning disable` between a class's doc comment and the class:
    the comment stays the class's, not a nameless block of its own."""
    text = (
        "namespace Polly;\n\n/// <summary>\n/// A builder of pipelines.\n/// </summary>\n"
        "#pragma warning disable S1694 // an abstract class\n"
        "public abstract class ResiliencePipelineBuilderBase\n"
        "#pragma warning restore S1694\n{\n    public string Name { get; set; }\n}\n"
    )
    chunks, _ = chunk_text("csharp", text)
    holding = [c for c in chunks if "A builder of pipelines" in c.text]
    assert [c.symbol for c in holding] == ["ResiliencePipelineBuilderBase"]


def test_csharp_conditional_groups_inside_a_declaration_keep_its_name() -> None:
    """``#if`` between a signature and its ``=>`` body, or between a class's name and its
    base list: each branch alone is whole, both together are not. The first branch is
    read, as in C, and the definition keeps its own name (it was named for the macro)."""
    source = (
        "namespace N\n{\n"
        "    public abstract partial class JsonReader\n"
        "#if HAVE_ASYNC_DISPOSABLE\n"
        "        : IAsyncDisposable\n"
        "#endif\n"
        "    {\n"
        "        internal static bool IsDateFamily(Type from, Type to)\n"
        "#if NET6_0_OR_GREATER\n"
        "            => from == typeof(DateTime) && to == typeof(DateOnly);\n"
        "#else\n"
        "            => false;\n"
        "#endif\n\n"
        "        internal static bool TryConvert(object value, out object converted)\n"
        "        {\n            converted = value;\n            return true;\n        }\n"
        "    }\n}\n"
    )
    chunks, definitions = checked_chunks("csharp", source)
    assert [(d.name, d.kind) for d in definitions] == [
        ("N", "module"),
        ("JsonReader", "class"),
        ("IsDateFamily", "method"),
        ("TryConvert", "method"),
    ]
    assert "=> false;" in "\n".join(c.text for c in chunks)  # the file's own text


def test_a_statement_cut_off_by_a_preprocessor_line_is_not_a_definition() -> None:
    """`#if X` between `}` and `else if (..) {` makes the parser read a function named
    `if`; C, C++, C# and Java cannot name a definition so."""
    source = (
        "namespace N\n{\n    public class Conv\n    {\n"
        "        public void Write(object value)\n        {\n"
        "            if (value is DateTime dateTime)\n            {\n"
        "                text = dateTime.ToString();\n            }\n"
        "#if HAVE_DATE_TIME_OFFSET\n"
        "            else if (value is DateTimeOffset offset)\n            {\n"
        "                text = offset.ToString();\n            }\n"
        "#endif\n"
        "        }\n\n"
        "        public bool CanConvert(Type t) { return true; }\n"
        "    }\n}\n"
    )
    _, definitions = checked_chunks("csharp", source)
    assert [d.name for d in definitions] == ["N", "Conv", "Write", "CanConvert"]
    # elsewhere such words can be names: Kotlin's Flow.catch, a PHP method for()
    kotlin = "fun <T> Flow<T>.catch(action: (Throwable) -> Unit): Flow<T> = this\n"
    assert [d.name for d in chunk_text("kotlin", kotlin)[1]] == ["catch"]


#: (language, a file mid-edit: one unit broken, definitions after it)
MID_EDIT = [
    (
        "python",
        "def first(x):\n    return x + 1\n\n\ndef broken(x:\n    return (\n\n\n"
        "def second(y):\n    return y * 2\n\n\nclass Shape:\n    def area(self):\n"
        "        return 1\n",
    ),
    (
        "php",  # a method that lost its closing brace takes in the ones after it
        "<?php\nclass Buffer\n{\n    public function first(): void\n    {\n"
        "        $this->a = 1;\n    }\n\n    public function broken(): void\n    {\n"
        "        if ($this->a) {\n            $this->b = 2;\n\n    }\n\n"
        "    public function second(): void\n    {\n        $this->c = 3;\n    }\n\n"
        "    public function area(): int\n    {\n        return 1;\n    }\n}\n",
    ),
    (
        "kotlin",  # a string left open: the grammar reads the whole file as one error
        "class Buffer {\n  fun first(): Int {\n    return 1\n  }\n\n"
        '  fun broken(): String {\n    return "open\n  }\n\n'
        "  fun second(): Int {\n    return 2\n  }\n\n"
        "  fun area(): Int {\n    return 3\n  }\n}\n",
    ),
    (
        "kotlin",  # a method's header cut short: the grammar reads the class as one error
        "class Buffer {\n  fun first(): Int {\n    return 1\n  }\n\n  @Test\n  fun brok\n"
        "    val x = first()\n    return x\n  }\n\n  fun second(): Int {\n    return 2\n"
        "  }\n\n  fun area(): Int {\n    return 3\n  }\n}\n",
    ),
    (
        "kotlin",  # the same, in a class whose header and supertypes span lines
        "class Buffer(\n  private val name: String,\n  private val size: Int,\n"
        ") : Closeable,\n  Reader.FrameCallback,\n  Runnable {\n"
        "  private val key: String\n\n  /** Non-null for clients. */\n"
        "  internal var call: Call? = null\n  fun first(): Int {\n"
        "    return 1\n  }\n\n  override fun\n    code: Int,\n  ) {\n"
        "    require(code != -1)\n  }\n\n  fun second(): Int {\n    return 2\n"
        "  }\n\n  fun area(): Int {\n    return 3\n  }\n}\n",
    ),
    (
        "php",  # a method's header cut short: the methods after it read as free functions
        "<?php\nclass Buffer\n{\n    public function first(): void\n    {\n"
        "        $this->a = 1;\n    }\n\n    public function broken\n    {\n"
        "        $this->b = (string) $name;\n    }\n\n"
        "    public function second(): void\n    {\n        $this->c = 3;\n    }\n\n"
        "    public function area(): int\n    {\n        return 1;\n    }\n}\n",
    ),
    (
        "csharp",  # preprocessor lines at the margin inside the class that broke
        "namespace Shapes\n{\n    public class Buffer\n    {\n#if HAVE_LINQ\n"
        '        private const string Name = "Binary";\n#endif\n\n'
        "        public int first()\n        {\n            if (size == 0)\n"
        "            {\n                return 1;\n\n            return 0;\n        }\n\n"
        "#if HAVE_LINQ\n        public int second()\n        {\n            return 2;\n"
        "        }\n#endif\n\n        public int area()\n        {\n            return 3;\n"
        "        }\n    }\n}\n",
    ),
    (
        "haskell",
        "module Shapes where\n\nfirst :: Int -> Int\nfirst x = x + 1\n\n"
        "broken x = case x of\n  1 -> (\n  2 -> 3\n\nsecond :: Int -> Int\n"
        "second y = y * 2\n\ndata Shape = Circle Double\n\narea :: Shape -> Double\n"
        "area (Circle r) = pi * r * r\n",
    ),
]


@pytest.mark.parametrize(
    ("language", "source"), MID_EDIT, ids=[f"{c[0]}-{i}" for i, c in enumerate(MID_EDIT)]
)
def test_a_broken_unit_does_not_take_the_definitions_after_it(language: str, source: str) -> None:
    """A file mid-edit: the grammar reads on from the broken unit as an error, or
    inside it, and without a second reading with that unit blanked, the definitions
    after it are lost (Python, Haskell) or become the broken method's locals (PHP).
    Where the first reading named the broken definition (PHP, Haskell), it is still
    found, cut to its own lines. A string left open turns every later string inside out
    (Kotlin reads the whole file as one error), and so does a method's header cut short;
    the method that broke it is found by halving the class's members. After a PHP
    method's header is cut, the others read as free functions unless it is blanked."""
    _, definitions = chunk_text(language, source)
    by_name = {d.name: d for d in definitions}
    assert {"first", "second", "area"} <= set(by_name), sorted(by_name)
    assert not by_name["second"].local and not by_name["area"].local
    if language in ("php", "kotlin", "csharp"):
        assert (by_name["second"].kind, by_name["second"].parent) == ("method", "Buffer")
    if language in ("php", "haskell"):  # the others' first reading lost the broken one
        second = next(n for n, line in enumerate(source.split("\n"), 1) if "second" in line)
        assert by_name["broken"].end_line < second


#: (language, a file whose class header is cut short: ``class Buffer {`` -> ``class Buf``)
HEADER_CUT = [
    (
        "kotlin",
        "import a.b\n\nclass Buf\n  fun first(): Int {\n    return 1\n  }\n\n  @Test\n"
        "  fun second(): Int {\n    return 2\n  }\n}\n\nfun area(): Int {\n  return 3\n}\n",
    ),
    (
        "scala",
        "package a\n\nfinal case class Buf\n  def first: Int = 1\n\n"
        "  def second(x: Int): Int =\n    x + 2\n}\n\ndef area: Int = 3\n",
    ),
    (
        "rust",
        "use a::b;\n\nimpl<T> Buf\n    fn first(&self) -> i32 {\n        1\n    }\n\n"
        "    fn second(&self) -> i32 {\n        2\n    }\n}\n\nfn area() -> i32 {\n    3\n}\n",
    ),
    (
        "swift",
        "import A\n\nstruct Buf\n    func first() -> Int {\n        return 1\n    }\n\n"
        "    func second() -> Int {\n        return 2\n    }\n}\n\n"
        "func area() -> Int {\n    return 3\n}\n",
    ),
    (
        "python",
        "import a\n\n\nclass Buf\n    def first(self):\n        return 1\n\n"
        "    def second(self):\n        return 2\n\n\ndef area():\n    return 3\n",
    ),
    (
        "typescript",  # ``implements X {`` cut: methods read free would be no definitions
        "import x from 'y'\n\nexport class Buf imp\n  first(): number {\n    return 1\n  }\n\n"
        "  second(): number {\n    return 2\n  }\n}\n\n"
        "function area(): number {\n  return 3\n}\n",
    ),
]


@pytest.mark.parametrize(("language", "source"), HEADER_CUT, ids=[c[0] for c in HEADER_CUT])
def test_a_class_whose_header_broke_keeps_its_methods(language: str, source: str) -> None:
    """A class's header cut short mid-edit: the grammar reads its methods as free
    functions (Kotlin, Rust, Swift), into the error (Python's first method), or as
    calls and blocks (TypeScript). Its header is written whole where the line has room
    for a brace, else blanked with its closing line, so its methods read on their own;
    they stay methods of the name the header gives, and the function after the class
    stays free."""
    _, definitions = chunk_text(language, source)
    by_name = {d.name: d for d in definitions}
    for name in ("first", "second"):
        assert (by_name[name].kind, by_name[name].parent) == ("method", "Buf"), by_name
    assert (by_name["area"].kind, by_name["area"].parent) == ("function", "")
    # the class once, though both readings found it
    assert len({(d.name, d.start_line) for d in definitions}) == len(definitions), definitions


def test_a_python_class_whose_header_broke_is_not_taken_by_the_class_above() -> None:
    """Blanked, a Python class header leaves its body at the indentation of the class
    above's, which then reads on over it: the methods are the broken class's, and the
    class above ends where it did."""
    _, definitions = chunk_text(
        "python",
        '"""Brackets."""\n\nfrom dataclasses import dataclass, field\n\n\n'
        "class BracketMatchError(Exception):\n"
        '    """Raised when an opening bracket is unable to be matched."""\n\n\n'
        '@dataclass\nclass Brack\n    """Keeps track of brackets on a line."""\n\n'
        "    depth: int = 0\n\n"
        "    def mark(self, leaf: int) -> None:\n"
        "        if leaf:\n            self.depth += leaf\n\n"
        "    def any_open(self) -> bool:\n        return bool(self.depth)\n\n\n"
        "def is_split(leaf: int) -> int:\n    return leaf\n",
    )
    by_name = {d.name: d for d in definitions}
    assert (by_name["mark"].parent, by_name["any_open"].parent) == ("Brack", "Brack")
    assert (by_name["BracketMatchError"].start_line, by_name["BracketMatchError"].end_line) == (
        6,
        7,
    )
    assert by_name["is_split"].parent == ""


#: (language, a file whose class or namespace header is cut before its name, and the
#: kind and owner its methods keep)
HEADER_KEYWORD_CUT = [
    (  # a namespace that does not indent its members, its brace cut off with its name
        "cpp",
        '#include "a.h"\n\nnamespace a {\nMACRO_BEGIN\nnamespac\n\n// A buffer.\n'
        "template <class T>\nclass Buffer {\n public:\n  int First() { return 1; }\n"
        "  int Second() { return 2; }\n};\n\n}  // namespace b\nMACRO_END\n}  // namespace a\n",
        ("method", "Buffer"),
    ),
    (  # Zig's ``= struct {`` cut off: the methods stay the struct's
        "zig",
        'const std = @import("std");\n\npub const Buf\n    len: usize,\n\n'
        "    pub fn first(self: Buf) usize {\n        return self.len;\n    }\n\n"
        "    pub fn second(self: Buf) usize {\n        return 2;\n    }\n};\n",
        ("method", "Buf"),
    ),
]


@pytest.mark.parametrize(
    ("language", "source", "kept"), HEADER_KEYWORD_CUT, ids=[c[0] for c in HEADER_KEYWORD_CUT]
)
def test_a_header_cut_before_its_name_keeps_the_members(
    language: str, source: str, kept: tuple[str, str]
) -> None:
    """A header cut short before it names its class or namespace (C++'s
    ``namespac``, whose closing line is found by counting brackets, as its members are
    not indented; Zig's ``pub const Buf`` without ``= struct {``) is blanked with its
    closing line, so the members below it read on their own rather than into one
    error, as members of the class they sit in."""
    _, definitions = chunk_text(language, source)
    by_name = {d.name.lower(): d for d in definitions}
    for name in ("first", "second"):
        assert name in by_name, [(d.name, d.kind) for d in definitions]
        assert (by_name[name].kind, by_name[name].parent) == kept, by_name[name]


def test_a_switch_label_at_its_switch_indentation_is_no_unclosed_bracket() -> None:
    """Swift, Go and C put a switch's ``case`` at the switch's own indentation, one
    bracket deeper than the lines before it there. Read as a unit that left a bracket
    open, the first such label hid the method below that truly lost its closing brace,
    and the methods after it became its local functions."""
    _, definitions = chunk_text(
        "swift",
        "struct Buffer {\n    func first(_ code: Int) -> Bool {\n        switch code {\n"
        "        case 1:\n            return true\n        default:\n            return false\n"
        "        }\n    }\n\n    func broken() -> Int {\n        if size == 0 {\n"
        "            return 1\n\n        return 0\n    }\n\n"
        "    func second() -> Int {\n        return 2\n    }\n\n"
        "    func area() -> Int {\n        return 3\n    }\n}\n",
    )
    assert [(d.name, d.kind, d.parent) for d in definitions] == [
        ("Buffer", "class", ""),
        ("first", "method", "Buffer"),
        ("broken", "method", "Buffer"),
        ("second", "method", "Buffer"),
        ("area", "method", "Buffer"),
    ]


def test_a_ruby_literal_left_open_is_a_suspect() -> None:
    """A Ruby ``%w(`` or ``%r{`` left open mid-edit reads on to its partner bracket,
    which may be far below; the line that opens it is a suspect like one that opens a
    string, so the class around the broken method keeps its name and every method."""
    _, definitions = chunk_text(
        "ruby",
        "class Buffer\n  def first\n    1\n  end\n\n  def broken\n    skip = %w(a b\n"
        "    skip\n  end\n\n  def second\n    [1, 2].map { |x| x * 2 }\n  end\n\n"
        "  def area\n    3\n  end\nend\n",
    )
    assert [(d.name, d.parent) for d in definitions] == [
        ("Buffer", ""),
        ("first", "Buffer"),
        ("broken", "Buffer"),
        ("second", "Buffer"),
        ("area", "Buffer"),
    ]


def test_a_broken_method_is_blanked_with_its_attribute() -> None:
    """A method blanked without the attribute above it (``[Fact]``) leaves the
    attribute to the next method, which then starts on the broken one's lines; the
    unit blanked takes its attributes, and each method keeps its own lines."""
    source = (
        "namespace Shapes\n{\n    public class Tests\n    {\n        [Fact]\n"
        "        public void First()\n        {\n            var output = Query();\n\n"
        "            Assert.Equal(orig,\n        }\n\n        [Fact]\n"
        "        public void Second()\n        {\n            Assert.Equal(orig, output);\n"
        "        }\n    }\n}\n"
    )
    by_name = {d.name: d for d in chunk_text("csharp", source)[1]}
    lines = source.split("\n")
    second = lines.index("        public void Second()") + 1
    assert by_name["Second"].start_line == second - 1  # its own [Fact]
    assert by_name["First"].kind == "method" and by_name["First"].end_line < second - 1


def test_a_broken_class_is_blanked_with_its_template_line() -> None:
    """A C++ class blanked without its ``template <..>`` line leaves that line to the
    class after it, which then starts at the broken one and takes it in."""
    source = (
        "namespace n {\n\nint first() { return 1; }\n\ntemplate <typename T>\n"
        "class Broken\n    : public Base<T, (T::size > 2 {\n"
        "  using Base = typename Base<T>::type;\n\n  void f() { g(1); }\n};\n\n"
        "template <typename U>\nclass Next {\n  void h() { return; }\n};\n\n"
        "int area() { return 3; }\n\n}  // namespace n\n"
    )
    definitions = chunk_text("cpp", source)[1]
    nexts = [d for d in definitions if d.name == "Next"]
    assert [(d.start_line, d.parent) for d in nexts] == [(13, "n")], definitions


def test_a_file_read_as_one_error_is_read_again_from_scratch() -> None:
    """Two methods mid-edit (a ``try {`` and a call left open) make the Kotlin grammar
    read the whole file as one error. Parsed again from that tree, with a broken unit
    blanked, the error is reused and stays; parsed from scratch, the file reads."""
    source = (
        "class Buffer(\n) : Platform() {\n  override fun first(\n  ) {\n    try {\n"
        "        Proxy.newProxyInstance(\n        )\n"
        "    } catch (e: InvocationTargetException) {\n    }\n  }\n"
        "  override fun broken(sslSocket: SSLSocket): String? {\n    try {\n  }\n"
        "  /**\n   */\n  private class Provider(\n  ) : InvocationHandler {\n"
        "    override fun invoke(\n    ): Any? {\n"
        "      val callArgs = args ?: arrayOf<Any?>()\n"
        "      val methodName = method.name\n      val returnType = method.returnType\n"
        '      if (methodName == "supports" && Boolean::class.javaPrimitiveType == returnType) {\n'
        "        return method.invoke(this, *callArgs)\n      }\n    }\n  }\n"
        "    fun second(): Platform? {\n"
        '      val jvmVersion = System.getProperty("java.version", "unknown")\n'
        "      try {\n        val version = jvmVersion.toInt()\n"
        '        val providerClass = Class.forName("$className\\$ClientProvider", true, null)\n'
        '        val getMethod = owner.getMethod("get", SSLSocket::class.java)\n'
        "        return Buffer(\n      } catch (_: ClassNotFoundException) {\n    }\n"
        "  }\n}\n"
    )
    by_name = {d.name: d for d in chunk_text("kotlin", source)[1]}
    assert (by_name["first"].kind, by_name["first"].parent) == ("method", "Buffer")
    assert (by_name["invoke"].kind, by_name["invoke"].parent) == ("method", "Provider")


def test_a_string_left_open_before_small_errors_is_read_again() -> None:
    """A string opened on a method's first line turns the next string inside out: the
    grammar reports only small errors (no large one, brackets in balance), but the
    methods between are lost. The first error after a line that opens a string it does
    not close is reason enough to read the file again."""
    source = (
        'module Rack\n  class RewindableInput\n    def initialize(io) "\n      @io = io\n'
        "    end\n\n    def gets\n      @io.gets\n    end\n\n    def size\n"
        '      buffer = "".dup\n      buffer.size\n    end\n\n    def close\n'
        "      @io.close\n    end\n  end\nend\n"
    )
    by_name = {d.name: d for d in chunk_text("ruby", source)[1]}
    assert {"gets", "size", "close"} <= set(by_name), sorted(by_name)
    assert by_name["size"].parent == "RewindableInput"


def test_a_method_mid_edit_inside_a_configuration_macro() -> None:
    """A method that lost its closing brace inside a Rust configuration macro
    (``cfg_io_driver! {``, whose first line the parser's copy blanks) took in the
    macro blocks after it: their items were lost. Units are found in the file's own
    lines, where the macro block is one."""
    source = (
        "use std::io;\n\ncfg_io_driver! {\n"
        "    pub(crate) type IoDriver = crate::runtime::io::Driver;\n\n"
        "    pub(crate) enum IoHandle {\n        Enabled(Handle),\n"
        "        Disabled(UnparkThread),\n    }\n\n    impl IoHandle {\n"
        "        pub(crate) fn unpark(&self) {\n            match self {\n"
        "                IoHandle::Enabled(handle) => handle.unpark(),\n"
        "                IoHandle::Disabled(handle) => handle.unpark(),\n"
        "            }\n        }\n\n"
        "        pub(crate) fn as_ref(&self) -> Option<&Handle> {\n"
        "            match self {\n                IoHandle::Enabled(v) => Some(v),\n"
        "                IoHandle::Disabled(..) => None,\n            }\n    }\n}\n\n"
        "cfg_not_io_driver! {\n    pub(crate) type IoHandle = UnparkThread;\n\n"
        "    fn create_io_stack(enabled: bool) -> io::Result<IoStack> {\n"
        "        Ok(IoStack(ParkThread::new()))\n    }\n\n    impl IoStack {\n"
        "        pub(crate) fn park(&mut self) {\n            self.0.park();\n"
        "        }\n    }\n}\n\n"
        "pub(crate) fn create_clock(enable_pausing: bool) -> Clock {\n"
        "    Clock::new(enable_pausing)\n}\n"
    )
    found = {(d.name, d.kind) for d in chunk_text("rust", source)[1]}
    assert {("create_io_stack", "function"), ("IoStack", "impl"), ("park", "method")} <= found


def test_an_error_on_the_first_member_suspects_the_unit_before() -> None:
    """A match arm cut short in one impl: the grammar gives up at the first method of
    the next impl, and every method after it was lost. The unit before the one whose
    first member the error is on is a suspect, as it is for an error on its first line."""
    source = (
        "impl FromArgMatches for CliSub {\n"
        "    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, Error> {\n"
        "        match matches.subcommand() {\n            Some((_, _)) => {\n"
        "                return Err(Error::raw(\n"
        "                    ErrorKind::InvalidSubcommand,\n"
        '                    "Valid subcommands are `add` and `remove`",\n'
        "                ));\n            }\n            None =\n        };\n"
        "        Ok(())\n    }\n}\n\nimpl Subcommand for CliSub {\n"
        "    fn augment_subcommands(cmd: Command) -> Command {\n"
        '        cmd.subcommand(AddArgs::augment_args(Command::new("add")))\n    }\n'
        "    fn has_subcommand(name: &str) -> bool {\n"
        '        matches!(name, "add" | "remove")\n    }\n}\n\nstruct Cli {\n'
        "    top_level: bool,\n}\n"
    )
    found = {(d.name, d.kind) for d in chunk_text("rust", source)[1]}
    assert {("augment_subcommands", "method"), ("has_subcommand", "method")} <= found, found


def test_a_single_quote_left_open_in_shell() -> None:
    """Shell's single-quoted strings span lines: one left open turns every later string
    inside out, and the functions after it were lost (in Kotlin, after a character
    literal left open). The first line that leaves a
    single-quoted string open is a suspect too (double-quoted text, comments and
    ``'\\''`` aside)."""
    source = (
        "function docker-remove-images() {\n"
        "\tabout 'attempt to remove images with supplied tags or all if no tags are supplied'\n"
        "\tgroup 'docker'\n"
        "\tdocker rmi $(echo \"${ID_ARRAY[@]}\" | tr ' ' '\\n' | sort -u)\n}\n\n"
        "function docker-image-dependencies() {\n"
        "\tabout 'attempt to create a Graphiz image of the supplied image ID dependencies'\n"
        "\tgroup 'docker' '\n\tif hash dot 2> /dev/null; then\n"
        '\t\tdocker images -viz | dot -Tpng -o "$1".png\n\tfi\n}\n\n'
        "function docker-runtime-environment() {\n"
        "\tabout 'attempt to list the environmental variables of the supplied image ID'\n"
        "\tgroup 'docker'\n\tdocker run \"$@\" env\n}\n\n"
        "function docker-archive-content() {\n"
        "\tabout 'show the content of the provided Docker image archive'\n"
        "\tgroup 'docker'\n\ttar -xOf \"$1\" manifest.json\n}\n"
    )
    names = [d.name for d in chunk_text("bash", source)[1]]
    assert names[-2:] == ["docker-runtime-environment", "docker-archive-content"], names

    # Kotlin's grammar reads on after a character literal left open
    kotlin = (
        "class MultipartBody(\n  val parts: List<Part>,\n) : RequestBody() {\n"
        "  fun type(): MediaType = type\n\n  @Throws(IOException::class) '\n"
        "  private fun writeOrCountBytes(sink: BufferedSink?): Long {\n"
        "    var byteCount = 0L\n    return byteCount\n  }\n\n  class Builder {\n"
        "    fun setType(type: MediaType) =\n      apply {\n"
        '        require(type.type == "multipart") { "multipart != $type" }\n'
        "      }\n  }\n\n  companion object {\n"
        "    internal fun StringBuilder.appendQuotedString(key: String) {\n"
        "      append('\"')\n      for (i in 0 until key.length) {\n"
        "        when (val ch = key[i]) {\n          '\\n' -> append(\"%0A\")\n"
        '          \'"\' -> append("%22")\n          else -> append(ch)\n        }\n'
        "      }\n      append('\"')\n    }\n  }\n}\n"
    )
    names = {d.name for d in chunk_text("kotlin", kotlin)[1]}
    assert {"writeOrCountBytes", "setType", "appendQuotedString"} <= names, names


def test_a_section_heading_comment_joins_what_it_titles() -> None:
    """A comment alone between definitions (``## Validations``, ``// MARK: - Helpers``)
    titles the definitions below it: as a chunk of its own it matched every question
    about its section and answered none."""
    body = "".join(f"    assert step({i})\n" for i in range(30))
    source = (
        "defmodule ChangesetTest do\n  use ExUnit.Case\n\n"
        f'  test "cast/4" do\n{body}  end\n\n'
        "  ## Validations\n\n"
        f'  test "validate_change/3" do\n{body}  end\nend\n'
    )
    chunks, _ = chunk_text("elixir", source)
    heading = source.split("\n").index("  ## Validations") + 1
    assert next((c.start_line, c.kind) for c in chunks if c.start_line >= heading) == (
        heading,
        "test",
    )
    assert not any(c.text.strip() == "## Validations" for c in chunks)
    lines = "".join(f"        total += {i}\n" for i in range(60))
    chunks, _ = chunk_text(
        "swift",
        f"struct Buffer {{\n    func size() -> Int {{\n        var total = 0\n{lines}"
        "        return total\n    }\n}\n\n// MARK: - Helpers\n\n"
        "func area() -> Int {\n    return 3\n}\n",
    )
    assert chunks[-1].symbol == "area" and chunks[-1].text.startswith("// MARK: - Helpers")
