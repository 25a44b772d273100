"""Code-aware terms: identifiers are indexed whole and split into their words.

``parseHTTPConfig`` -> ``parsehttpconfig parse http config``; ``retry_upload`` ->
``retry_upload retry upload``. Stemming happens afterwards in the lexical store.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from itertools import pairwise

#: Bump when the terms a text gives change: the history's lexical index is rebuilt from
#: its own store (code is re-chunked through ``config.CHUNKER_VERSION``). 2: words of any
#: script, CJK as pairs of characters; 3: words with accents also without them; 4: a name
#: with underscores is also one token without them (``store.lexical.indexed_form``).
TERMS_VERSION = 4

#: Identifiers and words in any script (`größe`, `обработать`, `naïve_sort`), and numbers;
#: ASCII text takes the ASCII pattern, which finds the same and runs a quarter faster.
_WORD = re.compile(r"[^\W\d]\w*|\d+")
_ASCII_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")


def _words(text: str) -> list[str]:
    return (_ASCII_WORD if text.isascii() else _WORD).findall(text)


#: Scripts written without spaces between words (Chinese, Japanese; Korean too by
#: custom): a run of them is indexed as overlapping pairs of characters, so "总价"
#: finds "计算订单总价" (the usual way for these scripts, as in Lucene's CJK analyzer).
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "do",
        "does",
        "did",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "the",
        "this",
        "that",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "we",
        "you",
        "get",
        "gets",
        "got",
        "use",
        "used",
        "uses",
        "using",
        "can",
        "could",
        "should",
        "would",
        "there",
        "their",
        "them",
        "these",
        "those",
        "into",
        "via",
        "some",
        "any",
        "all",
        "code",
        "function",
        "functions",
        "method",
        "find",
        "show",
        "me",
        "implemented",
        "implementation",
        "handled",
        "handle",
    ]
)
# "handle"/"function" carry no signal in code search questions ("how is X handled").


def _one_word(token: str) -> bool:
    """Letters only, in one case or capitalised (`self`, `HTTP`, `Config`, `запрос`): a
    word with nothing to split."""
    return token.isalpha() and (token.islower() or token.isupper() or token[1:].islower())


def split_identifier(token: str) -> list[str]:
    """Words of an identifier, lowercased: camelCase, PascalCase, snake_case, digits."""
    parts: list[str] = []
    for piece in token.split("_"):
        if _one_word(piece):
            parts.append(piece.lower())  # in any script (`naïve`, `запрос`)
        else:
            parts.extend(match.lower() for match in _CAMEL.findall(piece))
    return [p for p in parts if p]


@lru_cache(maxsize=262_144)
def _expand(token: str) -> tuple[str, ...]:
    """The token lowercased, then its parts when it has several (cached: code repeats)."""
    if token.isascii():
        return _expand_word(token)
    if _CJK.search(token):
        return _expand_cjk(token)
    terms = _expand_word(token)
    folded = _without_accents(token)
    if folded == token:
        return terms
    # the word as often typed, without its accents, too: `cafe` finds `café`
    return terms + tuple(t for t in _expand_word(folded) if t not in terms)


def _without_accents(token: str) -> str:
    """The token with combining marks removed after decomposition (é -> e, ö -> o)."""
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _expand_cjk(token: str) -> tuple[str, ...]:
    """Pairs of characters for each run of CJK script; the rest of the token as usual."""
    terms: list[str] = []
    at = 0
    for run in _CJK.finditer(token):
        if run.start() > at:
            terms.extend(_expand_word(token[at : run.start()]))
        text = run.group()
        terms.extend([text] if len(text) == 1 else [text[i : i + 2] for i in range(len(text) - 1)])
        at = run.end()
    if at < len(token):
        terms.extend(_expand_word(token[at:]))
    return tuple(term for term in terms if term.strip("_"))


def _expand_word(token: str) -> tuple[str, ...]:
    """A word or identifier: lowercased whole, then its parts when it has several."""
    if _one_word(token):
        return (token.lower(),)  # (self, Config, HTTP): nothing to split
    whole = token.lower().strip("_")
    parts = split_identifier(token)
    head = (whole,) if whole else ()
    return (*head, *parts) if len(parts) > 1 else head


def code_terms(text: str) -> list[str]:
    """Every identifier of ``text`` lowercased, followed by its parts when it has several."""
    terms: list[str] = []
    for token in _words(text):
        terms.extend(_expand(token))
    return terms


@lru_cache(maxsize=262_144)
def _expanded_words(token: str) -> str:
    """``_expand`` as one space-terminated string, ready to repeat."""
    words = _expand(token)
    return " ".join(words) + " " if words else ""


def code_terms_text(text: str) -> str:
    """``code_terms`` joined into one string, for indexing.

    Term order does not matter to BM25 (no phrase queries), so each distinct identifier
    is expanded once and repeated by its count: about a third faster than a token loop
    on real code, and indexing a fresh repository is dominated by such loops.
    """
    counts = Counter(_words(text))
    return "".join([_expanded_words(token) * count for token, count in counts.items()])


def path_terms(path: str) -> str:
    """Directory and file-name words of a path, identifiers split."""
    return " ".join(code_terms(path.replace("/", " ").replace(".", " ")))


def sorted_terms(texts: Iterable[str]) -> str:
    """The distinct space-separated terms of ``texts``, sorted and space-joined: the
    ranking asks whether a file mentions each word of a question anywhere, and a sorted
    list answers a shared-prefix look-up (lock / lockfile) by bisection."""
    distinct: set[str] = set()
    for text in texts:
        distinct.update(text.split())
    return " ".join(sorted(distinct))


def query_terms(query: str) -> list[str]:
    """Searchable terms of a query: code terms without stopwords, order kept, no repeats."""
    seen: dict[str, None] = {}
    terms = code_terms(query)
    for term in terms:
        if term not in STOPWORDS and len(term) > 1:
            seen.setdefault(term, None)
    if not seen:  # only stopwords: a name such as `get`, `find` or `function_` is asked for
        seen = dict.fromkeys(term for term in terms if len(term) > 1)
    return list(seen)


def identifiers_in(query: str) -> list[str]:
    """Tokens that look like code identifiers (mixed case, underscores, dots or digits)."""
    found = []
    for token in _IDENTIFIER_LIKE.findall(query):
        core = token.strip(".:")
        if "_" in core or "." in core or "::" in core or _case_turns(core):
            found.append(core)
    return found


#: A run that may be a name in any script: a letter or underscore, then word characters
#: and the joins of qualified names (``berechne_größe``, ``обработать_запрос``, ``a.b``).
_IDENTIFIER_LIKE = re.compile(r"[^\W\d][\w.:]*")


def _case_turns(word: str) -> bool:
    """A lower-case letter followed by an upper-case one: ``parseConfig``, ``getДанные``
    (a word starting ``Xy..Z`` as in ``HttpClient`` has one too)."""
    return any(a.islower() and b.isupper() for a, b in pairwise(word))


#: Leading characters that mark a name without being part of what people type or say:
#: zod's core classes are ``$ZodType``, redux's symbol ``$$observable``, JavaScript's
#: private members ``#field``.
NAME_SIGILS = "$#"
#: What joins an owner to a name inside one definition's name: Lua's ``M.setup`` and
#: ``Async:init``, JavaScript's ``res.send``, C++'s ``absl::Cord::Find``.
_QUALIFIED = re.compile(r"[.:]+")


def bare_name(name: str) -> str:
    """A definition's name as a query would write it (``$ZodType`` -> ``ZodType``)."""
    return name.lstrip(NAME_SIGILS)


