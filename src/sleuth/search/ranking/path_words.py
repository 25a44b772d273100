"""Which words of a file's path a query names (the file-name and folder priors).

Words match when equal or when they share a stem-like prefix (lock/lockfile); what a
path tells is worked out once per path and kept.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

from ...languages import DATA_LANGUAGES, language_for
from ...tokens import split_identifier
from ..filters import category_of

_TEST_MARKERS = frozenset({"test", "tests", "spec", "specs", "testing"})

#: File names that say nothing: the folder names the module instead (axum/extract/mod.rs).
_GENERIC_STEMS = frozenset({"mod", "index", "init", "__init__", "main", "lib", "default"})


@lru_cache(maxsize=65_536)
def path_words(path: str) -> tuple[frozenset[str], frozenset[str]]:
    """Words of a file's name (or of its folder's, for mod.rs, index.ts, __init__.py),
    and words of the folders above it."""
    folders, stem = _named_by(path)
    # In a test file, "test" and "spec" mark the kind of file, not its subject.
    skip = _TEST_MARKERS if category_of(path, "") == "tests" else frozenset()
    name = _words(stem, skip)
    above = {w for f in folders for w in split_identifier(f) if len(w) > 1 and w not in skip}
    return name, frozenset(above - name)


def _named_by(path: str) -> tuple[list[str], str]:
    """The folders above a file, and the stem that names it (its folder's, when the
    file's own is generic: the folder is then no longer among those above)."""
    parts = path.split("/")
    folders = parts[:-1]
    stem = parts[-1].split(".")[0]
    if stem.lower() in _GENERIC_STEMS and folders:
        stem = folders.pop()
    return folders, stem


def _words(stem: str, skip: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(w for w in split_identifier(stem) if len(w) > 1 and w not in skip)


@lru_cache(maxsize=262_144)
def same_word(a: str, b: str) -> bool:
    """Equal, or sharing a stem-like prefix: lock/lockfile, float/floating, check/checker."""
    if a == b:
        return True
    shorter = min(len(a), len(b))
    need = max(4, math.ceil(0.75 * shorter))  # shared prefix of 4+ and 3/4 of the shorter
    return need <= shorter and a[:need] == b[:need]


def _by_prefix(words: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Words by their first four letters: ``same_word`` needs four in common (or equality)."""
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
    return len(term) >= 4 and any(same_word(term, w) for w in buckets.get(term[:4], ()))


def common_name_words(paths: list[str], share: float) -> frozenset[str]:
    """Words in the names of at least ``share`` of the code files (and five or more):
    ramsey/uuid's "uuid", Monolog's "handler". Such a word tells little about which
    file a query means (``path_matches`` leaves it out of the share)."""
    named = [words for path in paths if (words := _source_name_words(path)) is not None]
    counts = Counter(word for words in named for word in words)
    least = max(5.0, share * len(named))
    return frozenset(word for word, count in counts.items() if count >= least)


@lru_cache(maxsize=262_144)
def _source_name_words(path: str) -> frozenset[str] | None:
    """The words of a code file's name; None for other files. Kept per path, so that a
    file added to a large watched tree costs the next count a lookup per path."""
    language = language_for(path)
    if language in DATA_LANGUAGES or category_of(path, language) != "code":
        return None
    # a source file is no test file, so its name's words are path_words' first set; the
    # folders' words are not needed, nor a place in path_words' cache, which searches use
    return _words(_named_by(path)[1])


@lru_cache(maxsize=65_536)
def path_matches(
    terms: tuple[str, ...], path: str, common: frozenset[str] = frozenset()
) -> tuple[float, bool]:
    """The share of the file name's words that query terms name (0.0: none), and whether
    another term names a folder above it (a word already naming the file adds nothing:
    router/route.ex for "routes").

    A share, not a yes or no: "options" names all of ``Options.hs`` but a third of
    ``CommandLineOptions.hs``, a module about something more particular. Words of
    ``common`` (``common_name_words``) are left out of the name: "uuid" says nothing of
    ``UuidFactory.php`` in ramsey/uuid, and ``Uuid.php`` has no word left to be named by.
    """
    name, name_buckets, above, above_buckets = _path_buckets(path)
    if common and not name.isdisjoint(common):
        name = name - common
        name_buckets = _by_prefix(name)
    keys = _term_keys(terms)
    naming = []
    if _may_match(keys, name, name_buckets):
        naming = [term for term in terms if _matches_any(term, name, name_buckets)]
    if not naming:
        share = 0.0
    else:
        named = sum(1 for word in name if any(same_word(term, word) for term in naming))
        share = named / len(name)
    in_folder = _may_match(keys, above, above_buckets) and any(
        _matches_any(term, above, above_buckets) for term in terms if term not in naming
    )
    return share, in_folder


#: Consecutive query words whose initials may name a file (2 to 4: `fs`, `sse`, `cors`).
INITIALISM_WORDS = (2, 4)


def with_initialisms(terms: tuple[str, ...]) -> tuple[str, ...]:
    """The terms, and the initials of each run of 2-4 consecutive ones: a file is often
    named for its subject's initialism (`hmr.ts` for "hot module replacement",
    `sse.rs` for "server-sent events", `hf.py` for "HuggingFace Hub")."""
    shortest, longest = INITIALISM_WORDS
    initials = {
        "".join(term[0] for term in terms[start : start + size])
        for size in range(shortest, longest + 1)
        for start in range(len(terms) - size + 1)
    }
    return terms + tuple(sorted(initials.difference(terms)))


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
