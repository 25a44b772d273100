"""One search over opened stores: retrieve, fuse, rank, filter, merge, preview."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from itertools import pairwise
from typing import NamedTuple

import numpy as np
import tantivy

from .. import config
from ..results import OtherHit, Result, SearchResponse
from ..store.definitions import DefinitionSpan
from ..store.lexical import LexicalStore
from ..store.meta import ChunkRow, MetaStore
from ..store.vectors import VectorStore
from ..tokens import last_part, names_path, short_name
from .callees import callees
from .classify import QueryPlan
from .filters import Filters, chunk_category
from .implementers import structural_implementers
from .ranking.asked_names import TYPE_KINDS, asked_definition_in, symbols_hold_any
from .ranking.evidence import apply_coverage, apply_verbatim
from .ranking.file_order import (
    further_hits,
    lead_with_code,
    lead_with_heads,
    longer_first,
    merge_and_cut,
)
from .ranking.fusion import Scored, best_fused, field_boosts, fuse
from .ranking.path_words import common_name_words
from .ranking.priors import apply_priors, named_line_in
from .ranking.signals import SIGNALS
from .symbols import owned_member_spans
from .uses import ASKED, code_lines, use_matcher, use_scores

PREVIEW_LINES = 3
#: With filters and too few candidates passing, the second try fetches this many times more.
FILTERED_POOL_FACTOR = 10


def search(
    plan: QueryPlan,
    meta: MetaStore,
    lexical: LexicalStore,
    vectors: VectorStore,
    embed_query: Callable[[str], np.ndarray] | None,
    k: int,
    filters: Filters,
    mode: str,
    searcher: tantivy.Searcher | None = None,
    static: VectorSide | None = None,
) -> SearchResponse:
    """``searcher`` pins the tantivy commit to read (see ``Index._read_view``).

    With filters, the usual candidates are tried first; only when fewer than ``k`` of
    them pass are ten times as many fetched (a ``type:code`` filter rarely needs them,
    a narrow ``path:`` often does).
    """
    pools = [config.USES_CANDIDATES if plan.uses_of else config.CANDIDATES]
    if filters.active():
        pools.append(pools[0] * FILTERED_POOL_FACTOR)
    job = _Search(plan, meta, lexical, vectors, embed_query, k, filters, mode, searcher, static)
    for pool in pools:
        response, exhausted = _search_pool(job, pool)
        if len(response.results) >= k or exhausted:
            break
    return response


class VectorSide(NamedTuple):
    """A second model's vectors (the static table's), blended into the semantic side."""

    vectors: VectorStore
    embed_query: Callable[[str], np.ndarray]


class _Search(NamedTuple):
    plan: QueryPlan
    meta: MetaStore
    lexical: LexicalStore
    vectors: VectorStore
    embed_query: Callable[[str], np.ndarray] | None
    k: int
    filters: Filters
    mode: str
    searcher: tantivy.Searcher | None
    static: VectorSide | None


def _search_pool(job: _Search, pool: int) -> tuple[SearchResponse, bool]:
    """One search over ``pool`` candidates per retriever; True when there are no more."""
    plan, meta, lexical, vectors, embed_query, k, filters, mode, searcher, static = job
    response = SearchResponse(query=plan.text, mode=mode, query_class=plan.kind)
    if plan.callees_of:
        return _callees(job, response), True
    if plan.members_of:
        return _members(job, response), True
    lexical_hits: dict[int, float] = {}
    if mode != "semantic":
        lexical_hits = dict(lexical.search(plan.terms, pool, searcher, field_boosts(plan)))
    semantic_hits: dict[int, float] = {}
    exhausted = len(lexical_hits) < pool
    # Files the query names as written on disk (`keylog.h`) are candidates whether or
    # not their words matched, scored as the weakest lexical match at least: the
    # named-file prior has to find them to raise them.
    named = _named_chunks(plan, meta, pool) if plan.file_names else []
    if named and lexical_hits:
        weakest = min(lexical_hits.values())
        for chunk_id in named:
            lexical_hits.setdefault(chunk_id, weakest)
    # A name asked for alone that the tree only re-exports (`pub use dep::{Name}`) has
    # no chunk whose symbol field BM25 could match, only a long block of names that
    # length normalisation sinks: the block scores as the best lexical candidate. (In a
    # question, "how do beforeAll hooks run", the re-export is not what is asked.)
    floor = float(SIGNALS["reexport_floor"])
    if plan.kind == "identifier" and lexical_hits and floor:
        _lift(lexical_hits, meta.reexport_chunks(sorted(plan.symbol_names)), floor)
    holders: dict[int, float] = {}
    implementers: dict[int, str] = {}  # types by their methods: no line names the interface
    if plan.uses_of and lexical_hits:
        # a question about uses is one of presence (``uses``): BM25's order is not kept
        holders = use_scores(
            plan.uses_of,
            meta.texts(lexical_hits),
            plan.use_kind,
            meta.languages_of(lexical_hits) if plan.use_kind in _BY_LANGUAGE else None,
        )
        if plan.use_kind == "extend":  # Go's types satisfy an interface without naming it
            implementers = structural_implementers(meta, plan.uses_of)
            holders.update(dict.fromkeys(implementers, ASKED))
        lexical_hits = holders or lexical_hits
    # likewise the chunk of the one definition of a name asked for alone
    floor = float(SIGNALS["sole_definition_floor"])
    if plan.name_alone and lexical_hits and floor:
        sole = meta.sole_definition_chunk(plan.text)
        _lift(lexical_hits, [sole] if sole is not None else [], floor)
    # and a name asked for alone that nothing defines (a function in a file no grammar
    # reads, a setting's key, an environment variable): the chunks holding it whole
    # come first, before those that only share its words
    whole: set[int] = set()
    if (
        SIGNALS["undefined_name_first"]
        and plan.name_alone
        and lexical_hits
        and not meta.find_definitions([plan.text])
    ):
        whole = set(lexical.holding_whole(plan.text, pool, searcher))
        _lift(lexical_hits, list(whole), 1.0)
    # Chunks that use the name are found by its presence alone: the vectors would add
    # chunks close in meaning that do not use it, and reorder those that do by
    # closeness to the name (both measured worse, `bench/uses_lookup.py`).
    if mode != "lexical" and not holders and embed_query is not None and len(vectors):
        query_vector = embed_query(plan.text)
        semantic_hits = dict(vectors.search(query_vector, pool))
        exhausted = exhausted and len(semantic_hits) < pool
        # Lexical candidates with a vector get their true similarity, not a default.
        missing = [c for c in set(lexical_hits).union(named) if c not in semantic_hits]
        semantic_hits.update(vectors.similarity(query_vector, missing))
    static_hits: dict[int, float] = {}
    if semantic_hits and static is not None:
        # The static table's view of the same candidates (it adds none of its own:
        # measured, its own nearest chunks made the answers worse).
        candidates = list(set(lexical_hits) | set(semantic_hits))
        static_hits = static.vectors.similarity(static.embed_query(plan.text), candidates)
    rows = meta.candidate_rows(
        set(lexical_hits) | set(named) | _live(meta, semantic_hits, lexical_hits)
    )
    if not rows:
        response.reason = "no chunk matches the query terms"
        return response, exhausted
    if filters.active():
        rows = {cid: row for cid, row in rows.items() if filters.accepts_chunk(row)}
    if not rows:
        response.reason = "matches exist, but the filters removed them all"
        return response, exhausted
    if mode == "hybrid" and not lexical_hits and not named:
        # the vectors always have nearest chunks; say that nothing holds the words
        response.notices.append(
            "no chunk holds the words of the query: these are only the closest by meaning"
        )
    scored = fuse(plan, lexical_hits, semantic_hits, rows, mode, static_hits)
    # (BM25 alone hands at most 200 candidates and runs quickly; a question about uses
    # keeps every holder of the use)
    if mode != "lexical" and not plan.uses_of:
        scored = best_fused(scored, plan, set(named) | whole)
    definitions = _definitions(plan, meta, rows)
    apply_priors(
        plan,
        scored,
        definitions,
        meta.generated_paths(),
        meta.translation_folders(),
        _common_name_words(meta),
    )
    apply_coverage(plan, scored, meta.file_terms)
    apply_verbatim(plan, scored, meta.chunks_holding)
    longer_first(plan, scored)
    lead_with_heads(scored)
    lead_with_code(plan, scored)
    first = _use_first(plan, holders) or ((lambda item: item.row.id in whole) if whole else None)
    kept = merge_and_cut(scored, k, evidence=not plan.uses_of, first=first)
    if first is not None:
        # Hits put first by rule keep their place when a caller sorts by score: no
        # later score is shown above an earlier one.
        for before, item in pairwise(kept):
            item.score = min(item.score, before.score)
    place = _PLACES.get(plan.use_kind)
    if place and holders and not any(chunk_category(item.row) == place for item in scored):
        what = "test" if place == "tests" else "documentation"
        response.notices.append(f"no {what} names {plan.uses_of}: these are its other uses")
    others = further_hits(scored, kept)
    texts = meta.texts([item.row.id for item in kept])
    for item, other in zip(kept, others, strict=True):
        row = item.row
        text = texts.get(row.id, row.text)
        symbol, kind = _label(row, plan, definitions)
        response.results.append(
            Result(
                path=row.path,
                start_line=item.start_line,
                end_line=item.end_line,
                symbol=symbol,
                kind=kind,
                language=row.language,
                score=round(item.score, 6),
                preview=preview(
                    text,
                    _type_lines(implementers[row.id]) if row.id in implementers else plan.terms,
                    _asked_line(row, plan)
                    if plan.file_lines or holders.get(row.id, 0.0) < ASKED
                    else _use_line(text, plan, row.language),
                ),
                parent=row.parent,
                signature=row.signature,
                also=[
                    OtherHit(start_line=o.start_line, end_line=o.end_line, symbol=o.row.symbol)
                    for o in other
                ],
            )
        )
    return response, exhausted


def _common_name_words(meta: MetaStore) -> frozenset[str]:
    """The words in many of the tree's file names (``path_words.common_name_words``)."""
    share = float(SIGNALS["common_name_share"])
    if not share:
        return frozenset()
    return meta.from_indexed_paths(
        f"common name words {share}", lambda paths: common_name_words(paths, share)
    )


