"""The MCP server: a thin shell over ``sleuth.Index`` (stdio, or streamable HTTP on loopback).

Every reply carries the index state (complete, embedding, lexical, stale, building) and fits its
token budget (handles.py: characters / 4, never over MAX_REPLY_TOKENS). Nothing is
written to stdout but protocol messages: the SDK points fd 1 at stderr while it serves
stdio, so stray prints of any library or child process cannot corrupt the stream.
"""

from __future__ import annotations

import inspect
import json
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from .. import __version__, service
from ..config import MAX_NAME_CHARS, MAX_QUERY_CHARS
from ..errors import SleuthError
from ..handles import MAX_REPLY_TOKENS, MAX_TARGET_CHARS, MAX_TARGETS, estimate_tokens
from ..search.classify import uses_question
from .backend import Backend
from .workspace import Workspace

#: Upper bound of ``k``: more hits than this do not help an agent and cost its context.
MAX_K = 100
MIN_BUDGET = 200
#: Tools that only read (a search may refresh the index, which changes no file).
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
REINDEX = ToolAnnotations(read_only_hint=False, idempotent_hint=True, open_world_hint=False)
#: Seconds after start-up when the first build begins if no client has listed tools.
FIRST_BUILD_DELAY = 2.0

INSTRUCTIONS = """\
sleuth searches this repository's code locally (offline).
1. `search` with plain words ("where are failed uploads retried") or an identifier;
   "where is parse_config called" lists its callers, "what does parse_config call" the
   definitions it calls, "methods of Client" what the type owns; filters can go inside
   the query:
   symbol:Config kind:class lang:python path:src/** type:tests.
   It returns compact handles (id, path, symbol, kind, one-line preview), best first.
2. `expand` the ids you need (several at once) to read the code with line numbers; add
   context_lines for surrounding lines. Do not read whole files when a handle will do.
3. `find_symbol` for a definition by name; `find_uses` for where a name is used,
   called, imported, raised, caught, set, subclassed, created, tested or documented,
   or what it calls;
   `related` for code similar to a handle or path:line.
4. `history` for when and why code changed (commits); `index_status` for what is indexed;
   `reindex` after many files changed at once (searches re-index changed files anyway).
Every reply states the index: complete, embedding (lexical results fill in), lexical
(no vectors on their way), stale or building. A stale expand answer gives the fresh
location; expand that instead.
"""

