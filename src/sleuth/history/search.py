"""One history search: filter, retrieve (BM25 + cosine), fuse, and pick matching hunks.

Filters run first, in SQLite, and both retrievers are restricted to the commits that
pass, so a narrow filter (one author, one folder) never loses its matches to a
candidate cut-off.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import tantivy

from .. import config
from ..discover import holds_key, sensitive
from ..languages import language_for
from ..search.classify import QueryPlan
from ..store.lexical import LexicalStore, chunk_hits
from ..store.vectors import VectorStore
from .results import CommitResult, HistoryResponse, Hunk
from .store import CommitRow, HistoryStore

MAX_FILES_LISTED = 20
#: A merge repeats its branch's commits: it ranks a little below the commit itself.
MERGE_PRIOR = 0.9
MAX_HUNKS = 3
MAX_HUNK_LINES = 40


@dataclass(frozen=True)
class HistoryFilters:
    author: str | None = None
    since: int | None = None  # unix seconds, inclusive
    until: int | None = None
    paths: list[str] | None = None  # every stored path that matches --path

    def active(self) -> bool:
        return any(x is not None for x in (self.author, self.since, self.until, self.paths))


def lexical_hits(
    lexical: LexicalStore, terms: list[str], limit: int, within: set[int] | None
) -> dict[int, float]:
    if not terms or (within is not None and not within):
        return {}
    query = lexical.query_of(terms)
    if query is None:
        return {}
    if within is not None:
        only = tantivy.Query.const_score_query(
            tantivy.Query.term_set_query(lexical.schema, "chunk_id", sorted(within)), 0.0
        )
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, query), (tantivy.Occur.Must, only)]
        )
    searcher = lexical.index.searcher()
    return dict(chunk_hits(searcher, searcher.search(query, limit).hits))


def semantic_hits(
    vectors: VectorStore,
    query_vector: np.ndarray,
    limit: int,
    within: set[int] | None,
    also: list[int],
) -> dict[int, float]:
    if within is None:
        hits = dict(vectors.search(query_vector, limit))
    else:
        scores = vectors.similarity(query_vector, sorted(within))
        hits = dict(sorted(scores.items(), key=lambda kv: -kv[1])[:limit])
    missing = [c for c in also if c not in hits]
    hits.update(vectors.similarity(query_vector, missing))
    return hits


def fuse(
    plan: QueryPlan, lexical: dict[int, float], semantic: dict[int, float], mode: str
) -> dict[int, float]:
    """Weighted min-max fusion, as for code (docs/architecture.md, Fusion)."""
    top = max(lexical.values(), default=0.0) or 1.0
    high = max(semantic.values(), default=0.0)
    low = min(semantic.values(), default=0.0)
    spread = high - low
    scores = {}
    for commit_id in set(lexical) | set(semantic):
        lex = lexical.get(commit_id, 0.0) / top
        sem = None
        if commit_id in semantic:  # all alike (one commit left by a filter): all best
            sem = (semantic[commit_id] - low) / spread if spread else 1.0
        if mode == "lexical":
            scores[commit_id] = lex
        elif mode == "semantic":
            scores[commit_id] = sem or 0.0
        else:
            scores[commit_id] = plan.lexical_weight * lex + plan.semantic_weight * (
                sem if sem is not None else lex
            )
    return scores


def run_search(
    plan: QueryPlan,
    store: HistoryStore,
    lexical: LexicalStore,
    vectors: VectorStore,
    embed_query: Callable[[str], np.ndarray] | None,
    k: int,
    filters: HistoryFilters,
    mode: str,
) -> HistoryResponse:
    response = HistoryResponse(query=plan.text, mode=mode, query_class=plan.kind)
    within = None
    if filters.active():
        within = store.ids_where(filters.author, filters.since, filters.until, filters.paths)
        if not within:
            response.reason = "no commit passes the filters"
            return response
    pool = config.CANDIDATES
    lexical_scores = lexical_hits(lexical, plan.terms, pool, within) if mode != "semantic" else {}
    semantic_scores: dict[int, float] = {}
    if mode != "lexical" and embed_query is not None and len(vectors):
        query_vector = embed_query(plan.text)
        semantic_scores = semantic_hits(vectors, query_vector, pool, within, list(lexical_scores))
    scores = fuse(plan, lexical_scores, semantic_scores, mode)
    if not scores:
        response.reason = "no commit matches the query terms"
        return response
    rows = store.commits_by_id(scores)
    for row in rows.values():
        if len(row.parents) > 1:
            scores[row.id] *= MERGE_PRIOR
    relevant = [row for row in rows.values() if scores[row.id] > 0]
    if not relevant:
        response.reason = "no commit matches the query"
        return response
    ranked = sorted(relevant, key=lambda r: (-scores[r.id], -r.author_time))[:k]
    response.results = [_result(row, scores[row.id]) for row in ranked]
    return response


def _result(row: CommitRow, score: float) -> CommitResult:
    return CommitResult(
        sha=row.sha,
        date=row.date,
        author=row.author_name,
        email=row.author_email,
        subject=row.subject,
        files=row.paths[:MAX_FILES_LISTED],
        score=round(score, 6),
        body=row.body,
        parents=row.parents,
    )


_FILE_HEADER = re.compile(r"^diff --git (?:\"?a/)(.+?)\"? (?:\"?b/)(.+?)\"?$")


def split_hunks(patch: str) -> list[Hunk]:
    """Hunks of a unified diff, each with the path it belongs to."""
    hunks: list[Hunk] = []
    path = ""
    current: list[str] | None = None
    header = ""
    for line in patch.split("\n"):
        if line.startswith("diff --git "):
            match = _FILE_HEADER.match(line)
            path = match.group(2) if match else line[len("diff --git ") :]
            current = None
            continue
        if line.startswith("+++ ") and current is None:
            if line[4:] != "/dev/null":
                path = line[6:] if line[4:].startswith("b/") else path
            continue
        if line.startswith("@@"):
            current = []
            header = line
            hunks.append(Hunk(path, header, ""))
            continue
        if current is not None and line[:1] in ("+", "-", " ", "\\"):
            current.append(line)
            hunks[-1].text = "\n".join(current[:MAX_HUNK_LINES]) + (
                f"\n... ({len(current) - MAX_HUNK_LINES} more lines)"
                if len(current) > MAX_HUNK_LINES
                else ""
            )
    return hunks


def matching_hunks(patch: str, terms: list[str], limit: int = MAX_HUNKS) -> list[Hunk]:
    """The hunks that contain the most query terms; the first hunk when none does.
    Hunks of secret files are never shown (``discover.sensitive``, ``holds_key``)."""
    hunks = [
        hunk
        for hunk in split_hunks(patch)
        if not sensitive(hunk.path) and not holds_key(hunk.text, language_for(hunk.path))
    ]
    if not hunks:
        return []
    lowered = [t.lower() for t in terms]
    scored = []
    for position, hunk in enumerate(hunks):
        text = (hunk.header + "\n" + hunk.text).lower()
        hits = sum(1 for t in lowered if t in text)
        scored.append((hits, -position, hunk))
    best = [h for hits, _, h in sorted(scored, key=lambda x: (-x[0], -x[1])) if hits > 0]
    return best[:limit] if best else hunks[:1]