def _use_first(plan: QueryPlan, holders: dict[int, float]) -> Callable[[Scored], bool] | None:
    """For a question about uses, the hits that come before all others: those holding the
    use asked for. A definition's own line reads as a call (``def retry(``, ``void
    retry(``), so for calls the chunk defining the name is not among them; an assignment
    that defines it (``inst.check = ..``) is an assignment all the same. A question
    about tests (or docs) puts every test (doc) that names it first."""
    if not holders:
        return None
    place = _PLACES.get(plan.use_kind)
    if place:  # every test (doc) that names it; a docs section titled so is no definition
        return lambda item: chunk_category(item.row) == place and not item.defines_used
    if plan.use_kind in _NOT_IN_DEFINITION:
        return lambda item: item.lexical >= ASKED and not item.defines_used
    return lambda item: item.lexical >= ASKED


#: Uses whose forms differ by language (calls without brackets, Go's conversions).
_BY_LANGUAGE = frozenset({"call", "use", "test", "construct"})
#: Uses that the name's own definition is no instance of (its ``def retry(`` line reads
#: as a call, a Java constructor ``Config(..) {`` as a construction).
_NOT_IN_DEFINITION = frozenset({"call", "use", "mention", "construct"})
#: The questions about where a name is tested or documented, and where their answers are.
_PLACES = {"test": "tests", "doc": "docs"}


