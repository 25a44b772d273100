"""Start a real `sleuth serve` process for a test and talk to it with httpx."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sleuth(
    *args: str, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """The console entry point's module, as a user runs it (routes included)."""
    return subprocess.run(
        [sys.executable, "-m", "sleuth.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


class Daemon:
    def __init__(self, process: subprocess.Popen, root: Path, log: Path) -> None:
        self.process, self.root, self.log = process, root, log

    @property
    def info(self) -> dict[str, Any]:
        return json.loads((self.root / ".sleuth" / "daemon.json").read_text())

    def client(self, token: str | None = None) -> httpx.Client:
        address = self.info["address"]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if address.startswith("unix:"):
            transport = httpx.HTTPTransport(uds=address[5:])
            return httpx.Client(
                transport=transport, base_url="http://sleuth", headers=headers, timeout=60
            )
        return httpx.Client(base_url=address, headers=headers, timeout=60)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def running_daemon(root: Path, *options: str, extra: tuple[Path, ...] = ()) -> Iterator[Daemon]:
    """`sleuth serve ROOT [EXTRA...] OPTIONS` until it answers /health; stopped after."""
    log = root.parent / f"daemon-{root.name}-{time.monotonic_ns()}.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "sleuth.cli", "serve", str(root), *map(str, extra), *options],
            stdout=sink,
            stderr=sink,
        )
    daemon = Daemon(process, root, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, daemon.output()
            assert time.monotonic() < deadline, "the daemon did not start:\n" + daemon.output()
            try:
                if daemon.info["pid"] == process.pid:
                    with daemon.client() as client:
                        if client.get("/health").status_code == 200:
                            break
            except (OSError, ValueError, KeyError, httpx.HTTPError):
                pass
            time.sleep(0.1)
        yield daemon
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait(10)
