"""Fusion: the two retrievers' scores of each candidate made one.

Fusion is weighted and scaled: BM25 scores are divided by the best one, cosines are
scaled from the candidates' mean (0) to the best (1), then mixed with the query class's
weights. A chunk without a vector (the deep tier still filling in) takes its lexical
score in place of the semantic one, so it is neither punished nor favoured for being
unembedded.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ...languages import DOC_LANGUAGES
from ...store.lexical import FIELD_BOOSTS
from ...store.meta import ChunkRow
from ..classify import QueryPlan
from ..filters import category_of
from .asked_names import symbols_hold_any
from .signals import SIGNALS


@dataclass(slots=True)
class Scored:
    row: ChunkRow
    score: float
    lexical: float = 0.0
    semantic: float | None = None
    start_line: int = 0
    end_line: int = 0
    #: 0, or how the chunk defines a name the query asks for (``how_defined``)
    defines: int = 0
    #: the chunk defines the name a question about uses asks about
    defines_used: bool = False

    def __post_init__(self) -> None:
        self.start_line = self.start_line or self.row.start_line
        self.end_line = self.end_line or self.row.end_line


def field_boosts(plan: QueryPlan) -> dict[str, float]:
    """BM25's boost per field for this query (``SIGNALS["words_symbol_boost"]``)."""
    boost = float(SIGNALS["words_symbol_boost"])
    if plan.kind == "identifier" or not boost:
        return FIELD_BOOSTS
    return {**FIELD_BOOSTS, "symbol": boost}


def fuse(
    plan: QueryPlan,
    lexical: dict[int, float],
    semantic: dict[int, float],
    rows: dict[int, ChunkRow],
    mode: str,
    static: dict[int, float] | None = None,
) -> list[Scored]:
    lex_scaled = _minmax(lexical, floor_zero=True)
    floor = str(SIGNALS["semantic_floor"])
    prose = _prose_rows(rows)
    sem_scaled = _scaled(_align_prose(semantic, prose), floor)
    share = float(SIGNALS["static_share"])
    if static and share:
        static_scaled = _scaled(_align_prose(static, prose), floor)
        sem_scaled = {
            key: (1 - share) * value + share * static_scaled.get(key, value)
            for key, value in sem_scaled.items()
        }
    if SIGNALS["fusion"] == "rrf":
        lex_scaled, sem_scaled = _reciprocal_ranks(lexical), _reciprocal_ranks(semantic)
    lex_weight, sem_weight = (
        (plan.lexical_weight, plan.semantic_weight) if SIGNALS["class_weights"] else (0.5, 0.5)
    )
    scored = []
    for chunk_id, row in rows.items():
        lex = lex_scaled.get(chunk_id, 0.0)
        sem = sem_scaled.get(chunk_id)
        if mode == "lexical":
            score = lex
        elif mode == "semantic":
            score = sem if sem is not None else 0.0
        else:
            score = lex_weight * lex + sem_weight * (sem if sem is not None else lex)
        scored.append(Scored(row, score, lex, sem))
    return scored


def best_fused(scored: list[Scored], plan: QueryPlan, keep: set[int]) -> list[Scored]:
    """The ``SIGNALS["fused_cut"]`` best candidates by fused score; with them, the chunks
    their files' evidence reads (each such file keeps up to ``evidence_hits`` chunks
    besides its best: cut, a file lost the evidence of its lower chunks), and those the
    later steps may raise from anywhere: ``keep`` (files the query names, chunks holding
    a name whole) and the chunks that name a name asked for among their symbols (the
    definition priors multiply by up to 4). The rest were not reaching the top 10.
    """
    limit = int(SIGNALS["fused_cut"])
    if not limit or len(scored) <= limit:
        return scored
    names = plan.symbol_names
    ordered = sorted(scored, key=lambda item: -item.score)
    kept = ordered[:limit]
    reach = int(SIGNALS["evidence_hits"]) + 1  # a file's best hit and its evidence
    room = {path: reach - n for path, n in Counter(item.row.path for item in kept).items()}
    for item in ordered[limit:]:
        row = item.row
        if room.get(row.path, 0) > 0:
            room[row.path] -= 1
            kept.append(item)
        elif row.id in keep or (names and symbols_hold_any(row, names)):
            kept.append(item)
    return kept


#: Fewer prose candidates than this have no spread to align (the scale stays shared).
ALIGN_MIN_PROSE = 3


def _prose_rows(rows: dict[int, ChunkRow]) -> frozenset[int]:
    """The candidates that are prose (``_align_prose``)."""
    return frozenset(key for key, row in rows.items() if _is_prose(row))


def _align_prose(cosines: dict[int, float], prose_rows: frozenset[int]) -> dict[int, float]:
    """Prose candidates' cosines mapped onto the code candidates' distribution (z-scores);
    ``prose_rows``: ``_prose_rows`` of the candidates."""
    if not SIGNALS["prose_alignment"]:
        return cosines
    prose = prose_rows.intersection(cosines)
    if min(len(prose), len(cosines) - len(prose)) < ALIGN_MIN_PROSE:
        return cosines
    code = np.array([value for key, value in cosines.items() if key not in prose])
    text = np.array([cosines[key] for key in prose])
    scale = code.std() / (text.std() or 1.0)
    shift = code.mean() - text.mean() * scale
    return {key: shift + value * scale if key in prose else value for key, value in cosines.items()}


def _is_prose(row: ChunkRow) -> bool:
    return row.language in DOC_LANGUAGES and category_of(row.path, row.language) == "docs"


def _minmax(scores: dict[int, float], floor_zero: bool = False) -> dict[int, float]:
    """Scale to [0, 1]: by the best score (BM25, whose zero is meaningful) or min to max."""
    if not scores:
        return {}
    high = max(scores.values())
    low = 0.0 if floor_zero else min(scores.values())
    return _spread_over(scores, low, (high - low) or 1.0)


def _spread_over(scores: dict[int, float], low: float, spread: float) -> dict[int, float]:
    """``max(0, (score - low) / spread)`` of each score, in one array operation (this
    runs on every candidate twice or three times a query)."""
    values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    scaled = np.maximum((values - low) / spread, 0.0)
    return dict(zip(scores, scaled.tolist(), strict=True))


def _scaled(scores: dict[int, float], floor: str) -> dict[int, float]:
    if floor == "min" or not scores:
        return _minmax(scores)
    high = max(scores.values())
    low = 0.0 if floor == "zero" else sum(scores.values()) / len(scores)
    return _spread_over(scores, low, (high - low) or 1.0)


def _reciprocal_ranks(scores: dict[int, float], k: int = 60) -> dict[int, float]:
    """1 / (k + rank), scaled so that rank 1 scores 1: comparable with min-max scores."""
    ordered = sorted(scores, key=lambda key: -scores[key])
    return {key: (k + 1) / (k + rank) for rank, key in enumerate(ordered, 1)}
