"""`sleuth search`: asks a running daemon first, else searches in-process.

Kept apart from cli/main.py so a search that a daemon answers loads neither the search
stack (numpy, tantivy, usearch) nor the model: the console entry point routes here
directly (cli/__init__.py), and the library is imported only to work in-process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from .consoles import console

if TYPE_CHECKING:
    from ..api import Index
    from ..history.results import HistoryResponse
    from ..results import SearchResponse

out = console()
err = console(stderr=True)

#: ``--path``, shared by the commands that filter by path.
GlobOpt = Annotated[
    str | None,
    typer.Option(
        "--path",
        metavar="<glob>",
        help="Only paths matching this glob (src/**, *.py, or a folder name).",
    ),
]


class Mode(StrEnum):
    hybrid = "hybrid"
    semantic = "semantic"
    lexical = "lexical"


class Category(StrEnum):
    code = "code"
    docs = "docs"
    tests = "tests"


#: Shown under `sleuth search --help`: what a query may hold, by example.
EPILOG = (
    "Queries: plain words (sleuth search 'where are failed uploads retried'), an"
    " identifier (parse_config), or words with filters: symbol:NAME (globs: parse_*),"
    " kind:class, lang:go, path:src/**, type:tests. A file written with its extension"
    " (keylog.h, src/app/utils.py) ranks that file first; with a line (rank.py:230, a"
    ' traceback\'s File "app.py", line 40), the code at that line. A pasted declaration'
    " (def load(config) -> Settings:) asks for what it declares; a pasted error message"
    " or line of code, for the source that holds it. 'where is parse_config called'"
    " (who calls X, usages of X) lists the code that calls it, the definition last;"
    " 'where is Config imported', its imports; 'where is TimeoutError raised', the code"
    " raising it; 'who catches TimeoutError', its handlers; 'where is timeout set', its"
    " assignments; 'subclasses of Store' (who"
    " implements X), the types deriving from it (in Go, the types with its methods);"
    " 'where is Config created', the code making one;"
    " 'where is retry tested', the tests"
    " that use it; 'docs for Config', the documentation naming it; 'methods of Client',"
    " its declaration and what it owns; 'what does handle"
    " call', the"
    " definitions it calls. Example: sleuth search"
    " 'symbol:Config kind:class path:src/** retry backoff'."
)


def search(
    query: Annotated[str, typer.Argument(help="Plain words or an identifier.")],
    path: Annotated[
        Path, typer.Argument(help="Repository or any folder inside it.", readable=False)
    ] = Path("."),
    k: Annotated[int, typer.Option("-k", "--top", min=1, max=1000, help="Results.")] = 10,
    mode: Annotated[
        Mode, typer.Option(help="Ranking: both tiers, vectors, or BM25.")
    ] = Mode.hybrid,
    glob: GlobOpt = None,
    lang: Annotated[
        str | None, typer.Option(metavar="<language>", help="Only this language (python, go, ...).")
    ] = None,
    kind: Annotated[
        str | None,
        typer.Option(
            metavar="<kind>",
            help="Only chunks of this kind (function, method, class, section, ...).",
        ),
    ] = None,
    type_: Annotated[Category | None, typer.Option("--type", help="code, docs or tests.")] = None,
    refresh: Annotated[bool, typer.Option(help="Re-index changed files first.")] = True,
    daemon: Annotated[
        bool, typer.Option(help="Use a running `sleuth serve` daemon when there is one.")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout.")] = (
        False
    ),
) -> None:
    """Search the repository; builds the index on first use."""
    options = {
        "query": query,
        "k": k,
        "mode": mode.value,
        "path": glob,
        "language": lang,
        "kind": kind,
        "type": type_.value if type_ else None,
    }
    answer = ask_daemon(path, options, refresh) if daemon else None
    later: Callable[[], object] | None = None
    if answer is not None:
        answer.pop("index", None)
        response, notices = response_of(answer), []
    else:
        response, notices, later = search_here(path, options, refresh, as_json)
    try:
        empty = f"no results for {query!r}: {response.reason or 'nothing matched'}"
        print_response(response, notices, as_json, empty)
    finally:
        if later is not None:
            sys.stdout.flush()
            # Started once the answer is out: the embedder's start-up (onnxruntime, the
            # model) would otherwise share the 2 cores with the first answer.
            later()


def print_response(
    response: SearchResponse | HistoryResponse,
    notices: list[str],
    as_json: bool,
    empty: str,
    printer: Callable[[Console, Any], None] | None = None,
) -> None:
    """JSON on stdout; else notes on stderr, then the results (``printer``, code results
    by default), or the ``empty`` line and exit code 1 when there are none."""
    if as_json:
        out.print_json(json.dumps(response.to_dict()))
        return
    for notice in notices + response.notices:
        err.print(f"[yellow]note:[/] {notice}")
    if not response.results:
        err.print(empty)
        raise typer.Exit(1)
    if printer is None:
        from .output import print_results as printer
    printer(out, response)


def ask_daemon(path: Path, options: dict[str, Any], refresh: bool) -> dict[str, Any] | None:
    """The daemon's /search answer, or None when no daemon serves the repository."""
    from ..discover import find_root

    return ask(find_root(path), "/search", {**options, "refresh": refresh})


