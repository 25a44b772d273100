"""Names asked for with a typing slip (``Depenss``, ``TyeAdapter``, ``chunks_holdng``) or
cut short (``HistoryInd``, ``parse_conf``).

A name the tree defines nowhere, with a word that appears nowhere in it, cannot be what
the person meant: the search then asks for the closest name the tree does define, and says
so. A name that appears nowhere whole but begins defined names inside a word was cut
short: the search asks for the shortest of them, when the others extend it. Only names
are respelled (a bare identifier, a pasted declaration, the ``ConfgParser`` of "where
does ConfgParser read files"); words keep their spelling. A name that is used but not
defined here (``useState``, ``HashMap``) appears in the text, so it is never respelled.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from ..store.meta import MetaStore
from ..tokens import split_identifier
from .classify import QueryPlan, classify

#: False: every name is searched as typed (``bench/typo_queries.py`` compares the two).
RESPELL = True
#: False: a name cut short is searched as typed (``bench/typo_queries.py --cut``).
COMPLETE = True
#: Parts shorter than this are left alone: one slip turns them into too many names.
SHORTEST_PART = 4
#: Parts this long or longer may hold two slips; shorter ones one.
TWO_SLIPS_FROM = 8
#: Longer names are not looked at when completing one cut short.
LONGEST_NAME = 200
#: What separates the parts of a qualified name (``Rack::Builder``, ``fmt.Println``).
_PART_SEPARATORS = re.compile(r"(::|[.#:/\\])")


class Respelling(NamedTuple):
    plan: QueryPlan
    #: (name as typed, name searched) for each name respelled
    names: list[tuple[str, str]]

    def notice(self) -> str:
        """What the person should be told: which names were searched in their place."""
        return "; ".join(f"nothing here is named {a!r}: searched {b!r}" for a, b in self.names)


def respell(
    plan: QueryPlan, meta: MetaStore, occurs: Callable[[str, bool], bool]
) -> Respelling | None:
    """The query with each mistyped name part replaced by the closest name of the tree,
    or None when nothing is respelled. ``occurs(word, begun)`` tells whether a word is
    in the lexical index (with ``begun``, as the start of a word)."""
    if not RESPELL or plan.kind == "natural" or not plan.identifiers:
        return None
    text = plan.text
    names = []
    for identifier in plan.identifiers:
        pieces = _PART_SEPARATORS.split(identifier)
        fixed = [
            piece if _PART_SEPARATORS.fullmatch(piece) else _respelled_part(piece, meta, occurs)
            for piece in pieces
        ]
        new = "".join(fixed)
        if new != identifier:
            text = text.replace(identifier, new)
            names.append((identifier, new))
    return Respelling(classify(text), names) if names else None


def _respelled_part(part: str, meta: MetaStore, occurs: Callable[[str, bool], bool]) -> str:
    """``part`` itself, unless it is mistyped and a name of the tree is closest to it."""
    if len(part) < SHORTEST_PART or not part[0].isalpha() or meta.find_definitions([part]):
        return part
    completed = _completed(part, meta, occurs)
    if completed is not None:
        return completed
    # every word in the tree, the last perhaps begun: a name cut short that begins more
    # than one name (SearchRe: SearchRequest and SearchResponse) or is whole words
    # (QueryVector of QueryVectorCache), not a slip
    words = split_identifier(part) or [part.lower()]
    if all(occurs(word, at == len(words) - 1) for at, word in enumerate(words)):
        return part
    limit = 2 if len(part) >= TWO_SLIPS_FROM else 1
    defined = _closest_defined(part, meta, limit)
    # A word of the code that is closer still is what was meant, though the tree only
    # uses it (Tokennizer: the imported Tokenizer, not the defined tokenize)
    reach = defined[0] - 1 if defined is not None else limit
    used = _closest_used(part.lower(), meta, reach) if reach > 0 else None
    return used or (defined[1] if defined is not None else part)


def _completed(part: str, meta: MetaStore, occurs: Callable[[str, bool], bool]) -> str | None:
    """The shortest defined name that ``part`` begins, inside one of its words, when
    every other name it begins extends that one (TypeAdap: TypeAdapter, not
    TypeAdapters) and ``part`` is no word of the tree itself (a name the code uses is
    what it asks for); None when it begins no name or two that part ways (GsonBu:
    GsonBuilder and GsonBuildConfig).

    Names begun in the case typed come first (TypeTo: TypeToken, not typeToString), and
    only those when any capital was typed: a part typed in lower case may begin a name
    in any case. Of names that differ only in case, the one defined most often."""
    typed = part.lower()
    # the index holds stems: a part that stems to a word of the tree (``vites``, as
    # ``vite``) is taken for that word, which keeps the common case, a name the code
    # uses, to one cheap look-up
    if not COMPLETE or occurs(typed, False):
        return None
    begun = meta.definition_names_like(part, len(part) + 1, LONGEST_NAME)
    same_case = {name: count for name, count in begun.items() if name.startswith(part)}
    begun = same_case if same_case or typed != part else begun
    if not begun:
        return None
    shortest = min((name.lower() for name in begun), key=len)
    if not all(name.lower().startswith(shortest) for name in begun):
        return None
    forms = [name for name in begun if name.lower() == shortest]
    completed = max(forms, key=lambda name: (begun[name], name))
    return completed if _inside_a_word(completed, len(part)) else None


def _inside_a_word(name: str, at: int) -> bool:
    """Whether ``name`` cut before ``at`` is cut inside one of its words (HistoryInd),
    not between two (VitestProject|Resolver): whole words may name something the tree
    does not define (a class since renamed, a concept), and are searched as words."""
    before, after = name[at - 1], name[at]
    return after.isalnum() and not ((before.islower() or before.isdigit()) and after.isupper())


def _closest_defined(part: str, meta: MetaStore, limit: int) -> tuple[int, str] | None:
    """(slips, name) of the defined name closest to ``part``, within ``limit`` slips.

    Ties go to a name holding every letter typed, in order (a letter left out is the
    commonest slip: APIRoutr is APIRouter rather than APIRoute), then to the same case
    pattern (Grop: Group before group), then to the name defined most often, then by
    name, so that every run answers the same."""
    typed = part.lower()
    best: tuple[int, bool, int, int, str] | None = None
    names = meta.definition_names_like(part[0], len(part) - limit, len(part) + limit)
    letters = Counter(typed)
    for name, count in names.items():
        if _letters_apart(letters, name.lower()) > limit:
            continue  # cheaper than the alignment, and never more than it
        distance = slips(typed, name.lower(), limit)
        if distance > limit:
            continue
        in_order = _holds_in_order(name.lower(), typed)
        key = (distance, not in_order, slips(part, name, limit + 2), -count, name)
        if best is None or key < best:
            best = key
    return (best[0], best[-1]) if best is not None else None


def _closest_used(typed: str, meta: MetaStore, limit: int) -> str | None:
    """The word of the indexed code (lower case) closest to ``typed``, within ``limit``
    slips; ties as for defined names."""
    near = meta.words_like(typed[0], len(typed) - limit, len(typed) + limit)
    ranked = sorted((slips(typed, w, limit), not _holds_in_order(w, typed), w) for w in near)
    return ranked[0][2] if ranked and ranked[0][0] <= limit else None


def _letters_apart(letters: Counter[str], other: str) -> int:
    """How many letters one side holds beyond the other's (``letters`` counts the
    first): a slip changes this by at most one, so it never exceeds ``slips``."""
    theirs = Counter(other)
    return max((letters - theirs).total(), (theirs - letters).total())


def _holds_in_order(name: str, typed: str) -> bool:
    """Whether every letter of ``typed`` is in ``name``, in the same order."""
    letters = iter(name)
    return all(char in letters for char in typed)


def slips(a: str, b: str, limit: int) -> int:
    """Typing slips between ``a`` and ``b``: letters inserted, dropped, replaced, or two
    neighbours swapped (optimal string alignment distance); ``limit + 1`` once it is
    sure to exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, other in enumerate(b, 1):
            cost = char != other
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if before is not None and j > 1 and char == b[j - 2] and a[i - 2] == other:
                value = min(value, before[j - 2] + 1)
            current[j] = value
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return min(previous[-1], limit + 1)
