"""What the grammar reads: a copy of the file with constructs it cannot parse blanked.

Each rewrite keeps every offset (same length, same line breaks), so nodes map back to the
file's own lines; chunk text always comes from the file itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice

from .c_conditionals import one_configuration
from .literate import literate_haskell

#: tree-sitter-kotlin reads a statement that starts with a variable named ``where``,
#: ``final``, ``by``, ``set``, ``get``, ``open`` or another modifier (``where?.let {
#: ... }``, ``final = true``, ``by.write(..)``, okhttp's ``set = set or bit`` after a
#: ``val``, ``open = isOpen``) as a type-constraint clause, an accessor or a modifier,
#: and loses the rest of the file. None of those is followed by an assignment, ``?.``,
#: ``.`` or ``++``. (Searched from a line break: the scan skips ahead.)
_KOTLIN_SOFT_KEYWORD = re.compile(
    r"\n[ \t]*+(?:[gs]et|open|override|private|public|protected|internal|inline|abstract"
    r"|sealed|lateinit|const|external|operator|infix|tailrec|actual|expect|data|inner|value"
    r"|enum|annotation|crossinline|noinline|vararg|reified|companion|where|final|by)"
    r"(?=[ \t]*(?:[-+*/%]?=(?!=)|\?\.|\.|\+\+|--))"
)
#: ... and a statement that starts with a name of ``in`` or ``as`` and a digit
#: (``in1.close()`` in okhttp's tests) as that keyword continuing the line before; a
#: ``when`` branch ``in1..3 ->`` keeps its keyword.
_KOTLIN_KEYWORD_DIGIT = re.compile(
    r"\n[ \t]*+(?:in|as)(?=\d\w*(?:\.(?!\.)|\(|\[|[ \t]*[-+*/%]?=(?!=)))"
)
#: ... and Kotlin/JS's ``dynamic`` passed as a value (``jsTypeOf(dynamic)``) as the type.
_KOTLIN_DYNAMIC_VALUE = re.compile(r"dynamic(?<![\w.]dynamic)(?=[ \t]*[,)])")
#: ... a call ``get(copy)`` on the line after a ``val`` as that property's getter (a
#: getter takes no arguments, so a call with some is renamed).
_KOTLIN_GET_CALL = re.compile(r"(?m)^[ \t]*get(?=\((?!\s*\)))")
#: ... a platform modifier on a primary constructor on the line after its class
#: (``actual open class ByteString`` then ``internal actual constructor(..)``, Kotlin
#: Multiplatform) as junk, losing every member: the modifier is blanked.
_KOTLIN_PLATFORM_CONSTRUCTOR = re.compile(
    r"(?m)^[ \t]*(?:(?:public|internal|private|protected)[ \t]+)?(actual|expect)"
    r"(?=[ \t]+constructor\b)"
)
#: ... and a name ``suspend`` (a named argument ``suspend = { .. }``, ``val suspend``)
#: as the start of a suspending function type.
_KOTLIN_SUSPEND_NAME = re.compile(r"\bsuspend(?=[ \t]*(?:=(?!=)|\?\.|\.|,|\)|:))")
#: Kotlin 2's guard conditions on ``when`` branches (``is Column<*> if isEntityId() ->``,
#: ``else if ready ->``) are unknown to the grammar, which then loses the rest of the
#: file. The guard, from its ``if`` to the branch's ``->``, is blanked; it may span lines
#: inside brackets, but holds no ``{`` or line break outside them.
_KOTLIN_GUARD = re.compile(r"(?m)^[ \t]*(?:!?is|!?in|else)\b(?:(?!->)[^\n{}])*?[ \t](if)\b")
_GUARD_MAX_CHARS = 600
#: An annotated getter or setter of a property declared without a type (``val id`` then
#: ``@OptIn(X::class) get() = ..``) loses the rest of the file too: the annotation is
#: blanked.
_KOTLIN_ACCESSOR_ANNOTATION = re.compile(
    r"@[\w.]+(?![\w.])(?:\((?:[^()\n]|\([^()\n]*\))*\))?(?=\s*[gs]et[ \t]*\()"
)
#: ... and so does an annotated primary constructor on the line after its class
#: (``value class Result<T>`` then ``@PublishedApi internal constructor(..)``).
_KOTLIN_CONSTRUCTOR_ANNOTATION = re.compile(
    r"@[\w.]+(?![\w.])(?:\([^()\n]*\))?(?=[ \t]+(?:(?:public|internal|private|protected)"
    r"[ \t]+)?constructor\b)"
)

#: ... and an infix call ``get`` after an expression (Exposed's ``Table.insert { .. } get
#: Table.id``) as that property's getter: a getter is ``get(`` or ``get`` at the end of
#: its line, an infix ``get`` has an operand after a space.
_KOTLIN_INFIX_GET = re.compile(r"get(?<=[\w)\]}][ \t]get)(?=[ \t]+[\w(\"'`])")
#: ... and a suspending lambda (``suspend { .. }.startCoroutine(..)``).
_KOTLIN_SUSPEND_LAMBDA = re.compile(r"suspend(?<![\w.]suspend)(?=[ \t]*\{)")
#: Kotlin 2.2 context parameters (``context(_: Scope)`` before a declaration, and
#: ``context(Scope)`` in a function type): the grammar lost the rest of the file.
_KOTLIN_CONTEXT = re.compile(
    r"(?m)^[ \t]*(context[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))(?=\s*(?:@[\w.]+(?:\([^()\n]*\))?\s+)*"
    r"(?:(?:public|private|internal|protected|override|suspend|inline|operator|infix|open"
    r"|abstract|final|tailrec|actual|expect)\s+)*(?:fun|val|var|class|interface|object)\b)"
)
_KOTLIN_CONTEXT_TYPE = re.compile(
    r"(?<=:[ \t])context[ \t]*\((?:[^()\n]|\([^()\n]*\))*\)(?=[ \t]+[\w(@])"
)
#: Kotlin 2.2 multi-dollar strings (``$$"${literal} $$interpolated"``): the prefix is
#: unknown to the grammar, and ``${`` inside is text; the prefix and the string's content
#: are blanked, its quotes kept.
_KOTLIN_MULTI_DOLLAR = re.compile(r'(?<![\w$])\$\$+("""[\s\S]*?"""(?!")|"(?:[^"\\\n]|\\.)*")')
#: Two or more annotations before a class with neither constructor nor supertype
#: (``@Component`` / ``@Transactional`` / ``class UserService {``) read as an annotated
#: expression, without a parse error: the class was lost and its methods became
#: top-level functions. The annotations after the first are blanked, so the class still
#: starts at its first one. (Searched from a line break: the scan skips ahead.)
_KOTLIN_ANNOTATION = r"@[\w.:]+(?:\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?"
_KOTLIN_ANNOTATIONS_BEFORE_CLASS = re.compile(
    r"\n" + _KOTLIN_ANNOTATION + r"((?:[ \t]*\n?[ \t]*" + _KOTLIN_ANNOTATION + r")+)"
    r"(?=\s+(?:(?:public|internal|private|protected|open|abstract|final|data|sealed|enum"
    r"|annotation|value|inline|inner|expect|actual)\s+)*(?:class|interface|object)\b)"
)


def _plain_string(match: re.Match[str]) -> str:
    """A multi-dollar string as a plain one of the same length, its content blanked."""
    literal = match.group(1)
    quotes = 3 if literal.startswith('"""') else 1
    body = re.sub(r"[^\n]", " ", literal[quotes:-quotes])
    return " " * (match.start(1) - match.start(0)) + '"' * quotes + body + '"' * quotes