def ask(root: Path, endpoint: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The answer of the daemon serving ``root``, or None when there is none or it fails.

    Bad arguments (400, 422) are the user's to fix and end the command like they would
    in-process; anything else (gone, busy, unknown repository) falls back in-process.
    """
    from ..errors import QueryError
    from ..server.client import DaemonClient, DaemonError, DaemonUnavailable

    client = DaemonClient.find(root)
    if client is None:
        return None
    try:
        return client.post(endpoint, body)
    except DaemonUnavailable:
        return None
    except DaemonError as exc:
        if exc.status in (400, 422):
            raise QueryError(str(exc)) from None
        return None


def response_of(answer: dict[str, Any]) -> SearchResponse:
    """A SearchResponse from the JSON of /search or /related."""
    from ..results import SearchResponse, result_of

    return SearchResponse(
        query=answer["query"],
        mode=answer["mode"],
        results=[result_of(r) for r in answer["results"]],
        reason=answer.get("reason", ""),
        notices=list(answer.get("notices", [])),
        query_class=answer.get("query_class", ""),
        embedded_fraction=answer.get("embedded_fraction", 0.0),
        vectors=list(answer.get("vectors", [])),
    )


def search_here(
    path: Path, options: dict[str, Any], refresh: bool, as_json: bool
) -> tuple[SearchResponse, list[str], Callable[[], object] | None]:
    """The in-process search: build the index on first use, refresh, search.

    Also returns what to start once the answer is printed (the background embedder of
    a first build), or None.
    """
    from ..api import Index, check_query
    from ..embedding import expect_few_queries

    check_query(options["query"], options["k"], options["mode"])
    expect_few_queries()  # one query's embedding, then the process exits
    index = Index(path)
    # the model loads and embeds the query while the index is brought up to date
    prefetched = index.prefetch_query(options["query"], options["mode"])
    try:
        later = _bring_up_to_date(index, refresh, as_json)
        response = index.structured_search(
            options["query"],
            options["k"],
            mode=options["mode"],
            path=options["path"],
            language=options["language"],
            kind=options["kind"],
            category=options["type"],
        )
    finally:
        prefetched()  # its thread ends before the process does
    return response, list(index.notices), later


def _bring_up_to_date(index: Index, refresh: bool, as_json: bool) -> Callable[[], object] | None:
    """Build the index on first use, or refresh changed files. Returns what to start once
    the answer is printed (the background embedder of a first build), or None."""
    from .. import config
    from ..errors import IndexBusy
    from .progress import ProgressBars

    if index.exists():
        if refresh:
            try:
                index.index(embed="background", lock_timeout=0.5)
            except IndexBusy:
                err.print("[dim]another process is indexing: searching the index as it is[/]")
        return None
    err.print("[dim]no index yet: building the lexical tier first[/]")
    with ProgressBars(err, enabled=not as_json and err.is_terminal) as bars:
        report = index.index(bars, embed="none")
        seconds = report.pending / config.EMBED_ASSUMED_RATE
        if report.pending and seconds <= config.FOREGROUND_EMBED_SECONDS:
            index.embed(bars)
        elif report.pending:
            static = index.embed_static_if_quick(report.pending, bars)
            now = "with the static tier" if static else "lexically"
            err.print(
                f"[dim]{report.pending} chunks to embed (~{seconds:.0f} s): "
                f"answering {now} now; the model's vectors follow in the background "
                "(`sleuth status` shows progress)[/]"
            )
            return index.start_background_embedding
    return None


def run(args: list[str]) -> None:
    """`sleuth search ARGS` without importing the rest of the CLI: one line on errors."""
    from .guard import run_guarded

    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command(epilog=EPILOG)(search)
    run_guarded(lambda: app(args, prog_name="sleuth search"))