def _callees(job: _Search, response: SearchResponse) -> SearchResponse:
    """The definitions a function calls, in written order (``callees``): a lookup, not a
    ranking, so neither retriever is asked."""
    name = job.plan.callees_of or ""
    found, called = callees(job.meta, name)
    kept = [(span, row) for span, row in called if job.filters.accepts_chunk(row)][: job.k]
    if not found:
        response.reason = f"{name} is defined nowhere in this index"
    elif not kept:
        response.reason = (
            "matches exist, but the filters removed them all"
            if called
            else f"{name} calls nothing this index defines"
        )
    _list_in_order(
        response,
        [
            _Listed(row, span.name, span.kind, span.start_line, [short_name(span.name).lower()])
            for span, row in kept
        ],
    )
    return response


def _members(job: _Search, response: SearchResponse) -> SearchResponse:
    """What a type holds ("methods of Client"): its declaration, then the definitions it
    owns in file and line order, each in its chunk; a lookup, not a ranking."""
    name = last_part(job.plan.members_of or "")
    meta = job.meta
    heads = meta.definitions_in([name], TYPE_KINDS, None)
    members = meta.members_of(name, MAX_MEMBERS)
    rows = meta.chunks_by_id([chunk_id for _, chunk_id in heads + members])
    listed = [
        (span, rows[chunk_id])
        for span, chunk_id in heads + members
        if chunk_id in rows and job.filters.accepts_chunk(rows[chunk_id])
    ]
    if not heads and not members:
        response.reason = f"{name} owns no definition in this index"
    elif not listed:
        response.reason = "matches exist, but the filters removed them all"
    kept = listed[: job.k]
    _list_in_order(
        response,
        [
            _Listed(
                row,
                span.name,
                span.kind,
                span.start_line,
                [],
                span.parent,
                span.signature,
                # a member by its own lines (a type by its chunk: the head, not all of it)
                None if span.kind in TYPE_KINDS else (span.start_line, span.end_line),
            )
            for span, row in kept
        ],
    )
    if len(listed) > len(kept):
        response.notices.append(f"{len(listed) - len(kept)} more: ask for a larger k")
    return response


