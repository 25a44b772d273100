"""Kotlin forms tree-sitter-kotlin misreads, rewritten in the parser's copy."""

from __future__ import annotations

import re

from .edits import blank, blank_group, blank_spans, renamed, spaces

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
#: ... and, inside a class body, a primary constructor on the line after its class
#: (moshi's ``public class Options`` then ``private constructor(..) {``) as a secondary
#: constructor of the outer class, leaving the nested class empty and its members
#: the outer class's. The line break after the class moves into the constructor's
#: brackets, where it means nothing: every later line keeps its place.
_KOTLIN_CONSTRUCTOR_NEXT_LINE = re.compile(
    r"(?m)^[ \t]*(?:(?:public|internal|private|protected|open|abstract|final|data|sealed"
    r"|inner|value|expect|actual)[ \t]+)*class[ \t]+\w+(?:<[^\n<>]*(?:<[^\n<>]*>[^\n<>]*)*>)?"
    r"[ \t]*(\n)[ \t]*(?:(?:public|internal|private|protected)[ \t]+)?constructor[ \t]*\("
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
    body = blank(literal[quotes:-quotes])
    return " " * (match.start(1) - match.start(0)) + '"' * quotes + body + '"' * quotes


def rewrite_kotlin(text: str) -> str:
    text = _KOTLIN_SOFT_KEYWORD.sub(renamed, "\n" + text)[1:]
    text = _KOTLIN_KEYWORD_DIGIT.sub(renamed, "\n" + text)[1:]
    if "dynamic" in text:
        text = _KOTLIN_DYNAMIC_VALUE.sub(renamed, text)
    text = _KOTLIN_GET_CALL.sub(renamed, text)
    if " get " in text:
        text = _KOTLIN_INFIX_GET.sub(renamed, text)
    if '$$"' in text:
        text = _KOTLIN_MULTI_DOLLAR.sub(_plain_string, text)
    if "context(" in text or "context (" in text:
        text = _KOTLIN_CONTEXT.sub(blank_group, text)
        text = _KOTLIN_CONTEXT_TYPE.sub(spaces, text)
    if "actual" in text or "expect" in text:
        text = _KOTLIN_PLATFORM_CONSTRUCTOR.sub(blank_group, text)
    if "constructor" in text:
        text = _constructor_on_class_line(text)
    if "suspend" in text:
        text = _KOTLIN_SUSPEND_NAME.sub(renamed, text)
        text = _KOTLIN_SUSPEND_LAMBDA.sub(renamed, text)
    if "@" in text:
        text = _KOTLIN_ACCESSOR_ANNOTATION.sub(spaces, text)
        text = _KOTLIN_CONSTRUCTOR_ANNOTATION.sub(spaces, text)
        text = _KOTLIN_ANNOTATIONS_BEFORE_CLASS.sub(blank_group, "\n" + text)[1:]
    if " if" not in text:
        return text
    spans: list[tuple[int, int]] = []
    for match in _KOTLIN_GUARD.finditer(text):
        start = match.start(1)
        end = _guard_end(text, start + 2)
        if end is not None and (not spans or start >= spans[-1][1]):
            spans.append((start, end))
    return blank_spans(text, spans)


def _constructor_on_class_line(text: str) -> str:
    """``_KOTLIN_CONSTRUCTOR_NEXT_LINE``: the class's line break becomes a space, and the
    first blank inside the constructor's brackets a line break (none there: unchanged)."""
    chars: list[str] | None = None
    for match in _KOTLIN_CONSTRUCTOR_NEXT_LINE.finditer(text):
        depth, at = 1, match.end()
        while at < len(text) and depth and text[at] not in " \t":
            depth += {"(": 1, ")": -1}.get(text[at], 0)
            at += 1
        if not depth or at >= len(text):
            continue
        chars = chars if chars is not None else list(text)
        chars[match.start(1)] = " "
        chars[at] = "\n"
    return text if chars is None else "".join(chars)


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
