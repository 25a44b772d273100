"""`sleuth serve`: the daemon, its status and its stop (kept apart from cli/main.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def serve(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Repositories to serve (default: this one).", readable=False),
    ] = None,
    host: Annotated[
        str | None, typer.Option(help="Serve TCP on this address (with --port) instead.")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=0, max=65535, help="Serve TCP on this port (0: any free port)."),
    ] = None,
    no_auth: Annotated[
        bool, typer.Option("--no-auth", help="TCP without the bearer token.")
    ] = False,
    allow_remote: Annotated[
        bool,
        typer.Option("--allow-remote", help="Allow a --host that is not a loopback address."),
    ] = False,
    watch: Annotated[
        bool, typer.Option(help="Follow file changes (a watcher per repository).")
    ] = True,
    embed: Annotated[
        str,
        typer.Option(help="background: vectors by a background process; none: lexical only."),
    ] = "background",
    detach: Annotated[
        bool, typer.Option("--detach", help="Run in the background; return once it answers.")
    ] = False,
    show_status: Annotated[
        bool, typer.Option("--status", help="Say whether a daemon serves the repository.")
    ] = False,
    stop: Annotated[bool, typer.Option("--stop", help="Stop the daemon serving it.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="--status as JSON.")] = False,
    log_level: Annotated[str, typer.Option(help="debug logs every request.")] = "info",
) -> None:
    """Serve search over HTTP with the indexes hot in memory (Unix socket by default).

    The socket is .sleuth/daemon.sock; --host/--port listen on TCP with a bearer token.
    CLI commands and `sleuth mcp` use a running daemon by themselves.
    """
    from ..discover import find_root
    from ..errors import SleuthError
    from ..server import daemon

    roots = [find_root(p) for p in (paths or [Path(".")])]
    if show_status:
        found = daemon.status(roots[0])
        if as_json:
            print(json.dumps(found or {"running": False}))
        elif found is None:
            print(f"no daemon serves {roots[0]}")
        else:
            print(
                f"daemon pid {found['pid']} at {found['address']} serving "
                + ", ".join(found["repositories"])
            )
        raise typer.Exit(0 if found else 1)
    if stop:
        pid = daemon.stop(roots[0])
        if pid is None:
            print(f"no daemon serves {roots[0]}")
            raise typer.Exit(1)
        print(f"stopped the daemon (pid {pid})")
        return
    if embed not in ("background", "none"):
        raise SleuthError("--embed must be background or none")
    if host is not None and port is None:
        raise SleuthError("--host needs --port (without them the daemon uses a Unix socket)")
    if detach:
        args = [str(r) for r in roots] + ["--embed", embed, "--log-level", log_level]
        args += ["--host", host] if host else []
        args += ["--port", str(port)] if port is not None else []
        args += ["--no-auth"] * no_auth + ["--allow-remote"] * allow_remote
        args += [] if watch else ["--no-watch"]
        daemon.check_free(roots)
        info = daemon.detach(args, roots[0])
        print(f"daemon pid {info.pid} at {info.address}")
        return
    daemon.serve(
        daemon.ServeOptions(
            roots=roots,
            host=host,
            port=port,
            auth=not no_auth,
            allow_remote=allow_remote,
            watch=watch,
            embed=embed,
            log_level=log_level,
        )
    )
