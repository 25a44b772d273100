"""Names asked for with a typing slip (``Depenss``, ``TyeAdapter``, ``chunks_holdng``).

A name the tree defines nowhere and whose words appear nowhere in it cannot be what the
person meant: the search then asks for the closest name the tree does define, and says
so. Only names are respelled (a bare identifier, a pasted declaration, the
``ConfgParser`` of "where does ConfgParser read files"); words keep their spelling. A
name that is used but not defined here (``useState``, ``HashMap``) appears in the
text, so it is never respelled.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..store.meta import MetaStore
from ..tokens import query_terms
from .classify import QueryPlan, classify

#: False: every name is searched as typed (``bench/typo_queries.py`` compares the two).
RESPELL = True
#: Parts shorter than this are left alone: one slip turns them into too many names.
SHORTEST_PART = 4
#: Parts this long or longer may hold two slips; shorter ones one.
TWO_SLIPS_FROM = 8
#: What separates the parts of a qualified name (``Rack::Builder``, ``fmt.Println``).
_PART_SEPARATORS = re.compile(r"(::|[.#:/\\])")


def respell(plan: QueryPlan, meta: MetaStore, occurs: Callable[[str], bool]) -> QueryPlan | None:
    """The plan of the query with each mistyped name part replaced by the closest
    defined name, or None when nothing is respelled. ``occurs`` tells whether a query
    term is in the lexical index."""
    if not RESPELL or plan.kind == "natural" or not plan.identifiers:
        return None
    text = plan.text
    for identifier in plan.identifiers:
        pieces = _PART_SEPARATORS.split(identifier)
        fixed = [
            piece if _PART_SEPARATORS.fullmatch(piece) else _respelled_part(piece, meta, occurs)
            for piece in pieces
        ]
        new = "".join(fixed)
        if new != identifier:
            text = text.replace(identifier, new)
    return classify(text) if text != plan.text else None


def _respelled_part(part: str, meta: MetaStore, occurs: Callable[[str], bool]) -> str:
    """``part`` itself, unless it is mistyped and one defined name is closest to it."""
    if len(part) < SHORTEST_PART or not part[0].isalpha():
        return part
    if meta.find_definitions([part]) or all(occurs(term) for term in query_terms(part)):
        return part
    limit = 2 if len(part) >= TWO_SLIPS_FROM else 1
    best: tuple[int, bool, int, int, str] | None = None
    for name, count in meta.definition_names_like(
        part[0], len(part) - limit, len(part) + limit
    ).items():
        distance = slips(part.lower(), name.lower(), limit)
        if distance > limit:
            continue
        # fewest slips; then a name that holds every letter typed, in order (a letter
        # left out is the commonest slip: APIRoutr is APIRouter rather than APIRoute);
        # then the same case pattern (Grop: Group before group); then the name defined
        # most often; then by name, so that every run answers the same
        key = (
            distance,
            not _holds_in_order(name.lower(), part.lower()),
            slips(part, name, limit + 2),
            -count,
            name,
        )
        if best is None or key < best:
            best = key
    return best[-1] if best is not None else part


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