def _rewrite_kotlin(text: str) -> str:
    text = _KOTLIN_SOFT_KEYWORD.sub(_renamed, "\n" + text)[1:]
    text = _KOTLIN_KEYWORD_DIGIT.sub(_renamed, "\n" + text)[1:]
    if "dynamic" in text:
        text = _KOTLIN_DYNAMIC_VALUE.sub(_renamed, text)
    text = _KOTLIN_GET_CALL.sub(_renamed, text)
    if " get " in text:
        text = _KOTLIN_INFIX_GET.sub(_renamed, text)
    if '$$"' in text:
        text = _KOTLIN_MULTI_DOLLAR.sub(_plain_string, text)
    if "context(" in text or "context (" in text:
        text = _KOTLIN_CONTEXT.sub(_blank_group, text)
        text = _KOTLIN_CONTEXT_TYPE.sub(_spaces, text)
    if "actual" in text or "expect" in text:
        text = _KOTLIN_PLATFORM_CONSTRUCTOR.sub(_blank_group, text)
    if "suspend" in text:
        text = _KOTLIN_SUSPEND_NAME.sub(_renamed, text)
        text = _KOTLIN_SUSPEND_LAMBDA.sub(_renamed, text)
    if "@" in text:
        text = _KOTLIN_ACCESSOR_ANNOTATION.sub(_spaces, text)
        text = _KOTLIN_CONSTRUCTOR_ANNOTATION.sub(_spaces, text)
        text = _KOTLIN_ANNOTATIONS_BEFORE_CLASS.sub(_blank_group_lines, "\n" + text)[1:]
    if " if" not in text:
        return text
    spans: list[tuple[int, int]] = []
    for match in _KOTLIN_GUARD.finditer(text):
        start = match.start(1)
        end = _guard_end(text, start + 2)
        if end is not None and (not spans or start >= spans[-1][1]):
            spans.append((start, end))
    return _blank_spans(text, spans)


