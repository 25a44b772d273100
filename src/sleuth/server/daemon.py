"""Running the daemon: its files under ``.sleuth/``, start, status and stop.

Files (in each served repository's ``.sleuth/``):

- ``daemon.json``: pid, address (socket path, or host and port), whether a token is
  needed, the repositories served. Clients find the daemon through it; a file whose
  pid is dead is ignored and replaced.
- ``daemon.sock``: the Unix socket (first repository only), mode 0600.
- ``daemon.token``: the bearer token for TCP, mode 0600, kept across restarts.
- ``daemon.log``: output of a daemon started with ``--detach``.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SleuthError
from .client import DaemonInfo, info_path, pid_alive, read_info

log = logging.getLogger("sleuth.server")

SOCKET_NAME = "daemon.sock"
TOKEN_NAME = "daemon.token"
LOG_NAME = "daemon.log"


@dataclass
class ServeOptions:
    roots: list[Path]
    host: str | None = None
    port: int | None = None
    auth: bool = True
    allow_remote: bool = False
    watch: bool = True
    embed: str = "background"
    log_level: str = "info"
    extra: dict[str, Any] = field(default_factory=dict)


#: Seconds a thread holds the interpreter before another may run (Python's default: 0.005).
SWITCH_INTERVAL = 0.0005


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_for(directory: Path) -> str:
    """The daemon's bearer token: kept in ``daemon.token`` (0600), created when missing."""
    path = directory / TOKEN_NAME
    try:
        if path.stat().st_mode & 0o077 == 0:
            existing = path.read_text().strip()
            if len(existing) >= 32:
                return existing
    except OSError:
        pass
    token = secrets.token_urlsafe(32)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    return token


def check_free(roots: list[Path]) -> None:
    """Refuse when a live daemon answers for any of ``roots``; leftovers do not count."""
    from .client import DaemonClient, DaemonError, DaemonUnavailable

    for root in roots:
        client = DaemonClient.find(root)
        if client is None:
            continue
        info = client.info
        try:
            answering = client.get("/health", timeout=2.0).get("pid") == info.pid
        except DaemonError:
            answering = True  # it answers, if not to us
        except DaemonUnavailable:
            answering = False
        if answering:
            raise SleuthError(
                f"a daemon already serves {root} (pid {info.pid}, {info.address}); "
                "`sleuth serve --stop` ends it"
            )


def bind(options: ServeOptions, directory: Path) -> tuple[socket.socket, str]:
    """The listening socket: TCP when a port is given, else the Unix socket."""
    if options.port is not None:
        host = options.host or "127.0.0.1"
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # IPPROTO_TCP explicitly: asyncio turns Nagle off only on sockets that say TCP,
        # and with Nagle on, every answer on a kept-alive connection waited ~40 ms for
        # the client's delayed ACK (measured: 54 ms p50 instead of 1.3 ms).
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((host, options.port))
        except OSError as exc:
            sock.close()
            raise SleuthError(f"cannot listen on {host}:{options.port}: {exc.strerror}") from None
        port = sock.getsockname()[1]
        return sock, f"http://{host}:{port}"
    path = directory / SOCKET_NAME
    path.unlink(missing_ok=True)  # left by a daemon that died (check_free ran first)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        _bind_unix(sock, path)
    except OSError as exc:
        sock.close()
        raise SleuthError(f"cannot create the socket {path}: {exc.strerror}") from None
    return sock, f"unix:{path}"


def _bind_unix(sock: socket.socket, path: Path) -> None:
    """Bind with mode 0600 from the start; paths over the 107-byte limit bind relatively."""
    old_umask = os.umask(0o177)
    try:
        if len(os.fsencode(path)) < 104:
            sock.bind(str(path))
            return
        cwd = os.getcwd()
        os.chdir(path.parent)
        try:
            sock.bind(path.name)
        finally:
            os.chdir(cwd)
    finally:
        os.umask(old_umask)


def _split_large_scans() -> None:
    """numpy's BLAS runs one thread per product in the daemon (`sleuth serve` pins it
    before numpy loads): a large exact vector scan is then split over two threads by
    sleuth itself, unless ``SLEUTH_THREADS=1`` asks for one (``vectors.SCAN_THREADS``)."""
    from ..store import vectors

    if os.environ.get("OPENBLAS_NUM_THREADS") == "1" and os.environ.get("SLEUTH_THREADS") != "1":
        vectors.SCAN_THREADS = 2