Mode = Literal["hybrid", "semantic", "lexical"]
Use = Literal[
    "use",
    "call",
    "import",
    "raise",
    "catch",
    "assign",
    "extend",
    "construct",
    "test",
    "doc",
    "callees",
]
Category = Literal["code", "docs", "tests"]
K = Annotated[int, Field(ge=1, le=MAX_K, description=f"Number of hits, 1 to {MAX_K}.")]
PathGlob = Annotated[str | None, Field(description="Only paths matching this glob.")]
Language = Annotated[str | None, Field(description="Only this language.")]
Budget = Annotated[
    int,
    Field(
        ge=MIN_BUDGET,
        le=MAX_REPLY_TOKENS,
        description="Token budget of the reply (estimate: characters / 4); the best hits "
        f"that fit are kept. {MIN_BUDGET} to {MAX_REPLY_TOKENS}.",
    ),
]
ReadBudget = Annotated[
    int,
    Field(
        ge=MIN_BUDGET,
        le=MAX_REPLY_TOKENS,
        description="Token budget of the reply (estimate: characters / 4); code past it is "
        f"cut with a note saying how to read the rest. {MIN_BUDGET} to {MAX_REPLY_TOKENS}.",
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
        if not reply[key]:  # say what it would take, rather than answer with nothing
            need = used + estimate_tokens(_compact(items[0])) + 1
            noted = {**reply, "note": f"the first needs max_tokens of about {need}"}
            if estimate_tokens(_compact(noted)) <= budget:
                reply = noted
    return _compact(reply)


class SleuthServer(MCPServer):
    """MCPServer whose argument errors read as one line naming each bad field, and which
    starts the first index build once the tool list is out."""

    backend: Backend | None = None

    async def list_tools(self) -> Any:
        tools = await super().list_tools()
        for tool in tools:  # docstrings keep their indentation otherwise
            tool.description = inspect.cleandoc(tool.description or "")
        if self.backend is not None:
            self.backend.start_local()
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


def build_server(root: Path, embed: str = "background", use_daemon: bool = True) -> MCPServer:
    """The server for one repository; ``embed="none"`` keeps it lexical (no embedder).

    With ``use_daemon``, tools are answered by a `sleuth serve` daemon of the same
    repository whenever one runs (mcp/backend.py).
    """
    workspace = Workspace(root, embed)
    backend = Backend(workspace, use_daemon)

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        timer = threading.Timer(FIRST_BUILD_DELAY, backend.start_local)
        timer.daemon = True
        timer.start()
        yield None
        timer.cancel()

    server = SleuthServer(
        "sleuth",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=lifespan,
        log_level="WARNING",
    )
    server.backend = backend

    def answer(work: Callable[[], T]) -> T:
        """Run ``work``; sleuth errors become one-line tool errors."""
        try:
            return work()
        except ToolError:
            raise
        except SleuthError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:
            raise ToolError(f"unexpected {type(exc).__name__}: {exc}") from None

    def local(work: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
        """``work`` after the freshness check, with the index state every reply carries."""

        def run() -> dict[str, Any]:
            state = workspace.prepare()
            return {**work(), "index": state}

        return run

    @server.tool(structured_output=False, annotations=READ_ONLY)
    def search(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_QUERY_CHARS,
                description="Plain words or an identifier, optionally with filters: "
                "symbol:NAME kind:KIND lang:LANGUAGE path:GLOB type:code|docs|tests. "
                "A file name with its extension (keylog.h) ranks that file first; with a "
                "line (app.py:40, a traceback's frame), the code at that line. A pasted "
                "declaration (def load(config) -> Settings:) asks for what it declares; a "
                "pasted error message or line of code, for the source that holds it. "
                '"where is parse_config called" (or "callers of X", "usages of X") lists '
                "the code that uses the name, the definition last; "
                '"where is X imported", its imports first; "where is X raised" and '
                '"where is X set", the code raising it or assigning it; "who catches X", '
                'its handlers; "subclasses of X" '
                '("who implements X"), the types deriving from it; "where is X tested", '
                'the tests that use it; "docs for X", the documentation naming it; "what does X '
                'call", the definitions X calls, in order. '
                'Example: "symbol:Config kind:class lang:python path:src/** retry backoff".',
            ),
        ],
        k: K = 10,
        mode: Annotated[
            Mode, Field(description="hybrid (default), semantic (vectors) or lexical (BM25).")
        ] = "hybrid",
        path: PathGlob = None,
        language: Language = None,
        kind: Annotated[
            str | None, Field(description="Only this kind: function, method, class, ...")
        ] = None,
        type: Annotated[Category | None, Field(description="File category.")] = None,
        max_tokens: Budget = 2000,
    ) -> str:
        """Search the repository's code: best matches first, as compact handles.

        Each hit: id (chunk:start-end@generation), path, symbol, kind and a one-line
        preview; on the first two hits, `also` lists other matching chunks of the same
        file as "start-end symbol" (expand "path:start-end" to read one). Pass ids to
        `expand` to read the code.
        """

        def work() -> str:
            options = {"mode": mode, "path": path, "language": language, "kind": kind}
            data = backend.call(
                "/search",
                {"query": query, "k": k, **options, "type": type, "handles": True},
                local(
                    lambda: service.search(
                        workspace, query, k, **options, category=type, handles=True
                    )
                ),
                catch_up=True,
            )
            return pack_reply(head_of(data, "mode"), "hits", data["hits"], max_tokens)

        return answer(work)

    @server.tool(structured_output=False, annotations=READ_ONLY)
    def find_symbol(
        name: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_NAME_CHARS,
                description="Definition name; qualified (Config.load) and * globs work.",
            ),
        ],
        exact: Annotated[
            bool, Field(description="true: the name in any case; false: fuzzy.")
        ] = True,
        kind: Annotated[
            str | None, Field(description="function, method, class, struct, ...")
        ] = None,
        language: Language = None,
        k: K = 20,
        max_tokens: Budget = 2000,
    ) -> str:
        """Find where a symbol (function, class, method, ...) is defined, as handles."""

        def work() -> str:
            options = {"exact": exact, "kind": kind, "language": language, "k": k}
            data = backend.call(
                "/symbols",
                {"name": name, **options, "handles": True},
                local(lambda: service.find_symbol(workspace, name, **options, handles=True)),
                catch_up=True,
            )
            return pack_reply(head_of(data), "hits", data["hits"], max_tokens)

        return answer(work)

    @server.tool(structured_output=False, annotations=READ_ONLY)
    def find_uses(
        name: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_NAME_CHARS,
                description="The name used; with its owner (Config.load) for that owner's.",
            ),
        ],
        use: Annotated[
            Use,
            Field(
                description="use (default: of a function its callers, of a type all code "
                "naming it), call (callers), import, raise, catch (handlers), "
                "assign, extend (subclasses and implementations; Go types by their methods), "
                "construct (where a type is created: new X(, X{..}, X::new(), "
                "test (the tests that "
                "use it), doc (the documentation naming it), callees (what it calls)."
            ),
        ] = "use",
        k: K = 10,
        path: PathGlob = None,
        language: Language = None,
        max_tokens: Budget = 2000,
    ) -> str:
        """Where a name is used, by kind of use, as handles: the uses asked for first,
        then other mentions, the definition last (callees: what it calls, in order)."""
        question = uses_question(name, use)
        return search(question, k=k, path=path, language=language, max_tokens=max_tokens)

    @server.tool(structured_output=False, annotations=READ_ONLY)
    def expand(
        handles: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=MAX_TARGET_CHARS)]],
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
        max_tokens: ReadBudget = 8000,
    ) -> str:
        """Read the code behind handles: numbered lines, as they are on disk now.

        A handle whose file changed since it was issued answers STALE with the fresh
        location when the symbol is found again.
        """

        def work() -> str:
            def here() -> dict[str, Any]:
                state = workspace.prepare()
                return {
                    **service.expand(
                        workspace,
                        handles,
                        context_lines=context_lines,
                        max_tokens=max_tokens,
                        state=state,
                    ),
                    "index": state,
                }

            body = {"handles": handles, "context_lines": context_lines, "max_tokens": max_tokens}
            return backend.call("/expand", body, here)["text"]

        return answer(work)

    @server.tool(structured_output=False, annotations=READ_ONLY)
    def related(
        target: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_TARGET_CHARS,
                description="A handle id, or path:line of the code to compare.",
            ),
        ],
        k: K = 10,
        type: Annotated[Category | None, Field(description="Only this file category.")] = None,
        max_tokens: Budget = 2000,
    ) -> str:
        """Code similar to a handle or path:line (from stored vectors; lexical if none)."""

        def work() -> str:
            data = backend.call(
                "/related",
                {"target": target, "k": k, "type": type, "handles": True},
                local(lambda: service.related(workspace, target, k=k, category=type, handles=True)),
                catch_up=True,
            )
            return pack_reply(head_of(data, "mode"), "hits", data["hits"], max_tokens)

        return answer(work)

    @server.tool(structured_output=False, annotations=READ_ONLY)
    def history(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_QUERY_CHARS,
                description="What changed, in plain words or identifiers.",
            ),
        ],
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
            options = {"author": author, "since": since, "until": until, "path": path}
            data = backend.call(
                "/history",
                {"query": query, "k": k, **options, "diff": diff},
                local(lambda: service.history(workspace, query, k, **options, diff=diff)),
            )
            head: dict[str, Any] = {
                "index": data.get("index"),
                "mode": data["mode"],
                "commits_indexed": data["commits_indexed"],
            }
            if data.get("notices"):
                head["notices"] = data["notices"]
            if data.get("reason"):
                head["reason"] = data["reason"]
            return pack_reply(head, "commits", data["results"], max_tokens)

        return answer(work)

    @server.tool(structured_output=False, annotations=READ_ONLY)
    def index_status() -> str:
        """Index state (complete, embedding, lexical, stale, building), counts and vector
        progress."""

        def work() -> str:
            def here() -> dict[str, Any]:
                state = workspace.prepare(wait=0)
                return {"index": state, **service.status(workspace)}

            data = backend.call("/status", None, here)
            return _compact({"index": data.pop("index"), **data})

        return answer(work)

    @server.tool(structured_output=False, annotations=REINDEX)
    def reindex(
        path_glob: Annotated[
            str | None,
            Field(description="Re-read files matching this glob even if they look unchanged."),
        ] = None,
    ) -> str:
        """Index changed files now (vectors follow in the background)."""

        def work() -> str:
            def here() -> dict[str, Any]:
                if workspace.building:
                    return {"index": workspace.prepare(wait=0), "started": False}
                body = service.reindex(workspace, path_glob)
                return {"index": workspace.index.index_state(embeds=workspace.embeds), **body}

            data = backend.call("/reindex", {"path_glob": path_glob}, here, timeout=600.0)
            return _compact({"index": data.pop("index"), **data})

        return answer(work)

    return server


def serve(
    path: Path,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8765,
    embed: str = "background",
    use_daemon: bool = True,
    allow_remote: bool = False,
) -> None:
    """Run the server on stdio (default) or streamable HTTP at http://host:port/mcp.

    MCP over HTTP has no token: a host other than loopback serves the repository to
    anyone who can reach it, so it needs ``allow_remote``."""
    from ..discover import find_root
    from ..server.daemon import is_loopback

    if http and not is_loopback(host):
        if not allow_remote:
            raise SleuthError(
                f"{host} is not a loopback address: MCP over HTTP has no token, so anyone "
                "who can reach it could read the repository; pass --allow-remote to mean it"
            )
        print(f"warning: serving MCP on {host}:{port} without a token", file=sys.stderr)
    server = build_server(find_root(path), embed, use_daemon)
    if http:
        server.run("streamable-http", host=host, port=port)
    else:
        server.run("stdio")


def head_of(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The head of a list reply: index state, the given keys, notices and reason if any."""
    head: dict[str, Any] = {"index": data["index"]}
    for key in keys:
        head[key] = data[key]
    if data.get("notices"):
        head["notices"] = data["notices"]
    if data.get("reason"):
        head["reason"] = data["reason"]
    return head