def _guard_end(text: str, at: int) -> int | None:
    """Where the ``->`` closing a guard starts, or None when this is no guard."""
    depth = 0
    for index in range(at, min(len(text), at + _GUARD_MAX_CHARS)):
        char = text[index]
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0 and char in "{}\n":
            return None
        elif depth == 0 and text.startswith("->", index):
            return index
    return None


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


def _spaces(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _blank_group(match: re.Match[str]) -> str:
    """The match with its first group blanked."""
    start, end = match.span(1)
    whole = match.group(0)
    offset = match.start(0)
    return whole[: start - offset] + " " * (end - start) + whole[end - offset :]


def _blank_group_lines(match: re.Match[str]) -> str:
    """The match with its first group blanked, line breaks kept."""
    start, end = match.start(1) - match.start(0), match.end(1) - match.start(0)
    whole = match.group(0)
    return whole[:start] + re.sub(r"[^\n]", " ", whole[start:end]) + whole[end:]


def _renamed(match: re.Match[str]) -> str:
    """A keyword used as a name, its last letter in capitals (``wherE``, ``geT``): a name
    of the same length the grammar does not take for the keyword."""
    return match.group(0)[:-1] + match.group(0)[-1].upper()


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the (ordered, disjoint) spans blanked, their line breaks kept."""
    if not spans:
        return text
    parts, at = [], 0
    for start, end in spans:
        parts += [text[at:start], re.sub(r"[^\n]", " ", text[start:end])]
        at = end
    return "".join([*parts, text[at:]])


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
    return _blank_spans(text, spans)


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
    return _blank_spans(text, spans)


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
    alone = _C_ALONE.sub(lambda m: m.group(0) if _continues(text, m.start()) else _spaces(m), text)
    specifiers = _C_SPECIFIER.sub(_unless(types), alone)
    out = _C_AFTER_IF.sub(_after_word(lambda m: "if " + " " * len(m.group(1))), specifiers)
    out = _C_AFTER_PARAMETERS.sub(lambda m: ")" + m.group(1) + " " * len(m.group(2)), out)
    out = _C_AFTER_PARAMETER_NAME.sub(_spaces, out)
    out = _blank_macro_statements(out)
    if "{" in out:
        out = _C_BLOCK_MACRO.sub(_blank_group, out)
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
        out = _C_CALLING_CONVENTION.sub(_after_word(_spaces), out)
    if "typename" in out:
        out = _CPP_TYPENAME_VALUE.sub(_spaces, out)
    out = _blank_specifiers_at_end(out, types)
    if "{};" in out:
        out = _CPP_EMPTY_OVERRIDE.sub(_blank_group, out)
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
    """Blanks a macro's match, unless the file declares it as a type."""
    return lambda match: match.group(0) if match.group(0) in types else _spaces(match)


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
    return _blank_spans(text, spans)


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
        return re.sub(r"[^\n]", " ", line)
    if "/*" not in line or "\\\n" not in line:
        return line
    return _C_LINE_COMMENT_BLOCK.sub(_spaces, line)


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
    return _blank_spans(text, spans)


def _rewrite_c(text: str) -> str:
    return one_configuration(_blank_c_macros(_catch_tests(_unwrap_headers(text))))


#: Rust crates gate items behind configuration macros of their own (tokio's
#: ``cfg_rt! { pub fn spawn(..) { .. } }``): the grammar keeps a macro's body as tokens,
#: so nothing inside is a definition. The wrapper (``cfg_rt! {`` and its ``}``) is blanked
#: when it stands alone on its lines; ``cfg_if!`` has a syntax of its own and stays.
_RUST_CFG_WRAPPER = re.compile(r"(?m)^[ \t]*((?:cfg_(?!if\b)\w+|feature)![ \t]*\{)[ \t]*$")
_RUST_BRACES = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\\\'])\'|[{}]', re.S)


