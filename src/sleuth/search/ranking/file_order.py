"""Files, not chunks: which chunk answers for a file, the same-file penalty and file
evidence, hits merged into their neighbours, and pointers to a file's other hits.
"""

from __future__ import annotations

from collections.abc import Callable

from ... import config
from ...chunking.base import FUNCTION_KINDS
from ...languages import DOC_LANGUAGES
from ..classify import QueryPlan
from .asked_names import CALLABLE_KINDS, HOLDS_START, TYPE_KINDS
from .fusion import Scored
from .signals import SIGNALS


def longer_first(plan: QueryPlan, scored: list[Scored]) -> None:
    """For a question in words, each file's scores go to its candidates in the order of
    score x lines ^ ``SIGNALS["longer_first"]``: which chunk answers for a file leans to
    the longer of two that score alike (a 40-line function over a 4-line accessor that
    says the same words). In that order code counts more (``SIGNALS["code_in_file"]``)
    and the file's opening chunk less (``SIGNALS["file_opening"]``): a summary, a licence
    or a table of constants says the question's words, a function does what it asks.
    Files rank as before: each keeps its set of scores."""
    power = float(SIGNALS["longer_first"])
    code = 1 + float(SIGNALS["code_in_file"])
    opening = 1 - float(SIGNALS["file_opening"])
    if plan.kind == "identifier" or (not power and code == opening == 1):
        return
    files: dict[str, list[Scored]] = {}
    for item in scored:
        files.setdefault(item.row.path, []).append(item)

    def weight(item: Scored) -> float:
        row = item.row
        lean = (row.end_line - row.start_line + 1) ** power
        if row.kind in FUNCTION_KINDS:
            lean *= code
        if row.start_line == 1 and row.language not in DOC_LANGUAGES:
            lean *= opening
        return item.score * lean

    for items in files.values():
        if len(items) < 2:
            continue
        values = sorted((item.score for item in items), reverse=True)
        items.sort(key=weight, reverse=True)
        for item, value in zip(items, values, strict=True):
            item.score = value


def lead_with_heads(scored: list[Scored]) -> None:
    """A definition cut in pieces is answered by the piece with its first line: when a
    later piece scores best, the two trade scores (the file keeps its best score)."""
    if not SIGNALS["lead_with_heads"]:
        return
    groups: dict[tuple[str, str], list[Scored]] = {}
    for item in scored:
        if item.defines:
            groups.setdefault((item.row.path, item.row.symbol), []).append(item)
    for pieces in groups.values():
        best = max(pieces, key=lambda item: item.score)
        if best.defines == HOLDS_START:
            continue
        heads = [item for item in pieces if item.defines == HOLDS_START]
        if heads:
            head = max(heads, key=lambda item: item.score)
            head.score, best.score = best.score, head.score


def lead_with_code(plan: QueryPlan, scored: list[Scored]) -> None:
    """For a question in words, a file's best function or method stands before the type
    header that scores best in the file when it comes close (``SIGNALS["lead_with_code"]``):
    a question asks how something is done, and a class's first lines only name it."""
    share = float(SIGNALS["lead_with_code"])
    if not share or plan.kind == "identifier":
        return
    heads = {
        path: head
        for path, head in best_by_file(scored).items()
        if head.row.kind in TYPE_KINDS and not head.defines
    }
    if not heads:
        return
    code = best_by_file([s for s in scored if s.row.kind in CALLABLE_KINDS and s.row.path in heads])
    for path, method in code.items():
        head = heads[path]
        if method.score >= share * head.score:
            head.score, method.score = method.score, head.score


def best_by_file(scored: list[Scored]) -> dict[str, Scored]:
    """Each file's best-scoring candidate, files in the order they first appear."""
    best: dict[str, Scored] = {}
    for item in scored:
        path = item.row.path
        held = best.get(path)
        if held is None or item.score > held.score:
            best[path] = item
    return best