def serve(options: ServeOptions) -> None:
    """Run the daemon in this process until SIGINT or SIGTERM."""
    import uvicorn

    from ..store.layout import Layout
    from .app import create_app
    from .registry import Registry, ServedRepository

    logging.basicConfig(
        level=logging.DEBUG if options.log_level == "debug" else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    roots = list(dict.fromkeys(options.roots))
    if options.port is not None:
        host = options.host or "127.0.0.1"
        if not is_loopback(host) and not options.allow_remote:
            raise SleuthError(
                f"{host} is not a loopback address: pass --allow-remote to serve other "
                "machines (with the bearer token)"
            )
        if not is_loopback(host):
            log.warning("serving %s beyond this machine: anyone with the token can read it", host)
    check_free(roots)
    _split_large_scans()
    for root in roots:
        Layout(root).create()
    directory = Layout(roots[0]).directory
    token = None
    if options.port is not None and options.auth:
        token = token_for(directory)
    sock, address = bind(options, directory)
    repositories = [ServedRepository(r, options.embed, options.watch) for r in roots]

    def remove_files() -> None:
        """The daemon's files go when it stops; a newer daemon's are left alone."""
        for root in roots:
            current = read_info(root)
            if current is not None and current.pid == os.getpid():
                info_path(root).unlink(missing_ok=True)
        if address.startswith("unix:"):
            Path(address[5:]).unlink(missing_ok=True)

    app = create_app(
        Registry(repositories),
        token=token,
        warm=options.embed != "none",
        on_shutdown=remove_files,
        loopback_only=options.port is not None and is_loopback(options.host or "127.0.0.1"),
    )
    info = DaemonInfo(
        pid=os.getpid(),
        address=address,
        token_file=str(directory / TOKEN_NAME) if token else None,
        repositories=[str(r) for r in roots],
        started=time.time(),
    )
    for root in roots:
        info.write(root)
    print(
        f"sleuth serve: {address} for {', '.join(str(r) for r in roots)}"
        + (f" (token in {info.token_file})" if token else "")
        + (" (no auth)" if options.port is not None and not token else ""),
        file=sys.stderr,
        flush=True,
    )
    # The event loop (accepting, replying) and the search threads share one interpreter
    # lock; the default 5 ms turns make every reply wait behind a running search.
    sys.setswitchinterval(SWITCH_INTERVAL)
    config = uvicorn.Config(
        app,
        log_level=options.log_level,
        access_log=options.log_level == "debug",
        timeout_graceful_shutdown=5,
        lifespan="on",
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        remove_files()
        sock.close()


def status(root: Path) -> dict[str, Any] | None:
    """The running daemon's /health, or None when none serves ``root``."""
    from .client import DaemonClient, DaemonUnavailable

    client = DaemonClient.find(root)
    if client is None:
        return None
    try:
        health = client.get("/health")
    except DaemonUnavailable:
        return None
    return {**health, "address": client.info.address}


def stop(root: Path, wait: float = 15.0) -> int | None:
    """SIGTERM the daemon serving ``root`` and wait for it; its pid, or None if none ran.

    The pid in ``daemon.json`` is signalled only when that process is the daemon: it
    answers /health with its pid, or its command line is a `sleuth serve`. A leftover
    file naming some other process is removed instead.
    """
    from .client import DaemonClient, DaemonError, DaemonUnavailable

    client = DaemonClient.find(root)
    if client is None:
        return None
    pid = client.info.pid
    try:
        ours = client.get("/health", timeout=2.0).get("pid") == pid
    except (DaemonUnavailable, DaemonError):
        ours = _is_serve_process(pid)
    if not ours:
        info_path(root).unlink(missing_ok=True)
        return None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if pid_alive(pid):
        raise SleuthError(f"the daemon (pid {pid}) did not stop within {wait:.0f} s")
    return pid


def _is_serve_process(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = handle.read().split(b"\0")
    except OSError:
        return False
    return b"serve" in words and any(b"sleuth" in word for word in words)


def detach(args: list[str], root: Path, wait: float = 60.0) -> DaemonInfo:
    """Start ``sleuth serve ARGS`` as a background process; return once it answers."""
    from ..store.layout import Layout
    from .client import DaemonClient, DaemonUnavailable

    layout = Layout(root)
    layout.create()
    log_path = layout.directory / LOG_NAME
    with open(log_path, "ab") as log_file:
        child = subprocess.Popen(
            [sys.executable, "-m", "sleuth.cli", "serve", *args],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            start_new_session=True,
            close_fds=True,
        )
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if child.poll() is not None:
            lines = log_path.read_text(errors="replace").strip().splitlines()
            last = lines[-1] if lines else f"exit code {child.returncode}"
            raise SleuthError(f"the daemon did not start: {last}")
        client = DaemonClient.find(root)
        if client is not None and client.info.pid == child.pid:
            try:
                client.get("/health")
                return client.info
            except DaemonUnavailable:
                pass
        time.sleep(0.1)
    raise SleuthError(f"the daemon did not answer within {wait:.0f} s (see {log_path})")
