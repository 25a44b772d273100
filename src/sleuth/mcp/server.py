"""The MCP server: a thin shell over ``sleuth.Index`` (stdio, or streamable HTTP on loopback).

Every reply carries the index state (complete, embedding, stale, building) and fits its
token budget (handles.py: characters / 4, never over MAX_REPLY_TOKENS). Nothing is
written to stdout but protocol messages: the SDK points fd 1 at stderr while it serves
stdio, so stray prints of any library or child process cannot corrupt the stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from .. import __version__
from ..errors import IndexBusy, SleuthError
from ..handles import MAX_REPLY_TOKENS, estimate_tokens
from .workspace import Workspace

#: Upper bound of ``k``: more hits than this do not help an agent and cost its context.
MAX_K = 100
MIN_BUDGET = 200
MAX_TARGETS = 50
#: Seconds after start-up when the first build begins if no client has listed tools.
FIRST_BUILD_DELAY = 2.0

INSTRUCTIONS = """\
sleuth searches this repository's code locally (offline).
1. `search` with plain words ("where are failed uploads retried") or an identifier;
   filters can go inside the query: symbol:Config kind:class lang:python path:src/** type:tests.
   It returns compact handles (id, path, symbol, kind, one-line preview), best first.
2. `expand` the ids you need (several at once) to read the code with line numbers; add
   context_lines for surrounding lines. Do not read whole files when a handle will do.
3. `find_symbol` for a definition by name; `related` for code similar to a handle or path:line.
Every reply states the index: complete, embedding (lexical results fill in), stale or
building. A stale expand answer gives the fresh location; expand that instead.
"""

Mode = Literal["hybrid", "semantic", "lexical"]
Category = Literal["code", "docs", "tests"]
K = Annotated[int, Field(ge=1, le=MAX_K, description=f"Number of hits, 1 to {MAX_K}.")]
Budget = Annotated[
    int,
    Field(
        ge=MIN_BUDGET,
        le=MAX_REPLY_TOKENS,
        description="Token budget of the reply (estimate: characters / 4); the best hits "
        f"that fit are kept. {MIN_BUDGET} to {MAX_REPLY_TOKENS}.",
    ),
]
T = TypeVar("T")


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def pack_reply(head: dict, key: str, items: list[dict], budget: int) -> str:
    """``head`` plus as many ``items`` (best first) as fit in ``budget`` tokens."""
    reply = {**head, key: []}
    used = estimate_tokens(_compact(reply)) + 12  # room for the "omitted" note
    for item in items:
        cost = estimate_tokens(_compact(item)) + 1
        if used + cost > budget:
            break
        reply[key].append(item)
        used += cost
    omitted = len(items) - len(reply[key])
    if omitted:
        reply["omitted"] = omitted
    return _compact(reply)


class SleuthServer(MCPServer):
    """MCPServer whose argument errors read as one line naming each bad field, and which
    starts the first index build once the tool list is out."""

    workspace: Workspace | None = None

    async def list_tools(self) -> Any:
        tools = await super().list_tools()
        if self.workspace is not None:
            self.workspace.start()
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(bad_arguments(name, exc.__cause__)) from exc.__cause__
            raise


def bad_arguments(tool: str, error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "arguments"
        got = "" if item["type"] == "missing" else f" (got {str(item.get('input'))[:40]!r})"
        problems.append(f"{field}: {item['msg'].lower()}{got}")
    return f"invalid arguments for {tool}: " + "; ".join(problems)


def build_server(root: Path, embed: str = "background") -> MCPServer:
    """The server for one repository; ``embed="none"`` keeps it lexical (no embedder)."""
    workspace = Workspace(root, embed)

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        workspace.start(delay=FIRST_BUILD_DELAY)
        yield None

    server = SleuthServer(
        "sleuth",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=lifespan,
        log_level="WARNING",
    )
    server.workspace = workspace

    def answer(work: Callable[[], T]) -> T:
        """Run ``work`` under the index lock; sleuth errors become one-line tool errors."""
        try:
            with workspace.lock:
                return work()
        except ToolError:
            raise
        except SleuthError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:
            raise ToolError(f"unexpected {type(exc).__name__}: {exc}") from None

    @server.tool(structured_output=False)
    def search(
        query: Annotated[
            str,
            Field(
                description="Plain words or an identifier, optionally with filters: "
                "symbol:NAME kind:KIND lang:LANGUAGE path:GLOB type:code|docs|tests. "
                'Example: "symbol:Config kind:class lang:python path:src/** retry backoff".'
            ),
        ],
        k: K = 10,
        mode: Annotated[
            Mode, Field(description="hybrid (default), semantic (vectors) or lexical (BM25).")
        ] = "hybrid",
        path: Annotated[str | None, Field(description="Only paths matching this glob.")] = None,
        language: Annotated[str | None, Field(description="Only this language.")] = None,
        kind: Annotated[
            str | None, Field(description="Only this kind: function, method, class, ...")
        ] = None,
        type: Annotated[Category | None, Field(description="File category.")] = None,
        max_tokens: Budget = 2000,
    ) -> str:
        """Search the repository's code: best matches first, as compact handles.

        Each hit: id (chunk:start-end@generation), path, symbol, kind and a one-line
        preview. Pass ids to `expand` to read the code.
        """

        def work() -> str:
            state = workspace.prepare()
            index = workspace.index
            response = index.structured_search(
                query, k, mode=mode, path=path, language=language, kind=kind, category=type
            )
            hits = [h.to_dict() for h in index.handles(response.results)]
            head: dict[str, Any] = {"index": state, "mode": response.mode}
            if response.notices:
                head["notices"] = response.notices
            if response.reason:
                head["reason"] = response.reason
            return pack_reply(head, "hits", hits, max_tokens)

        return answer(work)

    @server.tool(structured_output=False)
    def find_symbol(
        name: Annotated[
            str,
            Field(description="Definition name; qualified (Config.load) and * globs work."),
        ],
        exact: Annotated[
            bool, Field(description="true: the name in any case; false: fuzzy.")
        ] = True,
        kind: Annotated[
            str | None, Field(description="function, method, class, struct, ...")
        ] = None,
        language: Annotated[str | None, Field(description="Only this language.")] = None,
        k: K = 20,
        max_tokens: Budget = 2000,
    ) -> str:
        """Find where a symbol (function, class, method, ...) is defined, as handles."""

        def work() -> str:
            state = workspace.prepare()
            index = workspace.index
            found = index.find_symbol(name, exact=exact, kind=kind, language=language, k=k)
            head: dict[str, Any] = {"index": state}
            if not found:
                head["reason"] = f"no definition named {name!r}" + (
                    "" if not exact else " (try exact=false for fuzzy matches)"
                )
            hits = [h.to_dict() for h in index.handles(found)]
            return pack_reply(head, "hits", hits, max_tokens)

        return answer(work)

    @server.tool(structured_output=False)
    def expand(
        handles: Annotated[
            list[str],
            Field(
                min_length=1,
                max_length=MAX_TARGETS,
                description="Handle ids from search (e.g. 812:5-12@3), or repository paths "
                "as path, path:line or path:start-end.",
            ),
        ],
        context_lines: Annotated[
            int, Field(ge=0, le=200, description="Extra lines before and after, 0 to 200.")
        ] = 0,
        max_tokens: Budget = 8000,
    ) -> str:
        """Read the code behind handles: numbered lines, as they are on disk now.

        A handle whose file changed since it was issued answers STALE with the fresh
        location when the symbol is found again.
        """

        def work() -> str:
            state = workspace.prepare()
            index = workspace.index
            head = f"index: {state['state']}" + (
                f" (generation {state['generation']})" if "generation" in state else ""
            )
            if state.get("note"):
                head += f"; {state['note']}"
            parts = [head]
            left = max_tokens - estimate_tokens(head) - 40
            errors = []
            for position, target in enumerate(handles):
                if left < 50:
                    parts.append(f"-- {len(handles) - position} more not shown: budget spent")
                    break
                try:
                    text = index.expand(target, context_lines).render(left)
                except SleuthError as exc:
                    errors.append(str(exc))
                    text = f"== ERROR {target}: {exc}"
                parts.append(text)
                left -= estimate_tokens(text) + 1
            if len(errors) == len(handles):
                raise ToolError("; ".join(errors))
            return "\n".join(parts)

        return answer(work)

    @server.tool(structured_output=False)
    def related(
        target: Annotated[
            str, Field(description="A handle id, or path:line of the code to compare.")
        ],
        k: K = 10,
        type: Annotated[Category | None, Field(description="Only this file category.")] = None,
        max_tokens: Budget = 2000,
    ) -> str:
        """Code similar to a handle or path:line (from stored vectors; lexical if none)."""

        def work() -> str:
            state = workspace.prepare()
            index = workspace.index
            response = index.related(target, k=k, category=type)
            head: dict[str, Any] = {"index": state, "mode": response.mode}
            if response.notices:
                head["notices"] = response.notices
            if response.reason:
                head["reason"] = response.reason
            hits = [h.to_dict() for h in index.handles(response.results)]
            return pack_reply(head, "hits", hits, max_tokens)

        return answer(work)

    @server.tool(structured_output=False)
    def history(
        query: Annotated[str, Field(description="What changed, in plain words or identifiers.")],
        k: K = 10,
        author: Annotated[
            str | None, Field(description="Only commits whose author name or email has this.")
        ] = None,
        since: Annotated[
            str | None, Field(description="On or after: 2024-05-01 or '3 weeks ago'.")
        ] = None,
        until: Annotated[str | None, Field(description="On or before this date.")] = None,
        path: Annotated[
            str | None, Field(description="Only commits that changed a path matching this glob.")
        ] = None,
        diff: Annotated[bool, Field(description="Include the hunks that match best.")] = False,
        max_tokens: Budget = 2000,
    ) -> str:
        """Search the git history: when and why code changed (message, paths, diff digest).

        New commits are indexed first (lexically; vectors follow in the background).
        """

        def work() -> str:
            index = workspace.index
            with suppress(IndexBusy):  # another process is indexing history: search it as is
                index.index_history(embed=workspace.embed, lock_timeout=0.5)
            response = index.history(
                query, k, author=author, since=since, until=until, path=path, diff=diff
            )
            head: dict[str, Any] = {
                "mode": response.mode,
                "commits_indexed": response.commits_indexed,
            }
            if response.notices:
                head["notices"] = response.notices
            if response.reason:
                head["reason"] = response.reason
            commits = [c.to_dict() for c in response.results]
            return pack_reply(head, "commits", commits, max_tokens)

        return answer(work)

    @server.tool(structured_output=False)
    def index_status() -> str:
        """Index state (complete, embedding, stale, building), counts and vector progress."""

        def work() -> str:
            state = workspace.prepare(wait=0)
            info = workspace.index.status()
            info.pop("skipped", None)
            info["index_dir"] = info.pop("index")
            return _compact({"index": state, **info})

        return answer(work)

    @server.tool(structured_output=False)
    def reindex(
        path_glob: Annotated[
            str | None,
            Field(description="Re-read files matching this glob even if they look unchanged."),
        ] = None,
    ) -> str:
        """Index changed files now (vectors follow in the background)."""

        def work() -> str:
            if workspace.building:
                return _compact({"index": workspace.prepare(wait=0), "started": False})
            report = workspace.index.reindex(path_glob, embed=workspace.embed)
            update = report.update
            return _compact(
                {
                    "index": workspace.index.index_state(),
                    "files": update.scanned,
                    "changed": update.changed,
                    "removed": update.removed,
                    "chunks_written": update.chunks_written,
                    "pending_embeddings": report.pending,
                }
            )

        return answer(work)

    return server


def serve(
    path: Path,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8765,
    embed: str = "background",
) -> None:
    """Run the server on stdio (default) or streamable HTTP at http://host:port/mcp."""
    from ..discover import find_root

    server = build_server(find_root(path), embed)
    if http:
        server.run("streamable-http", host=host, port=port)
    else:
        server.run("stdio")