def diversify(scored: list[Scored], evidence: bool = True) -> None:
    """Lower each hit by the number of better hits of its file (see SIGNALS); with
    ``evidence``, raise a file's best hit by its other hits."""
    keep = 1.0 - float(SIGNALS["same_file_penalty"])
    share = float(SIGNALS["file_evidence"]) if evidence else 0.0
    scored.sort(key=lambda s: -s.score)
    cap = int(SIGNALS["evidence_hits"]) or len(scored)
    decay = float(SIGNALS["evidence_decay"])
    best: dict[str, Scored] = {}
    rest: dict[str, float] = {}
    seen: dict[str, int] = {}
    for item in scored:
        path = item.row.path
        before = seen.get(path, 0)
        seen[path] = before + 1
        if before == 0:
            best[path] = item
        elif before <= cap:
            rest[path] = rest.get(path, 0.0) + item.score * decay ** (before - 1)
        item.score *= keep**before
    if share:
        for path, total in rest.items():
            best[path].score += share * total


def merge_and_cut(
    scored: list[Scored],
    k: int,
    evidence: bool = True,
    first: Callable[[Scored], bool] | None = None,
) -> list[Scored]:
    """Best first; a hit overlapping a better hit of the same file, or next to it in the
    same definition, widens that one.
    The hits ``first`` holds for come before the others (the uses asked for before mere
    mentions: a file's second call must not sink below another file's mention by the
    same-file penalty).

    Once ``k`` hits are kept, the hits below the cut still join a kept hit they are part
    of, as long as it stays within a chunk's length (``CHUNK_MAX_LINES``): which piece of
    a definition shows with its other piece should not depend on where the cut falls
    (the same-file penalty often puts a function's second overload below it)."""
    diversify(scored, evidence)
    if first is None:
        scored.sort(key=lambda s: -s.score)
    else:
        scored.sort(key=lambda s: (not first(s), -s.score))
    kept: list[Scored] = []
    spans: dict[str, list[Scored]] = {}
    for item in scored:
        full = len(kept) >= k
        if full and not SIGNALS["join_below_cut"]:
            break
        same_file = spans.get(item.row.path, []) if full else spans.setdefault(item.row.path, [])
        host = next((s for s in same_file if _joins(item, s)), None)
        if host is not None:
            if full and _joined_length(host, item) > config.CHUNK_MAX_LINES:
                continue
            host.start_line = min(host.start_line, item.start_line)
            host.end_line = max(host.end_line, item.end_line)
        elif not full:
            same_file.append(item)
            kept.append(item)
    return kept


def _joined_length(host: Scored, item: Scored) -> int:
    """Lines of ``host`` widened to take in ``item``."""
    return max(host.end_line, item.end_line) - min(host.start_line, item.start_line) + 1


#: Lines between two pieces of one definition that still make them next to each other
#: (the blank line a chunk leaves out).
PIECE_GAP = 2


def _joins(item: Scored, host: Scored) -> bool:
    """Whether a hit is shown as part of a better one of its file: it overlaps it, or it
    is the next or previous piece of the same definition (one function, one result)."""
    if item.start_line <= host.end_line and item.end_line >= host.start_line:
        return True
    return (
        bool(item.row.symbol)
        and (item.row.symbol, item.row.kind) == (host.row.symbol, host.row.kind)
        and item.start_line - 1 - PIECE_GAP <= host.end_line
        and item.end_line + 1 + PIECE_GAP >= host.start_line
    )


#: Other matching chunks of a file named with its first hit (``Result.also``), on the
#: first hits only: the trade of found chunks against reply size is measured in
#: docs/benchmarks.md (eighteenth round).
FURTHER_HITS = 5

POINTED_RESULTS = 2


def further_hits(
    scored: list[Scored],
    kept: list[Scored],
    limit: int = FURTHER_HITS,
    results: int = POINTED_RESULTS,
) -> list[list[Scored]]:
    """For each of the first ``results`` kept hits, the best other hits of its file that
    no kept hit covers (none for the rest).

    ``scored`` is best first, as ``merge_and_cut`` leaves it. Pointers go with the
    file's first kept hit: one file, one list.
    """
    out: list[list[Scored]] = [[] for _ in kept]
    if not limit:
        return out
    taken: dict[str, list[tuple[int, int]]] = {}
    first: dict[str, int] = {}
    for at, item in enumerate(kept):
        taken.setdefault(item.row.path, []).append((item.start_line, item.end_line))
        if at < results:
            first.setdefault(item.row.path, at)
    for item in scored:
        at = first.get(item.row.path)
        if at is None or len(out[at]) >= limit:
            continue
        spans = taken[item.row.path]
        if any(item.start_line <= end and item.end_line >= start for start, end in spans):
            continue
        spans.append((item.start_line, item.end_line))
        out[at].append(item)
    return out
