"""Getting around an index after a search: handles, the code behind them, and neighbours.

An agent keeps a search cheap by taking handles (a chunk id, lines and a generation)
and expanding only the ones it needs. ``expand`` reads the lines from disk when asked,
so a handle whose file changed since it was issued answers ``stale`` with where its
symbol is now; ``related`` finds the chunks nearest one by their stored vectors. The
``Index`` methods of the same names are the public face of these functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import config
from .errors import PathError, QueryError, SleuthError
from .handles import Expansion, Handle, HandleRef, one_line, parse_target
from .prepare import content_hash
from .results import Result, SearchResponse, other_hit_text
from .search.filters import category_of
from .search.query_syntax import CATEGORIES
from .store.meta import ChunkRow, FileRow, MetaStore
from .tokens import query_terms

if TYPE_CHECKING:
    from .api import Index

#: Handles one ``Index`` remembers for locating stale ones; the oldest go first.
REMEMBERED_HANDLES = 20_000


def issue_handles(index: Index, results: list[Result]) -> list[Handle]:
    """Compact handles for results (search, find_symbol, related), newest generation."""
    meta = index._open()
    generation = index.generation()
    out: list[Handle] = []
    for result in results:
        anchor = anchor_chunk(meta, result.path, result.start_line, result.end_line)
        if anchor is None:
            continue
        symbol = result.symbol or anchor.symbol
        handle = Handle(
            anchor.id,
            result.start_line,
            result.end_line,
            generation,
            result.path,
            symbol,
            result.kind,
            result.language,
            one_line(result.preview, result.signature),
            result.score,
            [other_hit_text(hit) for hit in result.also],
        )
        out.append(handle)
        _remember(index, handle)
    return out


def _remember(index: Index, handle: Handle) -> None:
    """Keep the handle so that, once stale, its symbol can be located again."""
    if index._issued is None:
        index._issued = {}
    if len(index._issued) >= REMEMBERED_HANDLES:
        index._issued.pop(next(iter(index._issued)))
    index._issued[handle.chunk_id] = handle


def expand(index: Index, target: str | Handle, context_lines: int = 0) -> Expansion:
    """``Index.expand``: the lines behind a handle or location, read from disk now."""
    if not 0 <= context_lines <= 200:
        raise QueryError("context_lines must be between 0 and 200")
    text = target.id if isinstance(target, Handle) else str(target)
    if not index.exists():
        raise SleuthError("there is no index yet: run `sleuth index`")
    meta = index._open()
    try:
        ref = parse_target(text)
    except ValueError as exc:
        raise QueryError(str(exc)) from None
    known: Handle | None = target if isinstance(target, Handle) else None
    if isinstance(ref, HandleRef):
        current = index.generation()
        if ref.generation is not None and ref.generation > current:
            raise QueryError(
                f"{text[:80]!r}: no handle of this index (its generation is {current}, "
                f"not {ref.generation}): search again"
            )
        row = meta.chunks_by_id([ref.chunk_id]).get(ref.chunk_id)
        if row is None:
            return _stale(index, meta, text, ref, known)
        path = row.path
        start = ref.start_line or row.start_line
        end = ref.end_line or row.end_line
        # the chunk's name, for lines within it; other lines are not its code
        within = row.start_line <= start and end <= row.end_line
        symbol, kind = (row.symbol, row.kind) if within else ("", "")
    else:
        path = _indexed_path(index.root, meta, ref.path)
        chunks = meta.chunks_in_file(path)
        symbol = kind = ""
        if ref.start_line is None:
            start, end = 1, 0  # the whole file; end set once it is read
        elif ref.end_line is None:
            holder = smallest_holding(chunks, ref.start_line)
            start, end = (holder.start_line, holder.end_line) if holder else (ref.start_line,) * 2
            if holder:
                symbol, kind = holder.symbol, holder.kind
        else:
            start, end = ref.start_line, ref.end_line
            holder = smallest_holding(chunks, start)
            if holder and end <= holder.end_line:
                symbol, kind = holder.symbol, holder.kind
    file_row = meta.file_row(path)
    lines, changed = _read_indexed(index.root, path, file_row)
    if changed:
        return Expansion(
            text,
            "stale",
            path,
            message="the file changed on disk since the last index run; re-index first",
        )
    if end == 0:
        end = max(len(lines), 1)
    if start < 1:
        raise QueryError(f"{path}:{start}: lines are numbered from 1")
    if end < start:
        raise QueryError(f"{path}:{start}-{end}: the range ends before it starts")
    if start > len(lines):
        raise QueryError(f"line {start} is past the end of {path} ({len(lines)} lines)")
    end = min(end, len(lines))
    first = max(1, start - context_lines)
    last = min(len(lines), end + context_lines)
    anchor = anchor_chunk(meta, path, start, end)
    handle = None
    if anchor is not None:
        handle = Handle(
            anchor.id,
            start,
            end,
            index.generation(),
            path,
            symbol,
            kind,
            anchor.language,
        )
        _remember(index, handle)
    # named only when the lines are one chunk's (a whole file is no one definition)
    return Expansion(
        text,
        "fresh",
        path,
        start,
        end,
        symbol,
        kind,
        lines[first - 1 : last],
        first,
        handle,
    )


def _stale(
    index: Index, meta: MetaStore, text: str, ref: HandleRef, known: Handle | None
) -> Expansion:
    generation = index.generation()
    if ref.chunk_id > meta.last_chunk_id() or (ref.generation or 0) > generation:
        raise QueryError(f"unknown handle {text!r}: this index never issued it")
    old = known or (index._issued or {}).get(ref.chunk_id)
    fresh = _relocate(index, meta, old) if old else None
    since = f" (issued at generation {ref.generation}, now {generation})"
    return Expansion(
        text,
        "stale",
        old.path if old else "",
        symbol=old.symbol if old else "",
        kind=old.kind if old else "",
        message="the file changed since this handle was issued"
        + (since if ref.generation is not None else ""),
        fresh=fresh,
    )


def _relocate(index: Index, meta: MetaStore, old: Handle) -> Handle | None:
    """Where a stale handle's symbol is now: same file first, then anywhere."""
    name = old.symbol.rsplit(".", 1)[-1]
    candidates = [
        c
        for c in meta.chunks_in_file(old.path)
        if name and (c.symbol == name or name in c.symbols.split())
    ]
    if candidates:
        best = min(candidates, key=lambda c: abs(c.start_line - old.start_line))
        result = Result(
            best.path,
            best.start_line,
            best.end_line,
            best.symbol,
            best.kind,
            best.language,
            0.0,
            best.text,
            best.parent,
            best.signature,
        )
        definitions = [d for d in index.find_symbol(name, k=50) if d.path == old.path]
        if definitions:
            result = min(definitions, key=lambda d: abs(d.start_line - old.start_line))
    elif name:
        found = index.find_symbol(name, kind=old.kind or None, k=1) or index.find_symbol(name, k=1)
        if not found:
            return None
        result = found[0]
    else:
        return None
    located = issue_handles(index, [result])
    return located[0] if located else None