#: ... when its body is items. Some have arms of their own (tokio's
#: ``cfg_metrics_variant! { stable: { .. }, unstable: { .. } }``), which read as nothing
#: once the wrapper is gone and cost the grammar the rest of the file: as with a C
#: conditional group, the first arm's items are kept and the other arms blanked.
_RUST_ITEM_START = re.compile(
    r"[ \t\n]*(?:#|//|/\*|\}|(?:pub|fn|async|const|static|struct|enum|union|impl|trait"
    r"|type|mod|use|extern|unsafe)\b|macro_rules!|\w+![ \t]*[({\[])"
)
_RUST_ARM = re.compile(r"[ \t\n]*(\w+[ \t]*:[ \t]*\{)")
_RUST_ARM_END = re.compile(r"[ \t\n]*,")


def _rewrite_rust(text: str) -> str:
    if "cfg_" not in text and "feature!" not in text:  # tokio's feature! { #![unix] .. }
        return text
    wrappers = list(_RUST_CFG_WRAPPER.finditer(text))
    if not wrappers:
        return text
    pairs = _brace_pairs(text)
    spans = []
    for match in wrappers:
        close = pairs.get(match.end(1) - 1)
        if close is None or text[close + 1 : close + 2] not in ("", "\n", "\r", " "):
            continue
        if _RUST_ITEM_START.match(text, match.end(0)):
            arms: list[tuple[int, int]] | None = []
        else:
            arms = _first_arm_only(text, match.end(0), close, pairs)
        if arms is not None:
            spans += [(match.start(1), match.end(1)), *arms, (close, close + 1)]
    return _blank_spans(text, sorted(spans))


def _first_arm_only(
    text: str, at: int, close: int, pairs: dict[int, int]
) -> list[tuple[int, int]] | None:
    """The spans to blank in a body of arms (``name: { .. },`` up to ``close``) so that
    the first arm's items remain; None when the body is not arms."""
    spans: list[tuple[int, int]] = []
    while (arm := _RUST_ARM.match(text, at)) is not None and arm.start(1) < close:
        end = pairs.get(arm.end(1) - 1)
        if end is None or end >= close:
            return None
        comma = _RUST_ARM_END.match(text, end + 1)
        after = comma.end() if comma is not None else end + 1
        if spans:
            spans.append((arm.start(1), after))
        else:
            spans += [(arm.start(1), arm.end(1)), (end, after)]
        at = after
    return spans if spans and not text[at:close].strip() else None


