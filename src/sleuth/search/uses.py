"""Where a name is used: the chunks that call it or name it, as written.

BM25 answers "where is parse_config called" badly: the definition says the name most,
and a call inside a long function sinks by length. A question about uses is a question
of presence, so each candidate is scored by how it holds the name: the use asked for
(a call; an import, a raise or throw, a handler, an assignment, a type deriving from it
when the question asks for those),
another mention, or only a word of it (``_classify`` for ``classify``: not a use).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..languages import DATA_LANGUAGES, DOC_LANGUAGES
from ..tokens import last_part, owner_of
from .ranking.priors import COMMENT_LINE, IMPORT_LINE

#: Scores of a chunk holding the use asked for, and of one that names it otherwise (a
#: reference passed as a value, an import when calls are asked for).
ASKED = 1.0
OTHER = 0.35


def use_scores(
    name: str, texts: dict[int, str], kind: str = "call", languages: dict[int, str] | None = None
) -> dict[int, float]:
    """chunk id -> score, for the chunks whose text holds the name as a whole word: in
    its own case when any chunk does, else in any case (a name typed in lower case).
    Empty when no chunk holds it at all. ``kind`` is the use asked for: ``call``,
    ``import``, ``raise``, ``catch``, ``assign``, ``extend``, ``test`` (calls, in
    tests) or ``doc`` (mentions, in docs); ``languages`` (chunk id -> language) tells
    where a call needs no brackets."""
    languages = languages or {}
    bare = last_part(name)
    word = re.escape(bare)
    lowered = bare.lower()
    # the cheap substring test first: most BM25 candidates hold only a part of the name
    texts = {
        chunk_id: use_text(text, kind)
        for chunk_id, text in texts.items()
        if lowered in text.lower()
    }
    for flags in (0, re.I):
        mention = _whole_word(word, flags)
        matchers: dict[str, Callable[[str], bool]] = {}
        scores: dict[int, float] = {}
        for chunk_id, text in texts.items():
            if mention.search(text):
                language = languages.get(chunk_id, "")
                if language not in matchers:
                    matchers[language] = use_matcher(name, kind, flags, language)
                scores[chunk_id] = ASKED if matchers[language](text) else OTHER
        if scores:
            return scores
    return {}


def use_text(text: str, kind: str) -> str:
    """What of a chunk a use of ``kind`` is looked for in: prose whole for ``doc`` (its
    headings and list items are no comment lines), else the code lines (``code_lines``)."""
    return text if kind == "doc" else code_lines(text)


def use_matcher(
    name: str, kind: str = "call", flags: int = 0, language: str = ""
) -> Callable[[str], bool]:
    """Whether a chunk's ``use_text`` (in ``language``) holds the use of ``name`` that
    ``kind`` asks for: the rule ``use_scores`` scores by, for tools that check its
    answers."""
    word = re.escape(last_part(name))
    calls = kind in ("call", "use", "test")
    if (calls or kind == "construct") and language in _NO_CODE:
        return _never  # `withTRPC()` in a YAML note or a README names it, calls nothing
    declared_bare = _BARE_DECLARATIONS.get(language)
    if language == "swift" and last_part(name) not in _SWIFT_BARE_DECLARATIONS:
        declared_bare = None  # ``retry(x) {`` passes a trailing closure
    if kind == "construct" and language == "go":  # ``Config(x)`` converts
        asked = _constructs(word, flags, called=False)
    elif kind == "construct" and language in _BARE_CONSTRUCTORS:
        asked = _constructs(word, flags, bare_constructors=True)
    elif calls and declared_bare is not None:
        asked = _calls(
            word,
            flags,
            declared_bare,
            "$-" if language == "bash" else "$",
            _CSHARP_EXPLICIT if language == "csharp" else None,
        )
    else:
        asked = _ASKED_USE[kind](word, flags)
    bare = _BARE_CALLS.get(language) if calls else None
    if bare is not None:
        bare_call = bare(word, flags)
        bracketed = asked
        asked = lambda text: bracketed(text) or bare_call(text)  # noqa: E731
    if calls or kind == "construct":
        in_code = asked
        asked = lambda text: in_code(without_literals(text, language))  # noqa: E731
    return _owned(name, word, flags, asked)


#: Languages that hold no code: what looks like a call there is a mention.
_NO_CODE = DOC_LANGUAGES | DATA_LANGUAGES


def _never(_text: str) -> bool:
    return False


#: C#'s explicit interface member: a return type, the interface and a dot before the
#: name (``IEnumerator IEnumerable.GetEnumerator(``, ``object? ITypeHandler.Parse(``).
_CSHARP_EXPLICIT = re.compile(
    r"\s*(?:(?:public|private|protected|internal|static|async|unsafe|extern)\s+)*"
    r"(?!(?:return|await|yield|throw|else|case|new|using|var|in|is|as)\b)"
    r"[\w<>\[\]?,.]+\s+[\w<>,]+\.$"
)
#: Languages whose constructors may be declared with nothing before their name.
_BARE_CONSTRUCTORS = frozenset({"java", "csharp", "cpp", "javascript", "typescript", "tsx"})
#: Swift declarations written without a keyword before their name: ``init(x: Int) {``.
_SWIFT_BARE_DECLARATIONS = frozenset({"init", "subscript"})


def without_literals(text: str, language: str) -> str:
    """``text`` with what its strings say and its trailing comments blanked: a call is
    not one in ``"call close() first"``, ``@available(renamed: "leave(_:)")`` or ``//
    tearDown() is not enough``. What a string interpolates stays (``f"{size(n)}"``,
    ``"${total()}"``); so do single-quoted strings where single quotes are characters or
    a name's prime (C, Rust, Haskell), and Elixir's type attributes go (``@spec``)."""
    quoted = _QUOTED_BOTH if language in _SINGLE_QUOTED_STRINGS else _QUOTED_DOUBLE
    text = quoted.sub(_blank_outside_interpolation, text)
    comment = _TRAILING_COMMENT.get(language, _SLASH_COMMENT)
    text = comment.sub("", text)
    if language == "elixir":
        text = _ELIXIR_TYPE_ATTRIBUTE.sub("", text)
    return text


def _blank_outside_interpolation(match: re.Match[str]) -> str:
    literal = match.group(0)
    if "{" not in literal and "(" not in literal:
        return literal[0] + " " * (len(literal) - 2) + literal[-1]
    # a Python f-string interpolates every brace; other strings after ``$``, ``#``, ``\``
    formatted = match.string[max(0, match.start() - 2) : match.start()].lower().endswith("f")
    out, depth = [], 0
    for position, char in enumerate(literal):
        opener = literal[position - 1 : position] in ("$", "#", "\\") or (formatted and char == "{")
        if char in "{(" and (depth or opener):
            depth += 1
        elif char in "})" and depth:
            depth -= 1
            out.append(char)
            continue
        out.append(char if depth or position in (0, len(literal) - 1) else " ")
    return "".join(out)


#: Languages whose single quotes delimit strings, not characters.
_SINGLE_QUOTED_STRINGS = frozenset(
    {"python", "javascript", "typescript", "tsx", "ruby", "php", "lua", "bash", "elixir"}
)
_QUOTED_DOUBLE = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_QUOTED_BOTH = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
#: A comment after code on a line: ``//`` in most languages, ``#`` or ``--`` in others.
_SLASH_COMMENT = re.compile(r"//[^\n]*")
_TRAILING_COMMENT = {
    "python": re.compile(r"#[^\n]*"),
    "ruby": re.compile(r"#(?!\{)[^\n]*"),
    "elixir": re.compile(r"#(?!\{)[^\n]*"),
    "bash": re.compile(r"(?<=\s)#[^\n]*"),
    "lua": re.compile(r"--[^\n]*"),
    "haskell": re.compile(r"(?<![!#$%&*+./<=>?@\\^|~:-])--(?![!#$%&*+./<=>?@\\^|~:])[^\n]*"),
}
#: Elixir's type declarations, whose calls are type names (``@spec retry(t) :: t``).
_ELIXIR_TYPE_ATTRIBUTE = re.compile(
    r"(?m)^\s*@(?:spec|callback|macrocallback|type|typep|opaque)\b[^\n]*"
)


def _owned(name: str, word: str, flags: int, asked: Callable[[str], bool]) -> Callable[[str], bool]:
    """For a name written with its owner (``Config.load``), the use counts as asked only
    where the code names that owner or uses the name on itself (``self.load(``,
    ``this.load(``, ``@load``): ``json.load(`` is no call of ``Config.load``."""
    owner = owner_of(name).rsplit(".", 1)[-1]
    if not owner:
        return asked
    owned = re.compile(
        rf"(?<![\w$]){re.escape(owner)}(?![\w$])|\b(?:self|this|Self)\s*(?:\.|::|->)\s*{word}"
        rf"|@{word}\b",
        flags,
    )
    return lambda text: asked(text) and owned.search(text) is not None


def _calls(
    word: str,
    flags: int,
    declared_bare: Callable[[str, int], bool] | None = None,
    name_marks: str = "$",
    declaring_before: re.Pattern[str] | None = None,
) -> Callable[[str], bool]:
    """``name(`` where it is called, not where it is declared: ``void retry(int n);`` in
    a C++ class or a Java interface, ``def retry(``, ``fn retry(``, ``std::vector<T>
    retry(`` have a type or keyword before the name; a call has none (``retry(x)``,
    ``x = retry(``, ``obj.retry(``, ``return retry(``, ``await retry(``). Where a
    language declares some names with nothing before them (a JavaScript method
    ``retry(n: number): void {``, a shell function ``retry() {``, a Java constructor,
    a Go interface's ``Retry(n int) error``), ``declared_bare`` tells such a line by
    what follows the parameters; in Kotlin or Swift ``retry(x) {`` is a call with a
    trailing lambda. ``name_marks``: what besides letters and digits a name may hold
    (a shell function's ``-``: ``npm-enable-proxy(`` is no call of ``enable-proxy``).
    ``declaring_before``: a language's own declaring form before the name (C#'s explicit
    interface method, ``object ITypeHandler.Parse(``)."""
    call = re.compile(rf"(?<![\w{re.escape(name_marks)}]){word}\s*\(", flags)

    def calls(text: str) -> bool:
        for found in call.finditer(text):
            line_start = text.rfind("\n", 0, found.start()) + 1
            before = text[line_start : found.start()]
            if _declares(before) or (declaring_before and declaring_before.match(before)):
                continue
            # nothing but a path before it: ``Compaction::~Compaction() {``
            bare = declared_bare is not None and not _PATH_BEFORE.sub("", before).strip()
            if bare and declared_bare(text, found.end()):
                continue
            return True
        return False

    return calls


#: How far past ``name(`` the parameters of a method may reach, in characters.
_PARAMETERS_REACH = 2000


def _opens_body(text: str, start: int) -> bool:
    """Whether the text after ``name(`` (at ``start``) closes the parameters and opens a
    body: ``x, y) {``, ``n: number): Promise<void> {``, parameters one to a line, a
    C++ constructor's ``) : count(0) {`` or ``) const override {``, or the brace on the
    next line (C, C#); not ``3).then(() => {``."""
    params, after = bracketed(text[start : start + _PARAMETERS_REACH])
    if params is None:
        return False
    line, _, rest = after.partition("\n")
    if _BODY_AFTER.fullmatch(line):
        return True
    return _QUALIFIERS.fullmatch(line) is not None and rest.lstrip().startswith("{")


def _go_method_spec(text: str, start: int) -> bool:
    """A Go interface's method, ``Retry(n int) error`` or ``Close()`` followed only by
    its results: a call at a line's start is followed by nothing, an operator or more
    of an expression, not by a type."""
    params, after = bracketed(text[start : start + _PARAMETERS_REACH])
    line = after.partition("\n")[0]
    return params is not None and _GO_RESULTS.fullmatch(line) is not None


#: After a declaration's parameters: qualifiers, a return type or initializer list
#: after ``:``, and the body's brace.
_BODY_AFTER = re.compile(
    r"\s*(?:(?:const|override|final|noexcept|mutable|volatile|throws\s+[\w.,\s]+)\b\s*)*"
    r"(?::[^;{}]*?)?\{.*"
)
_QUALIFIERS = re.compile(r"\s*(?:(?:const|override|final|noexcept)\b\s*)*")
#: A Go method's results: a type (``error``, ``*Node``, ``[]byte``, ``map[K]V``) or a list
#: in brackets, and nothing more.
_GO_RESULTS = re.compile(r"\s+(?:[\w.*\[\]]+|\([^()]*\))\s*")


def bracketed(text: str) -> tuple[str | None, str]:
    """What comes before the bracket that closes one opened just before ``text``, and
    what comes after it; (None, "") when it does not close."""
    depth = 0
    for position, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return text[:position], text[position + 1 :]
            depth -= 1
    return None, ""


#: Languages that declare some names with nothing before them, and how such a line
#: is told from a call (by what follows its parameters): JavaScript methods, shell
#: functions, constructors (Java, C#, C++), functions whose type is on the line above
#: (C), Swift's ``init``, a Go interface's methods.
_BARE_DECLARATIONS: dict[str, Callable[[str, int], bool]] = {
    **dict.fromkeys(
        ("javascript", "typescript", "tsx", "bash", "java", "csharp", "c", "cpp", "swift"),
        _opens_body,
    ),
    "go": _go_method_spec,
}


#: Words after which ``name(`` is still a call: statements and operators spelled as
#: words, in the languages indexed.
_CALL_KEYWORDS = frozenset(
    {
        "return", "await", "yield", "throw", "new", "delete", "else", "do", "go", "defer",
        "not", "and", "or", "in", "is", "if", "elif", "while", "for", "case", "when", "echo",
        "print", "assert", "raise", "co_await", "co_return", "co_yield", "typeof", "sizeof",
        "then", "with", "lambda", "from", "try", "match", "loop", "break", "del", "puts",
    }
)  # fmt: skip
#: The word just before a name, with a pointer, reference or template mark after it
#: (``int``, ``char*``, ``vector<int>``, ``fn``).
_WORD_BEFORE = re.compile(r"([\w$]+)[*&>\]?]*$")
#: What before a name's path makes it a declaration: Lua's ``function M.retry(`` (the
#: table's path names where the function is put), Ruby's ``def object.retry(``, a Go
#: method's receiver ``func (c *Client) Retry(``, C++'s destructor ``~Client(``.
_DECLARING_PATH = re.compile(
    r"\s*(?:(?:local\s+)?function\s+[\w.:]*[.:]|def\s+[\w.]*\.|func\s*\([^()]*\)\s*|(?:[\w$<>]*::)?~)$"
)
#: A ``Type::`` path just before a name (``int Foo::retry(``).
_PATH_BEFORE = re.compile(r"(?:[\w$]+(?:<[^<>\n]*>)?::)+$")


def _declares(before: str) -> bool:
    """Whether ``name(`` after ``before`` (its line up to the name) declares the name: a
    return type, a modifier or a keyword such as ``def`` stands just before it. After
    ``.``, ``->``, an operator, a bracket or nothing, it is a call."""
    before = before.rstrip()
    if _DECLARING_PATH.match(before):
        return True
    if before.endswith((".", "->")):
        return False
    before = _PATH_BEFORE.sub("", before).rstrip()
    found = _WORD_BEFORE.search(before)
    return found is not None and found.group(1) not in _CALL_KEYWORDS


def _ruby_calls(word: str, flags: int) -> Callable[[str], bool]:
    """Ruby's and Elixir's calls without brackets: ``retry job``, ``client.retry``,
    ``Jobs.retry job``, ``|> retry``; not a symbol or atom (``:retry``), an instance
    variable or module attribute (``@retry``), a keyword (``retry: 3``), an assignment
    to a variable so named, nor the line defining it (``def retry``, ``defp retry``,
    ``def object.retry``)."""
    defines = re.compile(rf"^\s*(?:def\w*|defdelegate)\s+(?:\w+\.)?{word}(?![\w$?!])", flags)
    called = re.compile(
        rf"(?<![\w$@:&]){word}(?![\w$?!])(?!:[^:])(?!\s*(?:\|\||&&|[-+*/])?=(?:[^=~>]|$))",
        flags,
    )
    return _on_lines(lambda line: not defines.match(line) and not IMPORT_LINE.match(line), called)


def _haskell_calls(word: str, flags: int) -> Callable[[str], bool]:
    """Haskell's calls are the name applied (``retry n act``, ``M.retry``, `` `retry` ``,
    passed on: ``map retry``): any line but its signature (``retry ::``), an equation
    defining it (``retry n act =``), an import or the module's export list."""
    defines = re.compile(
        rf"^\s*{word}(?![\w'])(?:\s*::|[^=\n]*(?<![<>!:|&+*/\\-])=(?![=>]))", flags
    )
    called = re.compile(rf"(?<![\w']){word}(?![\w'])", flags)
    on_lines = _on_lines(
        lambda line: not defines.match(line) and not IMPORT_LINE.match(line), called
    )
    return lambda text: on_lines(_HASKELL_HEADERS.sub("", text))


#: A Haskell module's header with its export list, and an import with its list over
#: indented lines: names listed, none applied.
_HASKELL_HEADERS = re.compile(r"(?ms)^module\b.*?\bwhere\b|^import\b[^\n]*(?:\n[ \t]+[^\n]*)*")


def _shell_calls(word: str, flags: int) -> Callable[[str], bool]:
    """A shell function called as a command: at a line's start or after ``;``, ``|``,
    ``&&``, ``$(``, ``then``, ``do`` and the like (not ``name()``, its definition)."""
    called = re.compile(
        rf"(?m)(?:^|[;&|({{`]|\$\(|\b(?:then|do|else|if|elif|while|until|exec|command"
        rf"|builtin|time)\s|!\s)\s*{word}(?=\s|$|[;&|)`])",
        flags,
    )
    return lambda text: called.search(text) is not None


def _on_lines(keep: Callable[[str], bool], called: re.Pattern[str]) -> Callable[[str], bool]:
    """Whether a line ``keep`` accepts holds ``called``."""
    return lambda text: any(called.search(line) for line in text.split("\n") if keep(line))


#: Calls in languages that need no brackets for them, by language (beside ``name(``).
_BARE_CALLS: dict[str, Callable[[str, int], Callable[[str], bool]]] = {
    "ruby": _ruby_calls,
    "elixir": _ruby_calls,
    "haskell": _haskell_calls,
    "bash": _shell_calls,
}


def _imports(word: str, flags: int) -> Callable[[str], bool]:
    mention = _whole_word(word, flags)
    return lambda text: imports_name(text, mention)


def _whole_word(word: str, flags: int) -> re.Pattern[str]:
    """The name as a whole word: not ``_classify`` for ``classify``, nor ``$x`` for ``x``."""
    return re.compile(rf"(?<![\w$]){word}(?![\w$])", flags)


def _raises(word: str, flags: int) -> Callable[[str], bool]:
    """``raise X``, ``throw new X(``, ``raise errors.X``; Rust's ``Err(X`` and
    ``Err(Error::X``."""
    raised = re.compile(
        rf"\b(?:raise|throw)\s+(?:new\s+)?(?:[\w$]+[.:]+)*{word}(?![\w$])"
        rf"|\bErr\(\s*(?:[\w$]+::)*{word}(?![\w$])",
        flags,
    )
    return lambda text: raised.search(text) is not None


def _assigns(word: str, flags: int) -> Callable[[str], bool]:
    """``x = ..``, ``self.x = ..``, ``x += ..``, ``x := ..``, ``x: int = ..``, a keyword
    argument ``x=..`` (not ``x == ..``, ``x => ..``, ``x <= ..``)."""
    assigned = re.compile(
        rf"(?<![\w$]){word}\s*(?::\s*[^=\n]{{1,40}}?\s*)?"
        rf"(?:[-+*/%&|^]|<<|>>|\?\?|\|\||&&)?:?=(?![=>])",
        flags,
    )
    return lambda text: assigned.search(text) is not None


#: The start of a type's declaration: modifiers and annotations, then its keyword.
_TYPE_START = re.compile(
    r"(?m)^[ \t]*(?:[@\w.]+(?:\([^()\n]*\))?[ \t]+)*?"
    r"(class|struct|interface|trait|object|record|enum|extension|protocol|actor|impl"
    r"|instance|defimpl)\b(?![ \t]*[:=.])"  # not a variable so named (``var interface:``)
)
#: A line that goes on with the head above it (``extends Base``, ``: Base``, ``, Other``).
_HEAD_GOES_ON = re.compile(r"[ \t]*(?:extends|implements|with|:|,|<)")
#: Where a type's head ends: its body opens, or it ends in ``;``.
_HEAD_END = re.compile(r"[{;]|\bwhere\b")
#: The name a head declares, and generic parameters written right after it (``<T>``;
#: Scala's and Python's ``[F[_]: Functor]``, whose bounds derive nothing).
_DECLARED = re.compile(
    r"[ \t]*[\w$.]+(?:<(?:[^<>]|<[^<>]*>)*>|\[(?:[^\[\]]|\[(?:[^\[\]]|\[[^\[\]]*\])*\])*\])?"
)
#: What a class or type derives from comes after one of these.
_DERIVES_FROM = re.compile(r"\bextends\b|\bimplements\b|\bwith\b|:|\(|[ \t]<[ \t]")
#: Ruby's mixins and Elixir's behaviours, written inside the type.
_MIXED_IN = r"(?m)^[ \t]*(?:include|extend|prepend|@behaviour|use)[ \t]+(?:[\w$]+(?:\.|::))*"


def _extends(word: str, flags: int) -> Callable[[str], bool]:
    """A type that derives from the name: ``class Foo(Base)``, ``class Foo extends Base``,
    ``implements Base``, ``class Foo : Base``, ``struct Foo: Base``, Ruby's ``class Foo <
    Base``, Rust's ``impl Base for Foo``, Haskell's ``instance Base Foo``, Elixir's
    ``defimpl Base, for: Foo``; a mixin (``include Base``, ``@behaviour Base``)."""
    # the name itself, not an inner type of it (``Interceptor.Chain``)
    name = re.compile(rf"(?<![\w$]){word}(?![\w$]|\.\w|::\w)", flags)
    mixed_in = re.compile(rf"{_MIXED_IN}{word}(?![\w$])", flags)

    def derives(text: str) -> bool:
        if mixed_in.search(text):
            return True
        return any(_head_derives(keyword, head, name) for keyword, head in _type_heads(text))

    return derives


def _type_heads(text: str) -> Iterator[tuple[str, str]]:
    """(keyword, the rest of its head) of each type declaration in ``text``: up to its
    body, over the lines that go on with it (Java's ``extends`` on a line of its own,
    Python's bases in brackets over several lines)."""
    for start in _TYPE_START.finditer(text):
        lines = text[start.end() :].split("\n", 6)[:6]
        head: list[str] = []
        depth = 0
        for number, line in enumerate(lines):
            end = _HEAD_END.search(line)
            head.append(line[: end.start()] if end else line)
            depth += line.count("(") - line.count(")")
            if end or number + 1 == len(lines):
                break
            if depth <= 0 and not _HEAD_GOES_ON.match(lines[number + 1]):
                break
        yield start.group(1), " ".join(head)


def _head_derives(keyword: str, head: str, name: re.Pattern[str]) -> bool:
    if keyword == "impl":  # impl<T> Base<T> for Foo<T>
        trait, found, _ = head.partition(" for ")
        return bool(found) and name.search(trait) is not None
    if keyword in ("instance", "defimpl"):  # instance (Show a) => Base (Foo a); defimpl Base, ..
        first = re.match(r"\W*([\w$.]+)", head.rpartition("=>")[2])
        return first is not None and name.fullmatch(first.group(1).rsplit(".", 1)[-1]) is not None
    declared = _DECLARED.match(head)
    rest = head[declared.end() :] if declared else head
    rest = _without_typed_parameters(rest)
    marker = _DERIVES_FROM.search(rest)
    return (
        marker is not None
        and name.search(_without_type_arguments(rest), marker.start()) is not None
    )


def _without_typed_parameters(rest: str) -> str:
    """A head's rest without a primary constructor's parameters, which name types but
    derive from none (Kotlin's ``internal constructor(val provider: Provider) : Base``);
    Python's bases in brackets hold no ``:``. Parameters that do not close within the
    head are dropped with all after them."""
    opened = re.match(r"\s*(?:[\w@]+\s+)*(?:[\w@]+\s*)?\(", rest)
    if opened is None:
        return rest
    inside, after = bracketed(rest[opened.end() :])
    if inside is None:
        return rest[: opened.start()] if ":" in rest[opened.end() :] else rest
    return after if ":" in inside else rest


def _without_type_arguments(text: str) -> str:
    """``text`` with what its type arguments name blanked, same length: a class deriving
    from ``TestBase<FirebirdProvider>`` or ``Mixin[Flask]`` does not derive from those."""
    previous = None
    while previous != text:
        previous = text
        text = _TYPE_ARGUMENTS.sub(_blank_brackets, text)
    return text


#: Type arguments after a name, innermost first: ``<Provider>``, ``[Flask]``.
_TYPE_ARGUMENTS = re.compile(r"(?<=[\w$])\s*(<[^<>\[\]]*>|\[[^\[\]<>]*\])")


def _blank_brackets(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _catches(word: str, flags: int) -> Callable[[str], bool]:
    """A handler of the name: Python's ``except (A, X) as e:``, ``catch (X e)`` and
    ``catch (e: X)`` (Java, C#, Kotlin), Swift's ``catch X`` / ``catch let e as X``,
    Ruby's ``rescue A, X => e``, Elixir's ``rescue e in [X]``, Go's ``errors.Is(err, X)``
    / ``errors.As(err, &X)``, a Rust match arm ``Err(X) =>``, PHP's ``catch (A | X $e)``."""
    caught = re.compile(
        rf"\bexcept\*?\s*\(?[\w$.,\s]*?(?<![\w$]){word}(?![\w$])"
        rf"|\bcatch\s*\(\s*(?:final\s+)?[\w$.|:\s]*?(?<![\w$]){word}(?![\w$])"
        rf"|\bcatch\s+(?:let\s+\w+\s+as\s+)?(?:[\w$]+\.)*{word}(?![\w$])"
        rf"|\brescue\s+(?:\w+\s+in\s+)?\[?[\w$:.,\s]*?(?<![\w$]){word}(?![\w$])"
        rf"|\berrors\.(?:Is|As)\([^()\n]*?(?<![\w$]){word}(?![\w$])"
        rf"|\bErr\(\s*(?:[\w$]+::)*{word}(?![\w$])[^\n]*?=>",
        flags,
    )
    return lambda text: caught.search(text) is not None


def _constructs(
    word: str, flags: int, called: bool = True, bare_constructors: bool = False
) -> Callable[[str], bool]:
    """Code that makes a value of the type: ``new X(`` and ``new X {`` (Java, C#, JS,
    PHP, C++), ``X(`` (Python, Kotlin, Swift, Scala), a literal ``X{..}`` or ``&X{``
    (Go, Rust), Rust's ``X::new(`` and other constructors (``X::default()``,
    ``X::with_capacity(``), ``X.new`` (Ruby), ``X.of(`` / ``X.builder(``, Elixir's
    ``%X{``, C++'s ``make_unique<X>(``. Not a declaration (``struct X {``, ``class X(``,
    ``impl X {``, ``def X(``, ``fun make(): X {``, ``public X(..) {``). Without
    ``called``, ``X(`` is none (Go's conversion). With ``bare_constructors`` (Java, C#,
    C++, JavaScript), ``X(..) {`` at a line's start is a constructor's declaration
    without a modifier (Kotlin's ``X(a) { .. }`` passes a trailing lambda)."""
    qualified = r"(?:[\w$]+(?:\.|::))*"
    generic = r"(?:\s*<[^<>()\n]*(?:<[^<>()\n]*>[^<>()\n]*)*>|\[[^\[\]\n]*\])?"
    made = re.compile(
        rf"\bnew\s+{qualified}{word}(?![\w$]|\s*(?:\.|::)\s*[A-Z])"
        + (rf"|(?<![\w$.:]){qualified}{word}{generic}\s*\(" if called else "")
        + rf"|(?:[=(,:&\[{{]|\breturn|=>|\?)\s*{qualified}{word}{generic}\s*\{{"
        rf"|%{qualified}{word}\s*\{{"
        rf"|(?<![\w$]){word}{generic}\s*(?:::|\.)\s*(?:new|default|from\w*|with\w*|builder"
        rf"|create\w*|of|getInstance|newInstance|init)(?![\w$])"
        rf"|\bmake_(?:unique|shared)\s*<\s*{qualified}{word}\b",
        flags,
    )
    declared = re.compile(
        rf"\b(?:class|struct|interface|trait|enum|impl|type|record|object|def|fn|func|fun"
        rf"|function|protocol|extension|union|module|defmodule|instance|var|val|let)\b"
        rf"[^\n;=]*?(?<![\w$]){word}(?![\w$])"
        # a constructor's declaration: ``public Config(..) {``, ``explicit Config(int);``
        rf"|^\s*(?:(?:public|private|protected|internal|static|explicit|inline)\s+)+"
        rf"{word}\s*\("
        # a pattern that takes one apart: ``case Deferred(f) =>``
        rf"|^\s*case\s+{qualified}{word}\s*[({{]"
        + (rf"|^\s*{word}\s*\([^()]*\)\s*(?:throws\s+[\w.,\s]+)?\{{" if bare_constructors else ""),
        flags,
    )
    return lambda text: any(
        made.search(line) and not declared.search(line) for line in text.split("\n")
    )


def _mentions(word: str, flags: int) -> Callable[[str], bool]:
    """The name as a whole word anywhere (documentation that names it)."""
    mention = _whole_word(word, flags)
    return lambda text: mention.search(text) is not None


_ASKED_USE: dict[str, Callable[[str, int], Callable[[str], bool]]] = {
    "call": _calls,
    "import": _imports,
    "raise": _raises,
    "catch": _catches,
    "assign": _assigns,
    "extend": _extends,
    "test": _calls,  # the tests that call it; the ranking keeps tests first
    "doc": _mentions,  # the ranking keeps docs first
    "construct": _constructs,
    "mention": _mentions,  # a type's every mention in code ("where is Store used")
    "use": _calls,  # as asked of a function
}


def imports_name(text: str, mention: re.Pattern[str]) -> bool:
    """Whether an import statement of ``text`` holds the name."""
    return any(mention.search(line) for line in _import_lines(text))


def _import_lines(text: str) -> list[str]:
    """The lines of the import statements in ``text``, with the lines of those that run
    on in brackets (``import {`` .. ``} from``, ``from x import (``, Go's ``import (``)."""
    lines: list[str] = []
    depth = 0
    for line in text.split("\n"):
        if depth > 0 or IMPORT_LINE.match(line):
            lines.append(line)
            depth = max(
                0, depth + sum(line.count(c) for c in "({[") - sum(line.count(c) for c in ")}]")
            )
    return lines


#: A block comment opening a line (Javadoc's lines need not start with ``*``).
_BLOCK_COMMENT = re.compile(r"(?m)^[ \t]*/\*[\s\S]*?\*/")
#: A triple-quoted string: a docstring (Python, Elixir's ``@doc``), or a multi-line string
#: (Kotlin, Swift, Java's text blocks), whose example calls are no calls.
_TRIPLE_QUOTED = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')


def code_lines(text: str, blank: bool = False) -> str:
    """The text without its comment lines, block comments and triple-quoted strings: a
    comment or a docstring that names a function is no use of it. With ``blank`` their
    lines are left empty instead, so every line keeps its number (to show the use)."""

    def gone(found: re.Match[str]) -> str:
        return "\n" * found.group(0).count("\n") if blank else ""

    lines = _BLOCK_COMMENT.sub(gone, _TRIPLE_QUOTED.sub(gone, text)).split("\n")
    if blank:
        return "\n".join("" if COMMENT_LINE.match(line) else line for line in lines)
    return "\n".join(line for line in lines if not COMMENT_LINE.match(line))
