"""`sleuth mcp`: kept apart from cli/main.py so the server starts without loading the
search stack first (the console entry point routes here directly; see cli/__init__.py).

Its arguments are parsed with argparse, not typer: typer and click cost 0.07-0.19 s of
import on the path to the tool list, which is already bounded by the MCP SDK's own
import (docs/decisions.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DESCRIPTION = """\
Serve search, symbols, handles and expand to MCP clients (coding agents, editors).
Speaks MCP on stdin/stdout; logs go to stderr only. Indexing runs in the background."""


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not within 1-65535")
    return value


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="sleuth mcp", description=DESCRIPTION)
    parse.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=Path("."),
        help="Repository or any folder inside it (default: .).",
    )
    parse.add_argument(
        "--http", action="store_true", help="Streamable HTTP at http://HOST:PORT/mcp, not stdio."
    )
    parse.add_argument(
        "--host", default="127.0.0.1", help="Address to bind with --http (default: 127.0.0.1)."
    )
    parse.add_argument("--port", type=_port, default=8765, help="Port with --http (default: 8765).")
    parse.add_argument(
        "--allow-remote",
        action="store_true",
        help="Allow a --host that is not a loopback address (MCP over HTTP has no token).",
    )
    parse.add_argument(
        "--embed",
        choices=("background", "none"),
        default="background",
        help="background (default): vectors are computed by a background process after "
        "indexing; none: lexical only (no model, least CPU).",
    )
    parse.add_argument(
        "--no-daemon",
        action="store_true",
        help="Answer in this process even when a `sleuth serve` daemon serves the repository.",
    )
    return parse


def run(args: list[str]) -> None:
    """`sleuth mcp ARGS` without importing the rest of the CLI: one line on errors."""
    options = parser().parse_args(args)
    from ..errors import SleuthError

    try:
        from ..mcp.server import serve

        serve(
            options.path,
            http=options.http,
            host=options.host,
            port=options.port,
            embed=options.embed,
            use_daemon=not options.no_daemon,
            allow_remote=options.allow_remote,
        )
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