class _Listed(NamedTuple):
    """One answer of a lookup (callees, members): a definition in its chunk."""

    row: ChunkRow
    symbol: str
    kind: str
    line: int  # the definition's first line, which the preview starts from
    terms: list[str]
    parent: str | None = None  # (the chunk's, unless the definition's own is given)
    signature: str | None = None
    lines: tuple[int, int] | None = None  # (the chunk's, unless given)


def _list_in_order(response: SearchResponse, listed: list[_Listed]) -> None:
    """The answers of a lookup, in the order found, scored by place."""
    for place, item in enumerate(listed):
        row = item.row
        response.results.append(
            Result(
                path=row.path,
                start_line=item.lines[0] if item.lines else row.start_line,
                end_line=item.lines[1] if item.lines else row.end_line,
                symbol=item.symbol,
                kind=item.kind,
                language=row.language,
                score=round(1.0 - place / (len(listed) + 1), 6),
                preview=preview(row.text, item.terms, item.line - row.start_line),
                parent=row.parent if item.parent is None else item.parent,
                signature=row.signature if item.signature is None else item.signature,
                also=[],
            )
        )


#: Members of a type looked up at most.
MAX_MEMBERS = 500


def _lift(hits: dict[int, float], chunk_ids: list[int], share: float) -> None:
    """Each chunk scores at least ``share`` of the best lexical score in ``hits``."""
    best = max(hits.values()) * share
    for chunk_id in chunk_ids:
        hits[chunk_id] = max(hits.get(chunk_id, 0.0), best)


def _label(row: ChunkRow, plan: QueryPlan, definitions: dict) -> tuple[str, str]:
    """(symbol, kind) a result is shown with: the chunk's own, or the definition the
    query asks for when it starts inside a chunk named for another (``ServeHTTP``
    merged into the chunk of the type before it)."""
    if not plan.symbol_names or plan.uses_of:
        return row.symbol, row.kind
    found = asked_definition_in(row, plan.symbol_names, definitions)
    if found is None:
        return row.symbol, row.kind
    return found.name, found.kind


def _type_lines(name: str) -> list[str]:
    """Preview terms that pick a Go type's declaration line (``type X struct``, or ``X
    struct`` in a ``type ( .. )`` group) over the lines that only name it."""
    return [f"type {name}", f"{name} struct", f"{name} ", f"{name}"]


def _use_line(text: str, plan: QueryPlan, language: str) -> int | None:
    """Where in a chunk holding the use a question asks for (0: its first line) the
    first line holding it is: the call, the import, the raise, rather than the first
    line naming the name (an import, a comment, an example in a docstring). None when no
    one line shows it (a type's head over several lines)."""
    assert plan.uses_of is not None
    lines = code_lines(text, blank=True).split("\n")
    for flags in (0, re.I):
        asked = use_matcher(plan.uses_of, plan.use_kind, flags, language)
        for number, line in enumerate(lines):
            if line and asked(line):
                return number
    return None


def _asked_line(row: ChunkRow, plan: QueryPlan) -> int | None:
    """Where in the chunk (0: its first line) the line is that the query points at."""
    line = named_line_in(row, plan.file_lines) if plan.file_lines else None
    return None if line is None else line - row.start_line


