"""Symbol lookup: definitions by name from the parser's ``definitions`` table.

Search ranks chunks by what they say; a lookup answers "where is ``name`` defined"
from the names the grammars found, exact first, then (when asked) close spellings.
"""

from __future__ import annotations

import difflib
import re

from ..errors import QueryError
from ..results import Result
from ..store.definitions import DefinitionRow, DefinitionSpan
from ..store.meta import MetaStore
from ..store.sqlite import escape_like
from ..tokens import NAME_SIGILS, last_part, owner_of, short_name, split_identifier
from .filters import Filters, definition_category

#: Characters a definition's name may hold besides letters and digits: a lookup of
#: `_`, `$` (jQuery, zod's `$ZodType`) or `_*` (private names) has something to find.
NAME_CHARACTERS = "_" + NAME_SIGILS
#: Rows read per form of the name: far more than any answer shows.
ROWS_PER_FORM = 5000


#: ``(*Command).`` or ``(Command).`` at the start of a name: Go's method expression.
_GO_METHOD_EXPRESSION = re.compile(r"^\(\*?([^\W\d]\w*)\)(?=\.)")


def split_symbol(name: str) -> tuple[str, str]:
    """``Config.load`` -> (``load``, ``config``): the name and its qualifier, dotted and
    lower case (``::``, ``#``, ``:``, ``/`` separate parts as ``.`` does; Go's method
    expression ``(*Command).Run`` is ``Command.Run``)."""
    name = _GO_METHOD_EXPRESSION.sub(r"\1", name.strip())
    parts = [p for p in re.split(r"::|[.#:/\\]", name) if p]
    if not parts or not any(ch.isalnum() or ch in NAME_CHARACTERS for ch in parts[-1]):
        raise QueryError(f"not a symbol name: {name!r}")
    return parts[-1], ".".join(parts[:-1]).lower()


def definitions_named(
    meta: MetaStore,
    base: str,
    qualifier: str,
    exact: bool,
    kind: str | None,
    filters: Filters,
    k: int,
) -> list[Result]:
    """The best ``k`` definitions of ``base`` (under ``qualifier``, when given) that pass
    the filters. ``exact``: the name in any case, exact case first; otherwise also
    substring matches and close spellings. ``*`` and ``?`` glob in both."""
    glob = any(ch in base for ch in "*?")
    wanted_kind = kind.lower() if kind else None
    scored: dict[tuple[str, int], tuple[float, DefinitionRow]] = {}
    for row in _candidates(meta, base, exact, glob):
        if wanted_kind and row.kind != wanted_kind:
            continue
        category = definition_category(row)
        if not filters.accepts(row.path, row.language or "", row.kind, category):
            continue
        fit = _qualifier_fit(qualifier, row) if qualifier else 1.0
        if not fit:
            continue
        score = name_score(base, row.name, glob) * fit
        if row.kind == "impl":
            score *= 0.99  # `impl Fragment` after the `enum Fragment` it implements for
        elif row.kind == "reexport":
            score *= 0.98  # `pub use crate::routing::Router` after `struct Router`
        if category != "code":
            score *= 0.9  # tests and docs after code, as in search
        key = (row.path, row.start_line)
        if key not in scored or scored[key][0] < score:
            scored[key] = (score, row)
    ordered = sorted(scored.values(), key=lambda item: (-item[0], item[1].path))
    return [_result(row, score) for score, row in ordered[:k]]


def owned_member_spans(meta: MetaStore, name: str, k: int) -> list[DefinitionSpan]:
    """The definitions of a member written with its owner (``CliRunner.invoke``,
    ``Rack::Builder#call``) as ``find_symbol`` finds them, best first; none for a name
    that is no symbol."""
    try:
        base, qualifier = split_symbol(name)
    except QueryError:
        return []
    return [
        DefinitionSpan(r.path, r.start_line, r.end_line, last_part(r.symbol), r.kind)
        for r in definitions_named(meta, base, qualifier, True, None, Filters(), k)
    ]


