"""`sleuth mcp`: kept apart from cli/main.py so the server starts without loading the
search stack first (the console entry point routes here directly; see cli/__init__.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer


def mcp(
    path: Annotated[
        Path, typer.Argument(help="Repository or any folder inside it.", readable=False)
    ] = Path("."),
    http: Annotated[
        bool, typer.Option("--http", help="Streamable HTTP at http://HOST:PORT/mcp, not stdio.")
    ] = False,
    host: Annotated[str, typer.Option(help="Address to bind with --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port with --http.")] = 8765,
    embed: Annotated[
        str,
        typer.Option(
            help="background: vectors are computed by a background process after indexing; "
            "none: lexical only (no model, least CPU)."
        ),
    ] = "background",
    daemon: Annotated[
        bool, typer.Option(help="Let a running `sleuth serve` daemon answer when there is one.")
    ] = True,
) -> None:
    """Serve search, symbols, handles and expand to MCP clients (coding agents, editors).

    Speaks MCP on stdin/stdout; logs go to stderr only. Indexing runs in the background.
    """
    from ..errors import SleuthError
    from ..mcp.server import serve

    if embed not in ("background", "none"):
        raise SleuthError("--embed must be background or none")
    serve(path, http=http, host=host, port=port, embed=embed, use_daemon=daemon)


def run(args: list[str]) -> None:
    """`sleuth mcp ARGS` without importing the rest of the CLI: one line on errors."""
    from ..errors import SleuthError

    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(mcp)
    try:
        app(args, prog_name="sleuth mcp")
    except SleuthError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        if os.environ.get("SLEUTH_DEBUG"):
            raise
        print(f"error: unexpected {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