def _indexed_path(root: Path, meta: MetaStore, raw: str) -> str:
    """The repository-relative path of an indexed file; PathError for anything else."""
    if "\x00" in raw:
        raise PathError(f"{raw[:80]!r}: a path holds no NUL byte")
    root = root.resolve()
    candidate = Path(raw)
    resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not resolved.is_relative_to(root):
        raise PathError(f"{raw}: outside the repository; only indexed files can be read")
    relative = resolved.relative_to(root).as_posix()
    row = meta.file_row(relative)
    if row is None or row.skip_reason is not None:
        raise PathError(f"{raw}: not an indexed file (unknown, ignored, secret or binary)")
    return relative


def _read_indexed(root: Path, path: str, row: FileRow | None) -> tuple[list[str], bool]:
    """The file's lines, and whether its content differs from what was indexed."""
    try:
        data = (root / path).read_bytes()
    except OSError:
        return [], True
    changed = row is None or (row.hash is not None and content_hash(data) != row.hash)
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines, changed


def related(
    index: Index, target: str | Handle, k: int = 10, category: str | None = None
) -> SearchResponse:
    """``Index.related``: chunks near one by stored vector, else by its own words."""
    if k < 1:
        raise QueryError("k must be at least 1")
    if category is not None and category not in CATEGORIES:
        raise QueryError(f"category must be one of {', '.join(CATEGORIES)}")
    text = target.id if isinstance(target, Handle) else str(target)
    if not index.exists():
        raise SleuthError("there is no index yet: run `sleuth index`")
    meta = index._open()
    assert index._lexical is not None and index._vectors is not None
    try:
        ref = parse_target(text)
    except ValueError as exc:
        raise QueryError(str(exc)) from None
    if isinstance(ref, HandleRef):
        anchor = meta.chunks_by_id([ref.chunk_id]).get(ref.chunk_id)
        if anchor is None:
            stale = _stale(index, meta, text, ref, None)
            raise QueryError(f"stale handle {text!r}: {stale.message}; search again")
    whole_file: list[ChunkRow] = []  # a path without a line: the file as a whole
    if not isinstance(ref, HandleRef):
        path = _indexed_path(index.root, meta, ref.path)
        chunks = meta.chunks_in_file(path)
        if not chunks:
            raise QueryError(f"{path}: the index holds no chunk for it")
        if ref.start_line is None:
            anchor, whole_file = chunks[0], chunks
        else:
            last = max(c.end_line for c in chunks)
            if ref.start_line < 1:
                raise QueryError(f"{path}:{ref.start_line}: lines are numbered from 1")
            if ref.start_line > last:
                raise QueryError(f"{path} has {last} lines: line {ref.start_line} is past its end")
            anchor = smallest_holding(chunks, ref.start_line) or chunks[0]
    index._vectors.load()
    index._lexical.index.reload()
    pool = config.CANDIDATES * (5 if category else 1)
    vector = index._vectors.vector_of(anchor.id)
    if whole_file:  # the mean direction of the file's chunks, as the graph uses
        found = [v for c in whole_file if (v := index._vectors.vector_of(c.id)) is not None]
        if found:
            mean = np.mean(np.asarray(found, dtype=np.float32), axis=0)
            vector = mean / (float(np.linalg.norm(mean)) or 1.0)
    chunk_count = meta.chunk_count()
    response = SearchResponse(
        query=text,
        mode="semantic",
        embedded_fraction=min(1.0, len(index._vectors) / chunk_count) if chunk_count else 0.0,
    )
    if vector is not None:
        response.vectors = ["deep"]
        hits = index._vectors.search(vector, pool + 1)
    else:
        response.mode = "lexical"
        response.notices.append("this chunk has no vector yet: compared by its words")
        terms = query_terms(f"{anchor.symbol} {anchor.signature} {anchor.text}")[:48]
        hits = index._lexical.search(terms, pool + 1)
    rows = meta.chunks_by_id([cid for cid, _ in hits])
    for chunk_id, score in hits:
        row = rows.get(chunk_id)
        if row is None or chunk_id == anchor.id:
            continue
        if whole_file and row.path == anchor.path:
            continue
        if row.path == anchor.path and (
            row.start_line <= anchor.end_line and row.end_line >= anchor.start_line
        ):
            continue
        if category and category_of(row.path, row.language) != category:
            continue
        response.results.append(
            Result(
                row.path,
                row.start_line,
                row.end_line,
                row.symbol,
                row.kind,
                row.language,
                round(score, 6),
                "\n".join(row.text.strip("\n").split("\n")[:3]),
                row.parent,
                row.signature,
            )
        )
        if len(response.results) >= k:
            break
    if not response.results:
        response.reason = "no similar chunk found" + (" in that category" if category else "")
    return response


def smallest_holding(chunks: list[ChunkRow], line: int) -> ChunkRow | None:
    """The narrowest chunk holding ``line``: a method before the class around it."""
    holding = [c for c in chunks if c.start_line <= line <= c.end_line]
    return min(holding, key=lambda c: c.end_line - c.start_line) if holding else None


def anchor_chunk(meta: MetaStore, path: str, start: int, end: int) -> ChunkRow | None:
    """The chunk a handle for ``path:start-end`` refers to: the one overlapping it most."""
    best, best_overlap = None, 0
    for chunk in meta.chunks_in_file(path):
        overlap = min(end, chunk.end_line) - max(start, chunk.start_line) + 1
        if overlap > best_overlap:
            best, best_overlap = chunk, overlap
    return best