def _candidates(meta: MetaStore, base: str, exact: bool, glob: bool) -> list[DefinitionRow]:
    """Rows that may be what is asked for: by the whole name, or by the part after an
    owner (Lua's ``M.setup`` for ``setup``)."""
    if glob:
        like = escape_like(base).replace("*", "%").replace("?", "_")
        after_owner = _glob_regex(base)
        return meta.definitions_named(like, like=True, limit=ROWS_PER_FORM) + [
            row
            for row in meta.definitions_owned(like, limit=ROWS_PER_FORM, like=True)
            if after_owner.fullmatch(short_name(row.name))
        ]
    rows = meta.definitions_named(base, like=False, limit=ROWS_PER_FORM)
    rows += meta.definitions_owned(base, limit=ROWS_PER_FORM)
    if not exact:
        words = split_identifier(base) or [base]
        like = "%" + "%".join(escape_like(w) for w in words) + "%"
        rows += meta.definitions_named(like, like=True, limit=ROWS_PER_FORM)
        close = difflib.get_close_matches(base, meta.definition_names(), n=20, cutoff=0.75)
        for near in close:
            rows += meta.definitions_named(near, like=False, limit=200)
    return rows


def _result(row: DefinitionRow, score: float) -> Result:
    return Result(
        path=row.path,
        start_line=row.start_line,
        end_line=row.end_line,
        symbol=f"{row.parent}.{row.name}" if row.parent else row.name,
        kind=row.kind,
        language=row.language or "",
        score=round(score, 4),
        preview=row.signature,
        parent=row.parent,
        signature=row.signature,
    )


def _owners(row: DefinitionRow) -> str:
    """Where a definition sits, dotted: its parent and the owner in its own name
    (``M`` of Lua's ``M.setup``), for qualified lookups (``symbol:M.setup``)."""
    parent = row.parent.replace("::", ".")
    return ".".join(part for part in (parent, owner_of(row.name)) if part).lower()


def _qualifier_fit(qualifier: str, row: DefinitionRow) -> float:
    """How the owners written before a name fit a definition: 1.0 when its owners hold
    them (``Base.call``), a little less when only the last one is its owner and the
    others are namespaces the table does not record (``Sinatra::Base#call``,
    ``cobra.Command.Execute``: a Go package, a Ruby module around the class), or when
    they are the path of the module that defines it at its top; 0 else."""
    owners = _owners(row)
    if qualifier in owners:
        return 1.0
    parts = qualifier.split(".")
    folders = set(re.split(r"[/._-]", row.path.lower()))
    if len(parts) > 1 and parts[-1] in owners.split("."):
        # namespaces usually mirror folders (lib/sinatra/base.rb): those that do first
        return 0.98 if all(part in folders for part in parts[:-1]) else 0.9
    # a module's path before a name it defines at its top (flask.helpers.url_for,
    # lualine.setup: a module is asked for as it is imported)
    if owners or not all(part in folders for part in parts):
        return 0.0
    stem = row.path.lower().rsplit("/", 1)[-1].split(".", 1)[0]
    return 0.95 if stem == parts[-1] else 0.92  # the module itself, then files under it


def _glob_regex(glob: str) -> re.Pattern[str]:
    """A symbol glob (``set_*``, ``?etup``) as a case-blind regex over one name part."""
    pattern = re.escape(glob).replace(r"\*", ".*").replace(r"\?", ".")
    return re.compile(pattern, re.IGNORECASE)


def name_score(wanted: str, name: str, glob: bool) -> float:
    """1.0 for the exact name (or the name after its owner: ``send`` of ``res.send``),
    a little less with a sigil (``$ZodType``) or in other case, then by closeness."""
    if wanted in (name, last_part(name)):
        return 1.0
    if short_name(name) == wanted:
        return 0.97
    if short_name(name).lower() == wanted.lower():
        return 0.95
    if glob:
        return 0.8
    low, target = name.lower(), wanted.lower()
    closeness = difflib.SequenceMatcher(None, target, low).ratio()
    words = split_identifier(wanted)
    if target in low or (len(words) > 1 and all(w in low for w in words)):
        return 0.6 + 0.3 * closeness
    return 0.6 * closeness
