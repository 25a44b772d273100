"""`sleuth` command line. Every command is a few lines over sleuth.Index."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from .. import __version__, config
from ..api import Index, check_query
from ..benchmark import DEFAULT_CACHE
from ..benchmark import run as run_benchmark
from ..embedding import expect_few_queries
from ..errors import IndexBusy
from ..results import percent
from .check_output import print_check
from .consoles import console
from .guard import run_guarded
from .history_output import history_response_of, print_commits
from .mcp_command import run as run_mcp
from .progress import ProgressBars
from .search_command import EPILOG as SEARCH_EPILOG
from .search_command import Category, GlobOpt, Mode, print_response, response_of
from .search_command import ask as ask_daemon_at
from .search_command import search as search_command
from .serve_command import serve as serve_command
from .watch_command import watch as watch_command

app = typer.Typer(
    help="Local, offline code search. Ask in plain words or by identifier.\n\n"
    'Examples:\n\n  sleuth search "where are failed uploads retried"\n\n'
    "  sleuth search parse_config --lang python -k 5\n\n  sleuth index --embed deep",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = console()
err = console(stderr=True)


def _print_version(value: bool) -> None:
    if value:
        out.print(f"sleuth {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Local, offline code search. Ask in plain words or by identifier."""


class EmbedTier(StrEnum):
    none = "none"
    static = "static"
    background = "background"
    deep = "deep"


class Tier(StrEnum):
    auto = "auto"
    static = "static"
    deep = "deep"


PathArg = Annotated[
    Path, typer.Argument(help="Repository or any folder inside it.", readable=False)
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout.")]


def _fail(message: str, code: int = 1) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


app.command(epilog=SEARCH_EPILOG)(search_command)


@app.command("index")
def index_command(
    path: PathArg = Path("."),
    full: Annotated[bool, typer.Option("--full", help="Rebuild from scratch.")] = False,
    embed: Annotated[
        EmbedTier,
        typer.Option(
            help="none: lexical only; static: lexical + the static token table only "
            "(instant, kept current by later runs); background: return now, then a "
            "background process builds the static tier and the transformer's vectors; "
            "deep: wait for both. With both built, both rank the answers."
        ),
    ] = EmbedTier.background,
    wait: Annotated[
        float, typer.Option(min=0, help="Seconds to wait while another process indexes.")
    ] = 600.0,
    as_json: JsonOpt = False,
) -> None:
    """Index new and changed files (only those), drop deleted ones."""
    index = Index(path)
    # bars only on a terminal: in a log they would leave their last frames behind
    with ProgressBars(err, enabled=not as_json and err.is_terminal) as bars:
        report = index.index(bars, full=full, embed=embed.value, lock_timeout=wait)
    u = report.update
    summary = {
        "root": str(index.root),
        "files": u.scanned,
        "files_indexed": report.files_indexed,
        "skipped_in_index": report.skipped,
        "changed": u.changed,
        "unchanged": u.unchanged,
        "removed": u.removed,
        "chunks_written": u.chunks_written,
        "embedded": report.embedded,
        "static_embedded": report.static_embedded,
        "static_tier": report.static,
        "pending_embeddings": report.pending,
        "background_embedder": report.background,
        "skipped": u.skipped,
        "notices": report.notices,
    }
    if as_json:
        out.print_json(json.dumps(summary))
        return
    for notice in report.notices:
        err.print(f"[yellow]note:[/] {notice}")
    # (the count `sleuth status` shows: files read but skipped, binary ones, are not in it)
    indexed = f"{report.files_indexed} files indexed"
    if u.changed == 0 and u.removed == 0:
        out.print(f"{indexed}, nothing changed since the last run.")
    else:
        out.print(
            f"{indexed}; this run read {u.changed} new or changed, removed {u.removed}, "
            f"wrote {u.chunks_written} chunks."
        )
    if report.skipped:
        reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(report.skipped.items()))
        out.print(f"skipped: {reasons}.")
    if report.static_embedded:
        out.print(f"static tier: {report.static_embedded} chunks given vectors.")
    if report.embedded:
        out.print(f"embedded {report.embedded} chunks.")
    if report.pending == 0:
        out.print("every chunk has its vector; nothing to embed.")
    elif report.background:
        out.print(
            f"{report.pending} chunks to embed: running in the background "
            "(`sleuth status` shows progress)."
        )
    elif embed == EmbedTier.background:
        out.print(f"{report.pending} chunks to embed: a background embedder is already running.")
    elif report.static:
        out.print(
            f"{report.pending} chunks without transformer vectors (the static tier covers "
            "them; `sleuth index --embed deep` builds the deep tier)."
        )
    else:
        out.print(f"{report.pending} chunks without vectors (lexical search covers them).")