def _brace_pairs(text: str) -> dict[int, int]:
    """Where the ``}`` closing each ``{`` is, in one pass over the file, skipping
    comments, strings and character literals (a lifetime's ``'a`` is no literal): a file
    of unclosed wrappers costs one pass, not one per wrapper."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for token in _RUST_BRACES.finditer(text):
        if token.group(0) == "{":
            opened.append(token.start())
        elif token.group(0) == "}" and opened:
            pairs[opened.pop()] = token.start()
    return pairs


#: tree-sitter-c-sharp cannot read a pointer cast (``*(int*)(pDst + 4) = *(int*)(pSrc +
#: 4);`` in unsafe code), nor the dereference before it, and loses the methods after it
#: (MessagePack's ``UnsafeMemory.cs``: 9 of 52 methods found). Both are blanked.
_CSHARP_POINTER_CAST = re.compile(
    r"\*?\([ \t]*[A-Za-z_][\w.]*(?:<[^<>()\n]*>)?[ \t]*\*+[ \t]*\)(?=[ \t]*[\w(&*])"
)


#: C# 11's ``ref partial struct`` (the grammar knows ``partial ref struct``): the struct
#: was read as a method named ``struct`` and its members were lost.
_CSHARP_REF_PARTIAL = re.compile(r"ref(?<!\wref)([ \t]+)partial(?=[ \t]+struct\b)")


def _rewrite_csharp(text: str) -> str:
    """Pointer casts blanked, ``ref partial`` written in the order the grammar knows, and
    conditional groups the grammar cannot read (``#if`` between a signature and its
    ``=>`` body) kept to their first branch, as in C."""
    text = _CSHARP_POINTER_CAST.sub(_spaces, text) if "*)" in text else text
    if "ref" in text:
        text = _CSHARP_REF_PARTIAL.sub(lambda m: "partial" + m.group(1) + "ref", text)
    return one_configuration(text)


#: A parameter expansion that is not a bare ``${name}`` (``${x:-a}``, ``"${out:+${out};}1"``,
#: zsh's ``${(f)"$(cmd)"}``, ``${+commands[x]}``, ``${branch:gs/%/%%}``), read as
#: ``${xxxx}``, innermost first: tree-sitter-bash misread many of them and lost every
#: function after; no definition lives inside one.
_BASH_EXPANSION = re.compile(r"\$\{(?![A-Za-z_]\w*\})((?:[^{}\n]|\$\{x*\}|\{[^{}\n]*\})*)\}")
#: zsh's ``$+name`` (is it set): ``(( $+commands[rg] ))``.
_ZSH_PLUS = re.compile(r"\$\{?\+(?=[A-Za-z_])")
#: zsh's unbraced subscript (``$commands[kn]``, ``$words[2]``), read as one word.
_ZSH_SUBSCRIPT = re.compile(r"\$[A-Za-z_]\w*\[[^\[\]\s\"'`]{1,60}\]")
#: zsh's glob qualifiers (``*(N)``, ``*.cabal(N)``, ``*(:t)``), read as a word.
_ZSH_GLOB_QUALIFIER = re.compile(r"\((?<=[*?\]]\()[^\s()|<>;&\"'`$]{1,20}\)(?=[\s);}\"]|$)")
#: zsh's ``{ cmd }`` closed without a ``;`` (``function gdv() { git diff | view - }``):
#: bash nests every later function in it; read as ``{ cmd;}``.
_ZSH_BRACE_CLOSE = re.compile(
    r"\{[ \t](?:[^\n{}]|\$\{[^\n{}]*\})*?[^;&\s{}\\]([ \t]+)\}(?=[ \t]*(?:#[^\n]*)?\n)"
)


def _rewrite_bash(text: str) -> str:
    """Shell forms tree-sitter-bash misreads, each of which lost the functions after it:
    expansions with operators or zsh flags, and zsh's ``$+name``, subscripts, glob
    qualifiers and braces closed without ``;`` (``.zsh`` files are read as bash)."""
    if "${" in text:
        while (rewritten := _BASH_EXPANSION.sub(_x_expansion, text)) != text:
            text = rewritten
    if "$+" in text or "${+" in text:
        text = _ZSH_PLUS.sub(lambda m: m.group(0)[:-1] + "_", text)
    if "[" in text:
        text = _ZSH_SUBSCRIPT.sub(_subscript_word, text)
    if "(" in text:
        text = _ZSH_GLOB_QUALIFIER.sub(lambda m: "_" + m.group(0)[1:-1] + "_", text)
    if " }" in text:
        text = _ZSH_BRACE_CLOSE.sub(lambda m: m.group(0)[: m.end(1) - m.start(0) - 1] + ";}", text)
    return text


def _x_expansion(match: re.Match[str]) -> str:
    return "${" + "x" * len(match.group(1)) + "}"


def _subscript_word(match: re.Match[str]) -> str:
    """``$commands[kn]`` as ``$commands_kn_`` (same length)."""
    word = match.group(0)
    at = word.index("[")
    return word[:at] + "_" + word[at + 1 : -1] + "_"


#: A C preprocessor conditional line in a Haskell file (``{-# LANGUAGE CPP #-}``).
_HASKELL_CONDITIONAL = re.compile(r"(?m)^#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b.*$")


def _rewrite_haskell(text: str) -> str:
    """tree-sitter-haskell reads the first branch of an ``#if`` and skips the others, so
    a function defined only under ``#else`` (a fallback for older compilers) was lost.
    The conditional lines are blanked and every branch is read: in 46 such files of
    aeson, pandoc, xmonad and commonmark-hs none parses worse, and 13 more definitions
    are found. But a branch that continues a declaration (``#else`` then an indented
    ``where`` of an instance head) is an alternative to the first, not more code: both
    read together broke the declaration and lost those after it, so it is blanked. A
    literate file (``.lhs``) keeps only its code (``literate.py``)."""
    text = literate_haskell(text)
    if "'\\" in text:
        text = _HASKELL_ESCAPED_CHAR.sub(_plain_char, text)
    if "#" not in text or _HASKELL_CONDITIONAL.search(text) is None:
        return text
    return _HASKELL_CONDITIONAL.sub(_spaces, _blank_continuing_alternatives(text))


#: A character literal with an escape (``'\n'``, ``'\''``, ``'\160'``): the grammar's
#: scanner then took a later name with a prime (``spnl'``) for the start of a literal,
#: and lost the declarations between (pandoc's Markdown reader). Read as ``'x'``.
_HASKELL_ESCAPED_CHAR = re.compile(r"'\\(?:'|[^'\s]{1,8})'")


def _plain_char(match: re.Match[str]) -> str:
    """``'x'`` and spaces; a match that starts with a name's prime is left alone."""
    before = match.string[match.start() - 1] if match.start() else " "
    if before.isalnum() or before in "_'":
        return match.group(0)
    return "'x'" + " " * (len(match.group(0)) - 3)


