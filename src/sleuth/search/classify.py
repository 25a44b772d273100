"""Query classes steer fusion: identifiers lean on BM25, plain words on vectors."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..languages import EXTENSIONS
from ..store.lexical import TOKEN_BYTES_LIMIT
from ..tokens import identifiers_in, query_terms

#: A query asks for test code when tests are its object ("tests for retry", "unit tests",
#: "where is parse tested"), not when it is about testing ("how test files are run" in a
#: test runner's repository, where every query says "test").
_TEST_WORDS = re.compile(
    r"\b(tests?|specs?)\s+(for|of|on|covering|covers?|that|which|check(s|ing)?|verif(y|ies|ying)"
    r"|ensur(e|es|ing)|asserts?|exercis(e|es|ing))\b|\b(which|what|any)\s+((unit|integration)\s+)?"
    r"(tests|specs)\b|\b(unit|integration|e2e|"
    r"regression|end-to-end)[ -]tests?\b|\btest (cases?|coverage)\b|\btested\b"
    r"|\bfixtures?\b|^\s*(tests|specs)\b|\b(tests|specs)\s*$",
    re.I,
)
#: Tests named as where the code asked for is used ("mock handler for simulating HTTP
#: responses in tests", "capturing log entries for unit tests"): a test helper is asked
#: for, not a test.
_FOR_TESTS = re.compile(
    r"\b(in|for|during|within|inside|from)\s+((unit|integration|e2e)\s+)?(tests?|specs?)\s*$", re.I
)
_DOC_WORDS = re.compile(r"\b(docs?|documentation|readme|guide|tutorial|adrs?|changelog)\b", re.I)
#: A file written as on disk: a name with its extension (``keylog.h``, ``index.d.ts``),
#: perhaps with folders (``fastapi/utils.py``, ``/home/me/app/lib/router.js``); the
#: extension must be a known one.
_FILE_NAME = re.compile(r"(?<![\w./-])(/?(?:[\w.-]+/)*[\w-][\w.-]*\.([a-z0-9+]+))(?![\w/-])")
#: A line number written after a file name, as compilers, stack traces and editors write
#: one: ``rank.py:230``, ``app.ts:12:5``, ``app.py#L40``, Python's ``"app.py", line 40``.
_LINE_AFTER = re.compile(r':(\d+)|#L(\d+)|"?,? line (\d+)')
#: A declaration pasted as the query: ``def classify(query: str) -> QueryPlan:``,
#: ``pub fn parse(``, ``func (m *Mux) ServeHTTP(``, ``class Command``. The name it
#: declares (group 1) is what is asked for; the other names are its types and uses.
_DECLARATION = re.compile(
    r"\s*(?:(?:export|default|pub(?:\([\w\s]*\))?|public|private|protected|internal|static"
    r"|async|abstract|final|open|override|inline|unsafe|const|sealed|data|suspend|extern"
    r"|local)\s+)*"
    r"(?:def|defp|defmacro|defmodule|fn|func|fun|function|class|struct|enum|trait"
    r"|interface|impl|type|module|object|protocol|record|sub)\s+"
    r"(?:\([^)]*\)\s*)?"  # Go's receiver
    r"([^\W\d][\w.:$]*)"
)
#: What follows a declared name in code (and not in a sentence that opens with "class").
_CODE_PUNCTUATION = re.compile(r"[(){}<>=:;\[\]]")
#: A name in a question about it, perhaps quoted: ``parse_config``, `Config.load`.
_NAME = r"[`'\"]?([^\W\d][\w.:#$]*?)(?:\(\))?[`'\"]?"
#: A name as a question about uses may write it: "the Config class", "Config objects".
_USED_NAME = (
    rf"(?:the\s+)?{_NAME}(?:\s+(?:class|function|method|type|interface|struct|trait|enum"
    rf"|module|macro|constant|variable|field|property|objects?|instances?|values?))?"
)
#: The verbs of a use, as in "which functions call X", "where do we create X".
_USE_VERB = (
    r"(?:call|use|reference|refer\s+to|read|import|raise|throw|set|assign|write|modify|mutate"
    r"|implement|extend|inherit\s+from|subclass|derive\s+from|catch|handle|rescue|create"
    r"|construct|instantiate|build)"
)
#: A question for the places that use a name, not for its definition: "where is
#: parse_config called", "who calls load_config", "usages of Index", "find references
#: to retry", "where is TimeoutError raised", "where is timeout set", "subclasses of
#: Store", "who implements Store", "where is retry tested" (the tests that use it),
#: "who catches TimeoutError", "where is Config created"; also "which functions call
#: X", "where do we create X", "call sites for X". Its name is what BM25 looks for; the
#: definition itself ranks lower.
_USES = re.compile(
    rf"(?:where\s+(?:is|are|does|do)\s+{_USED_NAME}\s+(?:being\s+|getting\s+|gets?\s+)?"
    rf"(?:used|called|referenced|invoked|imported|read"
    rf"|raised|thrown|set|assigned|written|modified|mutated|subclassed|extended|inherited"
    rf"|caught|handled|rescued|created|constructed|instantiated|built)"
    rf"|where\s+{_USED_NAME}\s+(?:is|are|gets?)\s+(?:being\s+)?(?:used|called|referenced|read"
    rf"|invoked|imported|raised|thrown|set|assigned|modified|caught|handled|created"
    rf"|constructed|instantiated|built)"
    rf"|where\s+(?:do|does|did)\s+(?:\w+\s+){{1,2}}?{_USE_VERB}\s+{_USED_NAME}"
    rf"|(?:who|what|which\s+(?:classes|types|structs))\s+(?:calls|uses|imports|raises"
    rf"|throws|sets|assigns|writes|modifies|mutates|implements?|extends?|inherits?(?:\s+from)?"
    rf"|catch(?:es)?|handles|rescues|creates|constructs|instantiates|builds"
    rf"|references|refers\s+to|reads|subclass(?:es)?|derives?\s+from|conforms\s+to)"
    rf"\s+{_USED_NAME}"
    rf"|(?:which|what)\s+(?:functions|methods|code|files|modules|places|parts\s+of\s+the"
    rf"\s+code)\s+{_USE_VERB}s?\s+{_USED_NAME}"
    rf"|(?:classes|types|structs)\s+(?:that\s+)?(?:implement(?:s|ing)?|extend(?:s|ing)?"
    rf"|conform(?:s|ing)?\s+to"
    rf"|inherit(?:s|ing)?\s+from|deriv(?:e|es|ing)\s+from)\s+{_NAME}"
    rf"|(?:where|how)\s+(?:is|are)\s+{_NAME}\s+(?:tested|documented|described|explained)"
    rf"|(?:find\s+)?(?:the\s+)?(?:docs?|documentation)\s+(?:for|of|on|about)\s+{_NAME}"
    rf"|(?:which|what)\s+(?:docs?|documentation|pages?)\s+(?:mention|describe|explain"
    rf"|document)s?\s+{_NAME}"
    rf"|(?:which|what)\s+(?:unit\s+)?tests?\s+(?:cover|call|use|exercise|check|test)s?\s+{_NAME}"
    rf"|(?:find\s+)?(?:the\s+|all\s+)?(?:unit\s+)?tests?\s+(?:for|of|covering|that\s+(?:cover"
    rf"|call|use|exercise|check)s?)\s+{_NAME}"
    rf"|(?:find\s+)?(?:all\s+)?(?:callers|usages|uses|references|call\s+sites|calls|imports"
    rf"|assignments|writes|implementations|implementers|implementors|subclasses|subtypes"
    rf"|conformances"
    rf"|handlers|catchers|instances|instantiations|constructions"
    rf"|derived\s+(?:classes|types)|children)\s+(?:of|to|for)\s+{_USED_NAME})\s*\??",
    re.I,
)
#: A question for what a function calls: "what does parse_config call", "which
#: functions does load call", "callees of Index.search", "what is called by main".
_CALLEES = re.compile(
    rf"(?:(?:what|which)(?:\s+(?:functions|methods|code))?\s+(?:does|do)\s+{_NAME}\s+call"
    rf"|(?:find\s+)?(?:the\s+|all\s+)?callees\s+(?:of|in)\s+{_NAME}"
    rf"|what\s+(?:is|gets)\s+called\s+(?:by|from|in)\s+{_NAME}"
    rf"|(?:what|which\s+(?:functions|methods))\s+(?:are\s+)?called\s+(?:by|from|in)\s+{_NAME}"
    rf"|(?:what|which\s+(?:functions|methods))\s+{_NAME}\s+calls)\s*\??",
    re.I,
)
#: A question for what a type holds: "methods of Client", "what methods does Client
#: have", "Client's fields": a lookup of the definitions it owns.
_TYPE_WORD = r"(?:\s+(?:class|struct|type|interface|trait|module|object|protocol|enum))?"
_MEMBERS = re.compile(
    rf"(?:(?:methods|functions|members|fields|properties|attributes|operations)"
    rf"\s+(?:of|on|in|for)\s+(?:the\s+)?{_NAME}{_TYPE_WORD}"
    rf"|what\s+(?:methods|functions|members|fields|properties|attributes|operations)"
    rf"\s+(?:does|do)\s+(?:the\s+)?{_NAME}{_TYPE_WORD}\s+(?:have|define|expose|provide|offer)"
    rf"|(?:the\s+)?{_NAME}{_TYPE_WORD}(?:'s)?\s+(?:methods|members|fields|properties"
    rf"|attributes|operations))\s*\??",
    re.I,
)
#: Which use a question about uses asks for, by its verb (else calls and mentions).
_USE_KINDS = (
    ("test", re.compile(r"\btest", re.I)),
    ("doc", re.compile(r"\b(docs?|document\w*|describ\w*|explain\w*|pages?)\b", re.I)),
    ("import", re.compile(r"\bimport", re.I)),
    ("catch", re.compile(r"\b(catch\w*|caught|handl\w*|rescue\w*)\b", re.I)),
    ("raise", re.compile(r"\b(rais|throw)", re.I)),
    ("assign", re.compile(r"\b(set|sets|assign\w*|writ\w*|modif\w*|mutat\w*)\b", re.I)),
    (
        "extend",
        re.compile(
            r"\b(implement\w*|extend\w*|inherit\w*|subclass\w*|subtypes|deriv\w*|children"
            r"|conform\w*)\b",
            re.I,
        ),
    ),
    (
        "construct",
        re.compile(r"\b(creat\w*|construct\w*|instan\w*|built|builds)\b", re.I),
    ),
    # any use: of a type, every mention in code; of a function, its calls (``Index.search``)
    (
        "use",
        re.compile(r"\b(use|used|uses|usages?|referenced|references?|refers?|reads?)\b", re.I),
    ),
)
#: A question for a name's definition: "where is parse_config defined", "definition of
#: Index", "overrides of render" (every definition of the name): asked as the name
#: alone would be.
_DEFINED = re.compile(
    rf"(?:where\s+(?:is|are)\s+{_NAME}\s+(?:defined|declared|implemented|overridden)"
    rf"|where\s+{_NAME}\s+(?:is|are|gets)\s+(?:defined|declared|implemented|overridden)"
    rf"|(?:find\s+)?(?:the\s+|all\s+)?(?:definitions?|declarations?|overrides)\s+of\s+{_NAME}"
    rf"|(?:who|what)\s+overrides\s+{_NAME}|which\s+\w+\s+overrides?\s+{_NAME})\s*\??",
    re.I,
)


#: A question for each use of a name, as ``classify`` reads it (the name quoted, so that
#: a plain word is a name: "tests for `sleep`"); "callees" asks what the name calls.
USE_QUESTIONS = {
    "use": "where is `{}` used",
    "call": "who calls `{}`",
    "import": "where is `{}` imported",
    "raise": "where is `{}` raised",
    "catch": "who catches `{}`",
    "assign": "where is `{}` set",
    "extend": "subclasses of `{}`",
    "construct": "where is `{}` created",
    "test": "tests for `{}`",
    "doc": "docs for `{}`",
    "callees": "what does `{}` call",
}


def uses_question(name: str, use: str) -> str:
    """The question for ``use`` of ``name`` (a key of ``USE_QUESTIONS``): tools that ask
    for uses by name and kind send it through the same search."""
    return USE_QUESTIONS[use].format(name.strip("`'\" "))


#: Uses whose questions read as well in words ("tests for caching", "who handles
#: requests", "who implements retries"): a plain word in them is a name only when the
#: index defines it.
_NAMED_AS_CODE = frozenset({"test", "doc", "catch", "extend", "construct"})


#: "the" just before a name in a question about uses.
_THE = re.compile(r"\bthe\s*[`'\"]?$", re.I)


def _written_as_name(uses: re.Match[str], group: int) -> bool:
    """Whether a question about tests, docs, handlers or subtypes names code: "tests for
    parse_config", "tests for Writer", "docs for `retry`"; "tests for caching" asks
    about a subject in words."""
    name = uses.group(group)
    quoted = uses.string[uses.start(group) - 1 : uses.start(group)] in ("`", "'", '"')
    return bool(identifiers_in(name)) or name[:1].isupper() or quoted


@dataclass(frozen=True)
class QueryPlan:
    text: str
    terms: list[str]
    kind: str  # identifier | natural | mixed
    identifiers: list[str]
    lexical_weight: float
    semantic_weight: float
    wants_tests: bool
    wants_docs: bool
    #: files the query names as written on disk (``keylog.h``)
    file_names: tuple[str, ...] = ()
    #: (file, line) for files written with a line (``rank.py:230``)
    file_lines: tuple[tuple[str, int], ...] = ()
    #: the query came over several lines (a pasted snippet): its text is compared with
    #: code whose line breaks and indentation count as single spaces
    spans_lines: bool = False
    #: the name whose uses the query asks for ("where is parse_config called")
    uses_of: str | None = None
    #: ... and which uses: "call" (calls first, then other mentions), "import" ("where is
    #: Config imported"), "raise" ("where is TimeoutError raised"), "assign" ("where is
    #: timeout set"), "extend" ("subclasses of Store"), "test" ("tests for retry": the
    #: tests that name it, those calling it first), "doc" ("docs for retry": the
    #: documentation that names it), "construct" ("where is Config created": ``new
    #: Config(``, ``Config{..}``, ``Config::new(``), "use" ("where is Store used": read
    #: as "call" for a function, as "mention" for a type, whose every mention in code is
    #: a use)
    use_kind: str = "call"
    #: the name whose callees the query asks for ("what does parse_config call")
    callees_of: str | None = None
    #: the type whose members the query asks for ("methods of Client")
    members_of: str | None = None
    #: a plain word a question about tests, docs, handlers, subtypes, constructions or
    #: members names ("tests for caching", "where is the cache used"), and the use kind
    #: ("members" for a type's): a subject in words, unless the index defines a name
    #: so (``as_name``)
    named_word: tuple[str, str] | None = None

    @property
    def lookup(self) -> bool:
        """Answered from the definitions alone (what a name calls, what a type owns):
        neither retriever is asked, so no query vector is needed."""
        return bool(self.callees_of or self.members_of)

    @property
    def exact_names(self) -> frozenset[str]:
        """The names as written: ``Command`` is not ``command``."""
        names = set(self.identifiers)
        if self.name_alone:
            names.add(self.text)
        return frozenset(names)

    @property
    def symbol_names(self) -> set[str]:
        """Lowercased names the query may be asking the definition of."""
        names = {n.lower() for n in self.identifiers}
        if self.name_alone:
            names.add(self.text.lower())
        return names

    @property
    def name_alone(self) -> bool:
        """A name asked for alone (not a declaration pasted whole)."""
        return self.kind == "identifier" and " " not in self.text


#: (lexical, semantic) weights by class. Weighted min-max fusion; see docs/architecture.md.
WEIGHTS = {"identifier": (0.6, 0.4), "mixed": (0.4, 0.6), "natural": (0.4, 0.6)}


#: A request around a question ("show me the callers of X", "can you find usages of X",
#: "list all subclasses of X"): read past when telling its form.
_REQUEST = re.compile(
    r"(?:(?:please|can\s+you|could\s+you|would\s+you)\s+)?"
    r"(?:(?:show|tell|give|list|get|search\s+for|look\s+up|find)(?:\s+(?:me|us))?\s+)?"
    r"(?:(?:all|every)\s+(?:of\s+)?)?(?:the\s+)?",
    re.I,
)


def classify(query: str, forms: bool = True) -> QueryPlan:
    """How to search ``query``; without ``forms``, as words and names only (no question
    about uses, callees, members or a definition is recognised)."""
    text = " ".join(query.split())
    spans_lines = "\n" in query.strip()
    if not forms:
        return _in_words(text, None, spans_lines)
    asked = text[_REQUEST.match(text).end() :] or text  # (the form, not the words searched)
    defined = _DEFINED.fullmatch(asked)
    if defined is not None:
        return classify(next(name for name in defined.groups() if name))
    callees = _CALLEES.fullmatch(asked)
    if callees is not None:
        name = next(name for name in callees.groups() if name)
        lexical, semantic = WEIGHTS["identifier"]
        terms = query_terms(name)
        return QueryPlan(
            text, terms, "identifier", [name], lexical, semantic, False, False, callees_of=name
        )
    named_word = None
    members = _MEMBERS.fullmatch(asked)
    if members is not None:
        group = next(n for n, name in enumerate(members.groups(), 1) if name)
        if _written_as_name(members, group):
            return _members_plan(text, members.group(group))
        named_word = (members.group(group), "members")  # "methods of the router": words
    uses = _USES.fullmatch(asked)
    if uses is not None:
        group = next(n for n, name in enumerate(uses.groups(), 1) if name)
        # the verb, read with the name left out: "who calls write_file" asks for calls
        verbs = asked[: uses.start(group)] + " " + asked[uses.end(group) :]
        use_kind = next((kind for kind, verb in _USE_KINDS if verb.search(verbs)), "call")
        # "where is the cache used" may be about a subject in words, as "tests for
        # caching" is: a name after "the" is code when written so or defined
        in_words = use_kind in _NAMED_AS_CODE or _THE.search(asked[: uses.start(group)])
        if not in_words or _written_as_name(uses, group):
            return _uses_plan(text, uses.group(group), use_kind)
        named_word = (uses.group(group), use_kind)  # "tests for caching": in words
    return _in_words(text, named_word, spans_lines)


def _in_words(text: str, named_word: tuple[str, str] | None, spans_lines: bool) -> QueryPlan:
    words = text.split(" ")
    declared = declared_name(text)
    identifiers = [declared] if declared else identifiers_in(text)
    if declared:
        kind = "identifier"  # a name looked up, as when it is asked for alone
    elif len(words) == 1 and re.fullmatch(r"[^\W\d][\w.:$-]*", words[0]):
        kind = "identifier"
        identifiers = identifiers or [words[0].strip(".:")]
    elif identifiers:
        kind = "mixed"
    else:
        kind = "natural"
    lexical, semantic = WEIGHTS[kind]
    return QueryPlan(
        text,
        query_terms(text),
        kind,
        identifiers,
        lexical,
        semantic,
        bool(_TEST_WORDS.search(_FOR_TESTS.sub("", text))),
        bool(_DOC_WORDS.search(text)),
        named_files(text),
        named_lines(text),
        spans_lines,
        named_word=named_word,
    )


def _uses_plan(text: str, name: str, use_kind: str) -> QueryPlan:
    terms = query_terms(name)
    # a use writes the whole name, not its parts (unless the index keeps no such long
    # token: ``DiagnosticsGetSafeToInspectDeletedHandles`` is found by its words)
    if terms and terms[0] == name.lower() and len(terms[0].encode()) < TOKEN_BYTES_LIMIT:
        terms = terms[:1]
    lexical, semantic = WEIGHTS["identifier"]
    wants_tests, wants_docs = use_kind == "test", use_kind == "doc"
    return QueryPlan(
        text, terms, "identifier", [name], lexical, semantic, wants_tests, wants_docs,
        uses_of=name, use_kind=use_kind,
    )  # fmt: skip


def _members_plan(text: str, name: str) -> QueryPlan:
    lexical, semantic = WEIGHTS["identifier"]
    return QueryPlan(
        text, query_terms(name), "identifier", [name], lexical, semantic, False, False,
        members_of=name,
    )  # fmt: skip


def as_name(plan: QueryPlan) -> QueryPlan:
    """The plan of a question about the tests or docs of ``plan.named_word``, once the
    index shows the word is a name it defines ("tests for sleep", ``sleep`` a function)."""
    assert plan.named_word is not None
    name, use = plan.named_word
    return _members_plan(plan.text, name) if use == "members" else _uses_plan(plan.text, name, use)


def declared_name(text: str) -> str | None:
    """The name a declaration pasted as the query declares, or None for anything else
    (a sentence that opens with "class" or "type" goes on in words, not in code)."""
    found = _DECLARATION.match(text)
    if found is None:
        return None
    rest = text[found.end() :].strip()
    if rest and not _CODE_PUNCTUATION.search(rest):
        return None
    return found.group(1).strip(".:")


#: A query naming more files than this is a list, not a pointer: the first ones count.
MAX_NAMED_FILES = 8


def named_files(text: str) -> tuple[str, ...]:
    """File names with a source extension written in the query, as written, in order."""
    found = (match.group(1) for match in _file_names(text))
    return tuple(dict.fromkeys(found))[:MAX_NAMED_FILES]


def named_lines(text: str) -> tuple[tuple[str, int], ...]:
    """(file, line) for each named file written with a line number after it."""
    found = []
    for match in _file_names(text):
        line = _LINE_AFTER.match(text, match.end())
        if line is not None:
            found.append((match.group(1), int(next(g for g in line.groups() if g))))
    return tuple(dict.fromkeys(found))[:MAX_NAMED_FILES]


def _file_names(text: str) -> Iterator[re.Match[str]]:
    """Matches of file names with a known source extension, in order."""
    return (m for m in _FILE_NAME.finditer(text) if f".{m.group(2)}" in EXTENSIONS)
