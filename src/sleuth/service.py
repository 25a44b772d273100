"""The operations every long-lived surface offers, as JSON-ready dicts: one place for the
MCP tools and the HTTP daemon, so both answer alike.

Each function takes a workspace (``mcp/workspace.py``: an ``Index`` plus the state
around it) and returns what the HTTP API sends as its body; the MCP server packs the
same dicts into token-budgeted replies. Callers hold the workspace's lock. Errors are
``SleuthError`` subclasses: ``QueryError`` and ``PathError`` for bad arguments.
"""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING, Any

from .errors import IndexBusy, SleuthError
from .handles import MAX_REPLY_TOKENS, estimate_tokens

if TYPE_CHECKING:
    from .mcp.workspace import Workspace


def search(
    ws: Workspace,
    query: str,
    k: int = 10,
    *,
    mode: str = "hybrid",
    path: str | None = None,
    language: str | None = None,
    kind: str | None = None,
    category: str | None = None,
    handles: bool = False,
) -> dict[str, Any]:
    """The `sleuth search --json` schema; with ``handles`` also ``hits`` (compact handles)."""
    index = ws.index
    response = index.structured_search(
        query, k, mode=mode, path=path, language=language, kind=kind, category=category
    )
    out = response.to_dict()
    if handles:
        out["hits"] = [h.to_dict() for h in index.handles(response.results)]
    return out


def find_symbol(
    ws: Workspace,
    name: str,
    *,
    exact: bool = True,
    kind: str | None = None,
    language: str | None = None,
    k: int = 20,
    path: str | None = None,
    category: str | None = None,
    handles: bool = False,
) -> dict[str, Any]:
    """Definitions of ``name``: results in the search schema, ``reason`` when none."""
    index = ws.index
    found = index.find_symbol(
        name, exact=exact, kind=kind, language=language, k=k, path=path, category=category
    )
    out: dict[str, Any] = {"name": name, "exact": exact, "reason": ""}
    if not found:
        out["reason"] = f"no definition named {name!r}" + (
            "" if not exact else " (try exact=false for fuzzy matches)"
        )
    out["results"] = [r.to_dict() for r in found]
    if handles:
        out["hits"] = [h.to_dict() for h in index.handles(found)]
    return out


def related(
    ws: Workspace,
    target: str,
    *,
    k: int = 10,
    category: str | None = None,
    handles: bool = False,
) -> dict[str, Any]:
    """Code similar to a handle or ``path:line``, in the search schema."""
    index = ws.index
    response = index.related(target, k=k, category=category)
    out = response.to_dict()
    if handles:
        out["hits"] = [h.to_dict() for h in index.handles(response.results)]
    return out


def expand(
    ws: Workspace,
    targets: list[str],
    *,
    context_lines: int = 0,
    max_tokens: int = 8000,
    state: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The code behind handles or locations, within ``max_tokens``.

    ``text`` is the whole answer as numbered lines (what the MCP tool returns); ``items``
    gives each target's status, location, fresh handle and its block of ``text``.
    ``errors`` lists targets that could not be read; all of them failing raises.
    """
    index = ws.index
    head = ""
    if state is not None:
        head = f"index: {state['state']}" + (
            f" (generation {state['generation']})" if "generation" in state else ""
        )
        if state.get("note"):
            head += f"; {state['note']}"
    parts = [head] if head else []
    items: list[dict[str, Any]] = []
    errors: list[str] = []
    failures: list[SleuthError] = []
    left = min(max_tokens, MAX_REPLY_TOKENS) - estimate_tokens(head) - 40
    for position, target in enumerate(targets):
        if left < 50:
            parts.append(f"-- {len(targets) - position} more not shown: budget spent")
            break
        try:
            expansion = index.expand(target, context_lines)
        except SleuthError as exc:
            failures.append(exc)
            errors.append(str(exc))
            text = f"== ERROR {target}: {exc}"
            items.append({"target": target, "status": "error", "error": str(exc)})
        else:
            text = expansion.render(left)
            item: dict[str, Any] = {
                "target": target,
                "status": expansion.status,
                "path": expansion.path,
                "start_line": expansion.start_line,
                "end_line": expansion.end_line,
                "symbol": expansion.symbol,
                "kind": expansion.kind,
                "text": text,
            }
            if expansion.handle is not None:
                item["id"] = expansion.handle.id
            if expansion.message:
                item["message"] = expansion.message
            if expansion.fresh is not None:
                item["fresh"] = {**expansion.fresh.to_dict(), "location": expansion.fresh.location}
            items.append(item)
        parts.append(text)
        left -= estimate_tokens(text) + 1
    if targets and len(failures) == len(targets):
        kinds = {type(f) for f in failures}
        kind = kinds.pop() if len(kinds) == 1 and failures[0].args else SleuthError
        raise kind("; ".join(errors))
    return {"text": "\n".join(parts), "items": items, "errors": errors}


def history(
    ws: Workspace,
    query: str,
    k: int = 10,
    *,
    mode: str = "hybrid",
    author: str | None = None,
    since: str | None = None,
    until: str | None = None,
    path: str | None = None,
    diff: bool = False,
    refresh: bool = True,
) -> dict[str, Any]:
    """The `sleuth history --json` schema; new commits are indexed first (``refresh``)."""
    index = ws.index
    if refresh:
        with suppress(IndexBusy):  # another process is indexing history: search it as is
            index.index_history(embed=ws.embed, lock_timeout=0.5)
    response = index.history(
        query, k, mode=mode, author=author, since=since, until=until, path=path, diff=diff
    )
    return response.to_dict()


def status(ws: Workspace) -> dict[str, Any]:
    """`sleuth status --json` without the per-reason skip list, ``index_dir`` for the folder."""
    info = ws.index.status()
    info.pop("skipped", None)
    info["index_dir"] = info.pop("index")
    return info


def reindex(ws: Workspace, path_glob: str | None = None, *, full: bool = False) -> dict[str, Any]:
    """Index changed files now (``full``: rebuild) through the workspace's index."""
    return run_reindex(ws.index, ws.embed, path_glob, full)


def run_reindex(writer: Any, embed: str, path_glob: str | None, full: bool) -> dict[str, Any]:
    """One index run on ``writer`` (an ``Index``); the reply of /reindex and the tool."""
    if full:
        report = writer.index(full=True, embed=embed, lock_timeout=5.0)
    else:
        report = writer.reindex(path_glob, embed=embed)
    update = report.update
    return {
        "files": update.scanned,
        "changed": update.changed,
        "removed": update.removed,
        "chunks_written": update.chunks_written,
        "pending_embeddings": report.pending,
        "notices": list(report.notices),
    }