#: A line that continues a declaration begun before it, not a binding of its own.
_HASKELL_CONTINUATION = re.compile(r"[ \t]+(?:where\b|deriving\b|=(?![=>])|\||::|->|,)")
_HASKELL_CPP_LINE = re.compile(r"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")


def _blank_continuing_alternatives(text: str) -> str:
    """``#else``/``#elif`` branches whose first code line continues a declaration,
    blanked (their directive lines kept, for the blanking after)."""
    lines = text.split("\n")
    blanking: list[bool] = []  # per open #if: is the current branch blanked?
    for number, line in enumerate(lines):
        found = _HASKELL_CPP_LINE.match(line)
        if found is None:
            if any(blanking):
                lines[number] = " " * len(line)
            continue
        word = found.group(1)
        if word.startswith("if"):
            blanking.append(False)
        elif word in ("elif", "else") and blanking:
            rest = islice(lines, number + 1, None)
            following = next((later for later in rest if later.strip()), "")
            blanking[-1] = _HASKELL_CONTINUATION.match(following) is not None
        elif word == "endif" and blanking:
            blanking.pop()
    return "\n".join(lines)


#: Swift's compile-time diagnostics among a type's members (``#warning("Bring back")``):
#: the grammar lost the type around them. They define nothing.
_SWIFT_DIAGNOSTIC = re.compile(
    r"(?m)^[ \t]*#(?:warning|error)[ \t]*\((?:[^()\n]|\([^()\n]*\))*\)[ \t]*$"
)