def _named_chunks(plan: QueryPlan, meta: MetaStore, pool: int) -> list[int]:
    """Chunks of the files the query writes with their extension (``keylog.h``)."""
    return [
        chunk_id
        for chunk_id, path in meta.chunks_in_files(plan.file_names, pool)
        if any(names_path(path, named) for named in plan.file_names)
    ]


#: Something written before a name: an owner (``Config.load``, ``Rack::Builder``).
_OWNED = re.compile(r"::|[.#:/\\]")
#: Definitions of one owned member looked at, at most.
MEMBERS = 20


def _definitions(
    plan: QueryPlan, meta: MetaStore, rows: dict[int, ChunkRow]
) -> dict[str, list[DefinitionSpan]]:
    """Where the names a query asks for are defined, by name as asked. Definitions named
    with their owner (Lua's ``Spec:import`` for ``import``) are found through the
    candidates that carry such a name: the name table cannot be searched by its end."""
    names = plan.symbol_names
    if not names:
        return {}
    found = meta.find_definitions(sorted(names))
    # (a small one merged into its neighbour's chunk is among the chunk's symbols)
    owned = {
        symbol
        for row in rows.values()
        if symbols_hold_any(row, names)
        for symbol in (row.symbol, *row.symbols.split())
        if symbol.lower() not in names and short_name(symbol).lower() in names
    }
    for name, spans in meta.find_definitions(sorted(owned)).items():
        found.setdefault(short_name(name), []).extend(spans)
    # a method asked for alone with its owner (CliRunner.invoke, Rack::Builder#call):
    # the owner's method of that name, as find_symbol finds it (types keep the rules
    # above: Rails::Engine is reopened in many files; names in a question are uses)
    for name in sorted(names - set(found)) if plan.kind == "identifier" else ():
        if not _OWNED.search(name) or any(ch in name for ch in "*?"):
            continue
        members = owned_member_spans(meta, name, MEMBERS)
        members = [m for m in members if m.kind in ("method", "function")]
        if members:
            found[name] = members
    return found


def _live(meta: MetaStore, semantic: dict[int, float], lexical: dict[int, float]) -> set[int]:
    """The semantic candidates whose chunks exist in this snapshot.

    Lexical ids come from the tantivy commit paired with the snapshot; vectors are
    republished after an index run, so for a moment they may name chunks it deleted.
    """
    wanted = np.fromiter((i for i in semantic if i not in lexical), dtype=np.int64)
    if not len(wanted):
        return set()
    live = meta.live_chunk_ids()
    at = np.clip(np.searchsorted(live, wanted), 0, max(len(live) - 1, 0))
    present = live[at] == wanted if len(live) else np.zeros(len(wanted), dtype=bool)
    return set(wanted[present].tolist())


def preview(text: str, terms: list[str], asked: int | None = None) -> str:
    """A few lines around the line that matches most query terms (else the first lines),
    or from the line the query points at (``asked``: its place in the chunk, 0 first)."""
    lines = text.split("\n")
    if asked is not None:
        best = min(max(asked, 0), len(lines) - 1)
    else:
        best = _most_terms_line(text.lower(), [t.lower() for t in terms if t])
    while best < len(lines) and not lines[best].strip():
        best += 1
    picked = [_cut(line.rstrip()) for line in lines[best : best + PREVIEW_LINES]]
    return "\n".join(picked).strip("\n")


def _most_terms_line(low: str, terms: list[str]) -> int:
    """The first line holding the most of ``terms`` (each counted once per line, as
    often as listed), 0 when none: found by searching the whole text for each term,
    not each line for every term."""
    starts = [0]
    at = low.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = low.find("\n", at + 1)
    hits = [0] * len(starts)
    for term in terms:
        seen = -1
        at = low.find(term)
        while at != -1:
            line = bisect_right(starts, at) - 1
            if line != seen:
                hits[line] += 1
                seen = line
            at = low.find(term, starts[line + 1] if line + 1 < len(starts) else len(low))
    most = max(hits)
    return hits.index(most) if most else 0


#: Characters of one preview line; a longer line ends in "…" so it is not taken whole.
PREVIEW_LINE_CHARS = 160


def _cut(line: str) -> str:
    return line if len(line) <= PREVIEW_LINE_CHARS else line[: PREVIEW_LINE_CHARS - 1] + "…"
