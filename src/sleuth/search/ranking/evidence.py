"""Boosts from the query's own text found in the code: a pasted line held verbatim,
and the share of a question's words a file mentions anywhere (coverage).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable

from ..classify import QueryPlan
from ..filters import chunk_category
from .file_order import best_by_file
from .fusion import Scored
from .path_words import same_word
from .signals import PRIORS

#: The best hits looked through for the query's text (a chunk that holds it holds all of
#: the query's words, but long chunks and common words can put it far down).
VERBATIM_HITS = 100

#: Shorter than this, or fewer words with no code punctuation, the query is a name or a
#: phrase common enough to stand in any comment ("error handling"); names have priors
#: of their own.
VERBATIM_MIN_CHARS = 12

VERBATIM_MIN_WORDS = 4

_CODE_MARKS = frozenset("()[]{}=;,'\"<>")


def verbatim_needle(query: str) -> str | None:
    """The query as a chunk would hold it when pasted from one (lower case, spaces as
    one, surrounding quotes off), or None when it is too short or too common a phrase."""
    wanted = " ".join(query.strip().strip("\"'`").lower().split())
    if len(wanted) < VERBATIM_MIN_CHARS:
        return None
    if wanted.count(" ") + 1 < VERBATIM_MIN_WORDS and _CODE_MARKS.isdisjoint(wanted):
        return None
    return wanted


def apply_verbatim(
    plan: QueryPlan,
    scored: list[Scored],
    holding: Callable[[list[int], str, bool], set[int]],
) -> None:
    """Raise the hits of source whose text holds the query as written, in any case
    (``MetaStore.chunks_holding``); of tests and docs only when the query asks for them,
    since tests repeat the messages they check and docs quote example questions."""
    boost = PRIORS["verbatim"]
    wanted = verbatim_needle(plan.text)
    if boost == 1.0 or wanted is None:
        return
    allowed = (
        {"code"}
        | ({"tests"} if plan.wants_tests else set())
        | ({"docs"} if plan.wants_docs else set())
    )
    top = sorted(scored, key=lambda item: -item.score)[:VERBATIM_HITS]
    top = [item for item in top if chunk_category(item.row) in allowed]
    found = holding([item.row.id for item in top], wanted, plan.spans_lines)
    for item in top:
        if item.row.id in found:
            item.score *= boost


#: Only the best files are checked for coverage: the boost at most doubles a score, and
#: files further down do not reach the top 10 with it.
COVERAGE_FILES = 50


def apply_coverage(
    plan: QueryPlan,
    scored: list[Scored],
    terms_of: Callable[[Iterable[str]], dict[str, list[str]]],
) -> None:
    """Raise each hit by the share of the query's terms its file mentions anywhere.

    Chunks are ranked one by one, but a question's words are often spread over a file
    (the class in one chunk, the option it reads in another); the file that mentions
    them all is more likely the one asked about. ``terms_of`` gives each file's sorted
    terms (``MetaStore.file_terms``). A shared prefix counts, as for path words.
    """
    boost = PRIORS["coverage"] - 1.0
    terms = sorted(set(plan.terms))
    if not boost or len(terms) < 2 or not scored:
        return
    best = {path: item.score for path, item in best_by_file(scored).items()}
    top = sorted(best, key=lambda path: -best[path])[:COVERAGE_FILES]
    words = terms_of(top)
    share = {
        path: sum(1 for term in terms if _mentions(words[path], term)) / len(terms)
        for path in top
        if path in words
    }
    for item in scored:
        item.score *= 1.0 + boost * share.get(item.row.path, 0.0)


def _mentions(words: list[str], term: str) -> bool:
    """Whether sorted ``words`` hold ``term`` or a word sharing its stem (``same_word``:
    equal, or four or more letters in common, so only words of the term's first four
    letters, a run of the sorted list, are looked at; a shorter term must be equal)."""
    head = term[:4]
    at = bisect_left(words, head)
    if len(term) < 4:
        return at < len(words) and words[at] == term
    while at < len(words) and words[at].startswith(head):
        if same_word(term, words[at]):
            return True
        at += 1
    return False
