"""C and C++ forms the grammars misread (macros, conditional groups, test macros),
rewritten in the parser's copy."""

from __future__ import annotations

import re
from collections.abc import Callable

from .c_conditionals import one_configuration
from .edits import blank, blank_group, blank_spans, spaces

#: C and C++ export, visibility and constexpr macros the grammars cannot know hide the
#: definitions they decorate: ``class FMT_SO_VISIBILITY("default") format_error`` (read
#: as a class named for the macro), ``FMT_API void print(..)``, ``FMT_EXPORT template
#: <..> class X`` and ``FMT_CONSTEXPR typed_node(..)`` (read as expressions), and
#: ``FMT_BEGIN_NAMESPACE`` alone on a line (read as the type of the namespace after it).
#: Such a name is upper case with an underscore, perhaps with arguments. It is blanked
#: where it stands before another name, or alone on a line (unless a ``{`` line follows:
#: gtest's ``TEST_F(Suite, Name)``), or between ``if`` and its condition (``if
#: FMT_CONSTEXPR20 (cond)``, a macro for ``constexpr``; ``if UNLIKELY(x)`` reads as ``if
#: (x)``), never in preprocessor lines. The first character is matched before the
#: look-behind so that the scan can skip ahead (4x faster).
_C_SPECIFIER = re.compile(
    r"[A-Z](?<![\w.>:][A-Z])[A-Z0-9]*_[A-Z0-9_]*(?:\([^()\n]*\))?(?=[ \t]+[A-Za-z_~])"
)
_C_ALONE = re.compile(
    r"(?m)^[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\([^()\n]*\))?[ \t]*$(?![\n\r]+[ \t]*\{)"
)
_C_AFTER_IF = re.compile(r"if ([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]*\()")
#: ... and after a declarator's parameters (and qualifiers), on their line or indented on
#: the next: ``int f(void) WARN_UNUSED_RESULT;``, ``void Add(int v) ABSL_LOCKS_EXCLUDED(mu_)
#: {``
_C_AFTER_PARAMETERS = re.compile(
    r"\)((?:[ \t]+(?:const|noexcept|override|final|&&|&))*(?:[ \t]+|[ \t]*\n[ \t]+))"
    r"([A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\([^()\n]*\))?)(?=[ \t]*(?:;|\{|\n[ \t]*\{))"
)
#: ... and after a parameter's name: ``T&& value ABSL_INTERNAL_ATTRIBUTE_CAPTURED_BY(this))``
_C_AFTER_PARAMETER_NAME = re.compile(
    r"[A-Z](?<=\w[ \t][A-Z])[A-Z0-9]*_[A-Z0-9_]*(?:\([^()\n]*\))?(?=[ \t]*[),])"
)
#: ... and a qualifier macro between a pointer's or reference's `*`/`&` and the
#: declarator's name: ``Status* absl_nonnull Create(..)``, ``T* _Nullable next;``.
#: Nothing but ``const``, ``volatile`` and ``restrict`` may stand there.
_C_POINTER_QUALIFIER = re.compile(
    r"([*&][ \t]*)(?!(?:const|volatile|restrict|operator|noexcept)\b)"
    r"([A-Za-z_]\w*)(?=[ \t]+(?:const[ \t]+)?[A-Za-z_~][\w:~]*[ \t]*[(;,)=\[{])"
)
#: C++ the grammar does not know and that ends its reading of a file: an explicit
#: instantiation declaration (``extern template Status MakeErrorImpl<0>(..);``, read
#: without its two words as the declaration it instantiates), and explicit template
#: arguments after an operator's name (``return operator<< <char>(v);``).
_CPP_EXTERN_TEMPLATE = re.compile(r"(?m)^[ \t]*(extern[ \t]+template)\b")
_CPP_OPERATOR_ARGUMENTS = re.compile(r"(operator[^\w\s(]{1,3})([ \t]*<[^<>()\n;{}]*>)(?=[ \t]*\()")
#: ... and a statement label just before a preprocessor line (``add_ciphers:`` then
#: ``#endif``): a label must label a statement, and the grammar lost the function.
_C_LABEL_BEFORE_DIRECTIVE = re.compile(r":[ \t]*\n[ \t]*#")
_C_LABEL = re.compile(r"[ \t]*(?!(?:public|private|protected|default)\b)[A-Za-z_]\w*[ \t]*")
#: ... and a macro called as a statement at the start of a line, outside any function
#: (``ABSL_FLAG(int, retries, 3, "help");``, ``DEFINE_FLAG(bool, true, kName);``):
#: type names and literals as arguments read as nothing the grammar knows, and it lost
#: the rest of the file. The whole call is blanked; it defines nothing a chunk is named
#: for.
_C_MACRO_STATEMENT = re.compile(r"(?m)^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\(")
#: ... and ``typename`` before a dependent type's value passed as an argument
#: (abseil's ``f(n, typename T::size_type{0})``): a bogus function and lost nesting.
_CPP_TYPENAME_VALUE = re.compile(
    r"typename(?:(?<=[(,]typename)|(?<=[(,][ \t]typename))(?=[ \t]+[\w:<>]+[{(])"
)
#: ... and Microsoft's calling conventions (``extern "C" int __stdcall F();``): the
#: grammar took the namespace after such a declaration for the function's body.
_C_CALLING_CONVENTION = re.compile(r"__(?:stdcall|cdecl|fastcall|thiscall|vectorcall)\b")
#: ... and the `;` after an overriding member's empty body (``void flush_() override{};``):
#: with it, the member read as a field with a brace initializer.
_CPP_EMPTY_OVERRIDE = re.compile(
    r"\)(?:[ \t]*(?:const|noexcept))*[ \t]*(?:override|final)[ \t]*\{\}[ \t]*(;)"
)
#: ... but not a name the file declares as a type (flex's ``typedef struct yy_buffer_state
#: *YY_BUFFER_STATE;``, ``#define YYPTRDIFF_T long``): before a name it is the type.
_C_TYPEDEF_NAME = re.compile(r"typedef\b[^;{}]*?\b([A-Z][A-Z0-9]*_[A-Z0-9_]*)[ \t]*;")
_C_DEFINED_TYPE_NAME = re.compile(
    r"#[ \t]*define[ \t]+([A-Z][A-Z0-9]*_[A-Z0-9_]*)[ \t]+"
    r"(?:(?:const|unsigned|signed|struct|enum)[ \t]+)*"
    r"(?:void|int|char|long|short|float|double|[a-z_]\w*_t|struct[ \t]+\w+)\b[ \t*]*$",
    re.M,
)
#: ... and a specifier macro that ends its line after a type, before the declarator on
#: the next line (``void SPDLOG_INLINE`` / ``base_sink<Mutex>::log(..)``): the macro was
#: taken for the function's name. Lines that end so are found first (fast), then read
#: whole.
_C_ENDS_WITH_MACRO = re.compile(r"_[A-Z0-9_]*[ \t]*\n(?=[ \t]*[A-Za-z_~])")
_C_SPECIFIER_AT_END = re.compile(
    r"([ \t]*(?:template[ \t]*<[^\n]*>[ \t]*)?(?:[A-Za-z_][\w:<>,*&]*[ \t]+)+)"
    r"([A-Z][A-Z0-9]*_[A-Z0-9_]*)[ \t]*(?=\n)"
)
#: Words before such a macro that are not a type: with only these, the macro is the type
#: (``static YYPTRDIFF_T`` / ``yystrlen (..)``).
_C_QUALIFIERS = frozenset(
    {"static", "inline", "extern", "const", "constexpr", "virtual", "explicit", "volatile"}
    | {"friend", "template", "typedef", "register"}
)
#: A C string literal on one line.
C_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
#: Preprocessor lines, with their continuations: left as they are.
_C_DIRECTIVE = re.compile(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*")


#: A line that ends so leaves its expression open: a name alone on the next line is a
#: value (``ver_min =`` / ``#ifdef X`` / ``MBEDTLS_SSL_VERSION_TLS1_2``), not a macro.
_OPEN_EXPRESSION = ("=", "(", ",", "?", "|", "&", "+", "-", "*", "/", "return")


def _after_word(replace: Callable[[re.Match[str]], str]) -> Callable[[re.Match[str]], str]:
    """``replace`` for a match that starts a word (``if``, ``operator``), else the match
    as it is: the patterns start with their word, not with a slow look-behind."""

    def replacement(match: re.Match[str]) -> str:
        start = match.start()
        if start and (match.string[start - 1].isalnum() or match.string[start - 1] == "_"):
            return match.group(0)
        return replace(match)

    return replacement


def _blank_labels_before_directives(text: str) -> str:
    spans = []
    for match in _C_LABEL_BEFORE_DIRECTIVE.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if _C_LABEL.fullmatch(text, start, match.start()):
            spans.append((start, match.start() + 1))
    return blank_spans(text, spans)


def _blank_macro_statements(text: str) -> str:
    """Each call is read once: a call that starts inside the text an earlier one scanned
    is skipped, so that a file of unclosed calls costs one pass, not one per line."""
    spans: list[tuple[int, int]] = []
    scanned = 0
    for match in _C_MACRO_STATEMENT.finditer(text):
        if match.start() < scanned:
            continue
        close, scanned = _closing_parenthesis(text, match.end() - 1)
        if close is None:
            continue
        end = close + 1
        while end < len(text) and text[end] in " \t":
            end += 1
        if text.startswith(";", end):
            spans.append((match.start(), end + 1))
    return blank_spans(text, spans)


def _closing_parenthesis(text: str, open_at: int, limit: int = 2000) -> tuple[int | None, int]:
    """(where the ``)`` closing the ``(`` at ``open_at`` is, or None, where the scan
    stopped): strings are skipped; the scan gives up after ``limit`` characters or at a
    ``;`` outside braces."""
    depth, braces, at, end = 0, 0, open_at, min(len(text), open_at + limit)
    while at < end:
        char = text[at]
        if char == '"':
            literal = C_STRING.match(text, at)
            at = literal.end() if literal is not None else at + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return at, at + 1
        elif char == "{":
            braces += 1
        elif char == "}":
            braces -= 1
        elif char == ";" and braces <= 0:
            return None, at
        at += 1
    return None, at


def _continues(text: str, at: int) -> bool:
    """Whether the code line before ``at`` leaves an expression open."""
    return _code_before(text, at).endswith(_OPEN_EXPRESSION)


def _code_before(text: str, at: int) -> str:
    """The code line before ``at``, past blank and preprocessor lines."""
    end = at
    while end > 0:
        start = text.rfind("\n", 0, end - 1) + 1
        line = _code_on_line(text[start:end])
        if line and not line.startswith("#"):
            return line
        end = start
    return ""


def _code_on_line(line: str) -> str:
    """A line without its comments (as far as one line tells), stripped."""
    line = line.strip()
    if line.startswith(("//", "/*", "*")):
        return ""
    if line.endswith("*/") and "/*" in line:
        line = line[: line.rfind("/*")].rstrip()
    if " //" in line:
        line = line[: line.index(" //")].rstrip()
    return line


#: A macro standing for a keyword before a block, indented inside a function:
#: ``SPDLOG_TRY {``, ``FMT_TRY {`` (``try`` when exceptions are on, nothing when off).
#: The grammar reads it as an expression and loses the rest of the file.
_C_BLOCK_MACRO = re.compile(r"(?m)^[ \t]+([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]*\{)")


def _blank_c_macros(text: str) -> str:
    """Substitutions that keep every offset, then the preprocessor lines put back."""
    if "_" not in text:
        return text
    types = {*_C_TYPEDEF_NAME.findall(text), *_C_DEFINED_TYPE_NAME.findall(text)}
    alone = _C_ALONE.sub(lambda m: m.group(0) if _continues(text, m.start()) else spaces(m), text)
    specifiers = _C_SPECIFIER.sub(_unless(types), alone)
    out = _C_AFTER_IF.sub(_after_word(lambda m: "if " + " " * len(m.group(1))), specifiers)
    out = _C_AFTER_PARAMETERS.sub(lambda m: ")" + m.group(1) + " " * len(m.group(2)), out)
    out = _C_AFTER_PARAMETER_NAME.sub(spaces, out)
    out = _blank_macro_statements(out)
    if "{" in out:
        out = _C_BLOCK_MACRO.sub(blank_group, out)
    out = _blank_labels_before_directives(out)
    if "extern template" in out:
        out = _CPP_EXTERN_TEMPLATE.sub(
            lambda m: m.group(0).replace(m.group(1), " " * len(m.group(1))), out
        )
    if "operator" in out:
        out = _CPP_OPERATOR_ARGUMENTS.sub(
            _after_word(lambda m: m.group(1) + " " * len(m.group(2))), out
        )
    if "* " in out or "& " in out:
        out = _C_POINTER_QUALIFIER.sub(lambda m: m.group(1) + " " * len(m.group(2)), out)
    if "__" in out:
        out = _C_CALLING_CONVENTION.sub(_after_word(spaces), out)
    if "typename" in out:
        out = _CPP_TYPENAME_VALUE.sub(spaces, out)
    out = _blank_specifiers_at_end(out, types)
    if "{};" in out:
        out = _CPP_EMPTY_OVERRIDE.sub(blank_group, out)
    parts, at, code = [], 0, ""
    for directive in _C_DIRECTIVE.finditer(text):
        code = _code_before(text[at : directive.start()], directive.start() - at) or code
        parts += [out[at : directive.start()], _directive(directive.group(0), code)]
        at = directive.end()
    if not at and out == text:
        return text
    parts.append(out[at:])
    return "".join(parts)


def _unless(types: set[str]) -> Callable[[re.Match[str]], str]:
    """Blanks a macro's match, unless the file declares it as a type; a macro whose
    argument is the return type of the function it stands before keeps the argument."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) in types:
            return match.group(0)
        argument = _C_TYPE_ARGUMENT.search(match.group(0))
        if argument is None or not _C_NAME_CALLED.match(match.string, match.end()):
            return spaces(match)
        start, end = argument.span(1)
        return " " * start + argument.group(1) + " " * (len(match.group(0)) - end)

    return replace


#: ... as cJSON's ``CJSON_PUBLIC(cJSON *) cJSON_Parse(const char *value)`` does: a type
#: (names, ``*``, ``&``, ``::``, template brackets) in the macro's parentheses, then one
#: name and its ``(``. Without its type the function read as a call and went unnamed.
_C_TYPE_ARGUMENT = re.compile(r"\(([\w \t*&:<>,]*\w[\w \t*&:<>,]*)\)$")
_C_NAME_CALLED = re.compile(r"[ \t]+[A-Za-z_]\w*[ \t]*\(")


def _blank_specifiers_at_end(text: str, types: set[str]) -> str:
    """Each macro ending a line is blanked when a type stands before it on that line."""
    spans = []
    for hit in _C_ENDS_WITH_MACRO.finditer(text):
        start = text.rfind("\n", 0, hit.start()) + 1
        line = _C_SPECIFIER_AT_END.match(text, start)
        if line is None or line.end() != hit.end() - 1 or line.group(2) in types:
            continue
        before = re.sub(r"template[ \t]*<[^\n]*>", "", line.group(1))
        if any(word not in _C_QUALIFIERS for word in re.findall(r"[A-Za-z_][\w:]*", before)):
            spans.append(line.span(2))
    return blank_spans(text, spans)


#: Directives that define no code of their own, and the end of the code line before
#: one that shows it stands inside an initializer list.
_C_PLAIN_DIRECTIVE = re.compile(r"[ \t]*#[ \t]*(?:define|undef|include)\b")
_INITIALIZER_OPEN = re.compile(r"(?:,|=[ \t]*\{)$")
#: A block comment that opens and closes on one line.
_C_LINE_COMMENT_BLOCK = re.compile(r"/\*[^\n]*?\*/")


def _directive(line: str, code_before: str) -> str:
    """A preprocessor line as it is, but for two forms the grammar cannot read:
    ``#define``, ``#undef`` or ``#include`` inside an initializer list (jq's table of
    builtins defines and undefines a macro between its entries: the grammar read a string
    from there on and lost the functions after the table), blanked; and block comments
    on the lines of a directive continued over lines (``/*YYERROR*/;   \\``: the grammar
    ended the macro there and lost the function after it), blanked."""
    if (
        _C_PLAIN_DIRECTIVE.match(line)
        and _INITIALIZER_OPEN.search(code_before)
        and ("/*" not in line or "*/" in line.rsplit("/*", 1)[1])  # no comment running on
    ):
        return blank(line)
    if "/*" not in line or "\\\n" not in line:
        return line
    return _C_LINE_COMMENT_BLOCK.sub(spaces, line)


#: Catch2's and doctest's test cases name themselves with strings (``TEST_CASE("vectors
#: resize", "[vector]") {``), which the grammar cannot read as a declarator's parameters:
#: the test became a call and a loose block. Each string literal in such a line's
#: arguments is turned into an identifier of the same length (``_vectors_resize_``), so
#: the line reads as gtest's ``TEST(Suite, Name) {`` does; the test's name is read from
#: the file itself (``treesitter.catch_test_name``).
CATCH_MACROS = ("TEST_CASE", "TEST_CASE_METHOD", "TEST_CASE_FIXTURE", "SCENARIO")
CATCH_TEST = re.compile(
    rf"(?m)^[ \t]*(?:{'|'.join(CATCH_MACROS)})[ \t]*\(((?:[^()\n]|\([^()\n]*\))*)\)"
    r"(?=[ \t]*(?:\{|$))"
)


def _identifier(match: re.Match[str]) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", match.group(0))


def _catch_tests(text: str) -> str:
    if "TEST_CASE" not in text and "SCENARIO" not in text:
        return text

    def as_identifiers(match: re.Match[str]) -> str:
        start = match.start(1) - match.start(0)
        arguments = C_STRING.sub(_identifier, match.group(1))
        return match.group(0)[:start] + arguments + match.group(0)[start + len(arguments) :]

    return CATCH_TEST.sub(as_identifiers, text)


#: A macro wrapping a whole function header, at the start of a line (libuv's
#: ``HEAP_EXPORT(void heap_init(struct heap* heap)) {``, ``UV_UNUSED(static void
#: uv__update_time(..)) {``): the function went unnamed. The macro's name with its ``(``
#: and the ``)`` closing it are blanked when a ``{`` follows. (Searched from a line
#: break: the scan skips ahead.)
_C_WRAPPING_MACRO = re.compile(
    r"\n([A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]*\()(?=[ \t]*(?:(?:static|inline|extern|const|struct"
    r"|unsigned|signed|enum|union)[ \t]+)*[A-Za-z_]\w*[ \t*]+[A-Za-z_]\w*[ \t]*\()"
)
_BODY_NEXT = re.compile(r"[ \t]*\n?[ \t]*\{")


def _unwrap_headers(text: str) -> str:
    spans: list[tuple[int, int]] = []
    lined = "\n" + text  # (a header on the first line is found too)
    for match in _C_WRAPPING_MACRO.finditer(lined):
        close, _ = _closing_parenthesis(lined, match.end(1) - 1)
        if close is not None and _BODY_NEXT.match(lined, close + 1):
            spans += [(match.start(1) - 1, match.end(1) - 1), (close - 1, close)]
    return blank_spans(text, spans)


def rewrite_c(text: str) -> str:
    return one_configuration(_blank_c_macros(_catch_tests(_unwrap_headers(text))))