@app.command()
def status(
    path: PathArg = Path("."),
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Verify SQLite, tantivy and vectors agree; repair what disagrees."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Show what is indexed, embedding progress and skipped files by reason."""
    if check:
        print_check(Index(path), as_json)
        return
    info = Index(path).status()
    if as_json:
        out.print_json(json.dumps(info))
        return
    if not info["exists"]:
        out.print(f"no index for {info['root']}: run `sleuth index` or just `sleuth search`.")
        return
    out.print(f"[bold]{info['root']}[/]  (index in {info['index']})")
    out.print(f"  files        {info['files']:,}")
    out.print(f"  chunks       {info['chunks']:,}   definitions {info['definitions']:,}")
    embedding = (
        f"{info['embedded_chunks']:,} of {info['chunks']:,} "
        f"({percent(info['embedded_fraction'])})  model {info['embedding_model']}"
    )
    out.print(f"  vectors      {embedding}")
    if info.get("static_model"):
        out.print(
            f"  static tier  {info['static_chunks']:,} of {info['chunks']:,}"
            f"  table {info['static_model']}"
        )
    pid = info["background_embedder_pid"]
    if pid:
        out.print(f"  background   embedding (pid {pid})")
    if info["writer_pid"]:
        out.print(f"  writer       indexing (pid {info['writer_pid']})")
    out.print(f"  size         {info['size_bytes'] / 1e6:.1f} MB")
    history = info.get("history")
    if history:
        line = (
            f"  history      {history['commits']:,} commits, "
            f"{percent(history['embedded_fraction'])} with vectors"
        )
        if history["background_embedder_pid"]:
            line += f" (embedding, pid {history['background_embedder_pid']})"
        out.print(line)
    if info["skipped"]:
        out.print("  skipped      " + ", ".join(f"{r} {n}" for r, n in info["skipped"].items()))


@app.command()
def clean(path: PathArg = Path(".")) -> None:
    """Delete the index of this repository (.sleuth/)."""
    index = Index(path)
    if index.clean():
        out.print(f"removed {index.layout.directory}")
    else:
        out.print(f"no index at {index.layout.directory}")


@app.command()
def bench(
    bench_dir: Annotated[Path, typer.Option(help="The shared benchmark folder.")] = Path(
        "../shared/bench"
    ),
    cache: Annotated[
        Path,
        typer.Option(help="Exports of the repositories at their pins (made here when missing)."),
    ] = DEFAULT_CACHE,
    mirrors: Annotated[
        Path | None,
        typer.Option(
            help="Git mirrors to export missing repositories from (<owner>+<name>/repo); "
            "default: $SLEUTH_BENCH_MIRRORS, or a .mirror folder above the current one."
        ),
    ] = None,
    split: Annotated[str, typer.Option(help="File of repository names.")] = "dev.txt",
    repos: Annotated[str | None, typer.Option(help="Comma-separated subset.")] = None,
    mode: Annotated[Mode, typer.Option(help="Ranking mode to measure.")] = Mode.hybrid,
    embed: Annotated[
        EmbedTier, typer.Option(help="Tier to build before querying (see `sleuth index`).")
    ] = EmbedTier.deep,
    tier: Annotated[Tier, typer.Option(help="Vectors the semantic side uses.")] = Tier.auto,
    out: Annotated[Path, typer.Option(help="Results JSONL.")] = Path("bench/results/dev.jsonl"),
) -> None:
    """Run the shared code search benchmark in-process and score it (NDCG@10, ...)."""
    if not (bench_dir / "score.py").exists():
        _fail(f"no benchmark at {bench_dir} (expected score.py there); see bench/README.md")
    run_benchmark(
        bench_dir,
        out,
        cache,
        split,
        repos.split(",") if repos else None,
        mode.value,
        embed.value,
        say=out_console_print,
        tier=tier.value,
        mirrors=mirrors,
    )


def out_console_print(line: str) -> None:
    out.print(line, markup=False)


@app.command(
    "mcp",
    add_help_option=False,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def mcp_command(ctx: typer.Context) -> None:
    """Serve search, symbols, handles and expand to MCP clients (`sleuth mcp --help`)."""
    run_mcp(list(ctx.args))


app.command("serve")(serve_command)
app.command("watch")(watch_command)


@app.command()
def related(
    target: Annotated[
        str, typer.Argument(help="PATH[:LINE] of the code to compare, or a handle id.")
    ],
    k: Annotated[int, typer.Option("-k", "--top", min=1, max=1000, help="Results.")] = 10,
    type_: Annotated[Category | None, typer.Option("--type", help="code, docs or tests.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Code similar to the chunk at PATH[:LINE] (stored vectors; words when it has none)."""
    file_part = target.rsplit(":", 1)[0] if ":" in target else target
    location = Path(file_part)
    if location.exists():
        index = Index(location.parent if location.is_file() else location)
        line = target[len(file_part) :]
        target = f"{location.resolve()}{line}"
    else:
        index = Index(Path("."))
    body = {"target": target, "k": k, "type": type_.value if type_ else None}
    answer = ask_daemon_at(index.root, "/related", body)
    if answer is not None:
        response = response_of(answer)
    elif not index.exists():
        _fail(f"no index for {index.root}: run `sleuth index` first")
    if answer is None:
        response = index.related(target, k, category=type_.value if type_ else None)
    empty = f"nothing related to {target}: {response.reason or 'no match'}"
    print_response(response, [], as_json, empty)


@app.command()
def history(
    query: Annotated[str, typer.Argument(help="Plain words or an identifier.")],
    path: PathArg = Path("."),
    k: Annotated[int, typer.Option("-k", "--top", min=1, max=1000, help="Results.")] = 10,
    mode: Annotated[
        Mode, typer.Option(help="Ranking: both tiers, vectors, or BM25.")
    ] = Mode.hybrid,
    author: Annotated[
        str | None, typer.Option(help="Only commits whose author name or email contains this.")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(metavar="<date>", help="Only commits on or after: 2024-05-01, '3 weeks ago'."),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            metavar="<date>", help="Only commits on or before (a bare date includes the day)."
        ),
    ] = None,
    glob: Annotated[
        str | None,
        typer.Option(
            "--path", metavar="<glob>", help="Only commits that changed a path matching this glob."
        ),
    ] = None,
    diff: Annotated[bool, typer.Option("--diff", help="Show the hunks that match.")] = False,
    refresh: Annotated[bool, typer.Option(help="Index new commits first.")] = True,
    full: Annotated[bool, typer.Option("--full", help="Re-index every commit first.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Search the git history: commit messages, changed paths and a digest of each diff."""
    from ..history import HistoryIndex

    check_query(query, k, mode.value)
    history_index = HistoryIndex(path)
    options = {"author": author, "since": since, "until": until, "path": glob, "diff": diff}
    answer = None
    if not full:
        body = {"query": query, "k": k, "mode": mode.value, **options, "refresh": refresh}
        answer = ask_daemon_at(history_index.root, "/history", body)
    if answer is not None:
        if as_json:
            out.print_json(json.dumps(answer))
            return
        response = history_response_of(answer)
        notices: list[str] = []
    elif refresh or full or not history_index.exists():
        history_index.repo.state()  # not a repository, no commits: say so before anything
        first = full or not history_index.exists()
        if first and not as_json:
            err.print("[dim]indexing the commit history (lexical tier first)[/]")
        try:
            with ProgressBars(err, enabled=first and not as_json and err.is_terminal) as bars:
                report = history_index.update(
                    bars, full=full, embed="none", lock_timeout=600.0 if first else 0.5
                )
                seconds = report.pending / config.EMBED_ASSUMED_RATE
                if report.pending and seconds <= config.FOREGROUND_EMBED_SECONDS:
                    history_index.embed(bars)
                elif report.pending:
                    history_index.start_background_embedding()
                    if first and not as_json:
                        err.print(
                            f"[dim]{report.pending:,} commits to embed (~{seconds:.0f} s): "
                            "answering lexically now; embedding continues in the background[/]"
                        )
        except IndexBusy:
            err.print("[dim]another process is indexing history: searching it as it is[/]")
            report = None
        notices = report.notices if report else []
    else:
        notices = []
    if answer is None:
        expect_few_queries()  # one query's embedding, then the process exits
        response = history_index.search(
            query, k, mode=mode.value, author=author, since=since, until=until, path=glob, diff=diff
        )
    response.notices = notices + response.notices
    empty = f"no commits for {query!r}: {response.reason or 'nothing matched'}"
    print_response(response, [], as_json, empty, print_commits)


class GraphType(StrEnum):
    all = "all"
    code = "code"
    docs = "docs"
    tests = "tests"


class GraphFormat(StrEnum):
    json = "json"
    dot = "dot"
    html = "html"


@app.command()
def graph(
    path: PathArg = Path("."),
    type_: Annotated[
        GraphType, typer.Option("--type", help="Which files: all, code, docs or tests.")
    ] = GraphType.all,
    format_: Annotated[
        GraphFormat, typer.Option("--format", help="json, dot, or a self-contained html page.")
    ] = GraphFormat.html,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")
    ] = None,
    k: Annotated[int, typer.Option("-k", min=1, max=100, help="Neighbours per file.")] = 5,
    threshold: Annotated[
        float, typer.Option(min=-1.0, max=1.0, help="Least cosine similarity for a link.")
    ] = 0.5,
    glob: GlobOpt = None,
) -> None:
    """Similarity graph of files from the stored vectors (no re-embedding)."""
    from ..graph import to_dot, to_html, to_json

    index = Index(path)
    built = index.graph(type_.value, k=k, threshold=threshold, path=glob)
    if not built.nodes:
        kind = f"{type_.value} " if type_ != GraphType.all else ""
        if built.missing_vectors:
            hint = (
                f"{built.missing_vectors} files have no vectors yet: "
                "run `sleuth index --embed deep`"
            )
        elif glob:
            hint = f"no indexed {kind}file matches the path {glob!r}"
        else:
            hint = f"no {kind}files in the index"
        _fail(f"nothing to draw: {hint}")
    if built.missing_vectors:
        err.print(
            f"[yellow]note:[/] {built.missing_vectors} files have no vectors yet and are left "
            "out (`sleuth index --embed deep` fills them in)"
        )
    render = {"json": to_json, "dot": to_dot, "html": to_html}[format_.value]
    text = render(built)
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    output.write_text(text, encoding="utf-8")
    err.print(
        f"wrote {output} ({len(built.nodes)} files, {len(built.edges)} links, {format_.value})"
    )


def run() -> None:
    """Console entry point: one clear line and a non-zero exit instead of tracebacks."""
    run_guarded(app)


if __name__ == "__main__":
    run()