#: ``()`` alone as a statement (swift-nio's empty case, ``case .closed: ()``), read as
#: ``0 ``: the grammar takes no empty tuple there, nor an empty case.
_SWIFT_UNIT_STATEMENT = re.compile(r"\n([ \t]*+)\(\)(?=[ \t]*+(?://[^\n]*)?(?:\n|$))")
#: ``fallthrough`` alone in an ``#if`` branch, read as ``break`` (same length).
_SWIFT_FALLTHROUGH = re.compile(r"(?m)^([ \t]*)fallthrough(?=[ \t]*$)")
#: ``@Sendable func`` after a statement inside a ``case`` lost the rest of the type.
_SWIFT_SENDABLE_FUNC = re.compile(r"@Sendable(?=[ \t]+func\b)")
_SWIFT_DIRECTIVE = re.compile(r"[ \t]*#(if|elseif|else|endif)\b")


def _rewrite_swift(text: str) -> str:
    """Forms the Swift grammar cannot read among a type's members or a switch's cases,
    each of which lost the rest of the type (swift-nio, swift-composable-architecture)."""
    if "#warning" in text or "#error" in text:
        text = _SWIFT_DIAGNOSTIC.sub(_spaces, text)
    if "()" in text:
        text = _SWIFT_UNIT_STATEMENT.sub(lambda m: "\n" + m.group(1) + "0 ", "\n" + text)[1:]
    if "@Sendable" in text:
        text = _SWIFT_SENDABLE_FUNC.sub(_spaces, text)
    if "#if" in text:
        if "fallthrough" in text:
            text = _SWIFT_FALLTHROUGH.sub(lambda m: m.group(1) + "break      ", text)
        text = _read_swift_groups(text)
    return text


def _read_swift_groups(text: str) -> str:
    """The directive lines of ``#if`` groups the grammar cannot read, blanked so that
    every branch is read: groups around ``case`` clauses of a switch, and groups of
    attributes only (``#if X`` / ``@available(..)`` / ``#else`` / ``@available(..)``)."""
    lines = text.split("\n")
    # per open group: [around cases, its directive lines, attributes only, code lines]
    stack: list[list] = []
    blank: set[int] = set()
    for number, line in enumerate(lines):
        found = _SWIFT_DIRECTIVE.match(line) if "#" in line else None
        if found is None:
            code = line.strip()
            if stack and code and not code.startswith("//"):
                stack[-1][3] += 1
                stack[-1][2] = stack[-1][2] and code.startswith("@")
            continue
        word = found.group(1)
        if word == "if":
            following = _next_code(lines, number)
            around_cases = following.startswith(("case ", "case\t", "default:", "@unknown"))
            stack.append([around_cases, [number], True, 0])
        elif stack:
            stack[-1][1].append(number)
            if word == "endif":
                around_cases, directives, attributes_only, code_lines = stack.pop()
                if around_cases or (attributes_only and code_lines):
                    blank.update(directives)
                elif stack and code_lines:
                    stack[-1][3] += code_lines
                    stack[-1][2] = False
    if not blank:
        return text
    return "\n".join(
        " " * len(line) if number in blank else line for number, line in enumerate(lines)
    )


def _next_code(lines: list[str], number: int) -> str:
    """The next line of code after line ``number`` (within 20 lines), stripped."""
    for later in islice(lines, number + 1, number + 21):
        code = later.strip()
        if code and not code.startswith("//"):
            return code
    return ""


_PARSE_REWRITES: dict[str, Callable[[str], str]] = {
    "bash": _rewrite_bash,
    "haskell": _rewrite_haskell,
    "csharp": _rewrite_csharp,
    "kotlin": _rewrite_kotlin,
    "rust": _rewrite_rust,
    "c": _rewrite_c,
    "cpp": _rewrite_c,
    "swift": _rewrite_swift,
}


def parser_source(language: str, text: str) -> bytes:
    """The bytes the parser reads: the file, with its language's quirks rewritten."""
    rewrite = _PARSE_REWRITES.get(language)
    return (rewrite(text) if rewrite is not None else text).encode("utf-8")