def last_part(name: str) -> str:
    """A definition's name after its owner (``res.send`` -> ``send``, ``Async:init`` ->
    ``init``, ``absl::Cord::Find`` -> ``Find``)."""
    return _QUALIFIED.split(name)[-1]


@lru_cache(maxsize=65_536)
def short_name(name: str) -> str:
    """The name a definition answers to: its last part, bare (``$ZodType``)."""
    return bare_name(last_part(name))


def owner_of(name: str) -> str:
    """The owner written into a definition's name, dotted (``absl::Cord::Find`` ->
    ``absl.Cord``; ``""`` for a plain name)."""
    parts = _QUALIFIED.split(name)
    return ".".join(part for part in parts[:-1] if part)


def sigil_forms(name: str) -> tuple[str, ...]:
    """The names a definition answering to ``name`` may carry: itself, ``$name``, ..."""
    return (name, *(sigil * count + name for sigil in NAME_SIGILS for count in (1, 2)))


def path_suffixes(path: str) -> list[str]:
    """``a/b/c.py``, ``b/c.py``, ``c.py``: the paths a file written as ``a/b/c.py`` may
    have in an index whose root is one of its folders."""
    parts = path.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


def names_path(path: str, named: str) -> bool:
    """Does a file name or path written in a query name this indexed file?

    Either may hold folders the other lacks: ``keylog.h`` names ``vtls/keylog.h``, and
    ``src/flask/app.py`` names ``app.py`` of an index rooted at ``src/flask``. A name
    written in lower case names a file in any case (``managehook.hs``); one with a
    capital must match it (``ManageHook.hs``), so ``Express.js``, the project, does not
    name ``lib/express.js``, the file."""
    if named.islower():
        path = path.lower()
    return path.endswith("/" + named) or path in path_suffixes(named)
