"""Reaching a running daemon from the CLI and the MCP server, cheaply.

Only the standard library (``http.client`` over a Unix or TCP socket): a CLI search
that a daemon answers must not pay for FastAPI, httpx or the search stack. Any trouble
reaching the daemon raises ``DaemonUnavailable`` quickly (short connect timeout), and
the caller does the work in-process instead.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

INFO_NAME = "daemon.json"
INDEX_DIRNAME = ".sleuth"  # config.INDEX_DIRNAME, without importing config's environment reads
#: Seconds to connect: a live daemon accepts at once; anything slower means fall back.
CONNECT_TIMEOUT = 0.5
#: Seconds to wait for an answer (a first build may hold a search for a few seconds).
READ_TIMEOUT = 120.0


class DaemonUnavailable(Exception):
    """No daemon answered; do the work in-process."""


class DaemonError(Exception):
    """The daemon answered with an error (4xx/5xx) and a JSON body."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind = status, kind


@dataclass
class DaemonInfo:
    pid: int
    address: str  # unix:/path/to/daemon.sock | http://host:port
    token_file: str | None
    repositories: list[str]
    started: float

    def write(self, root: Path) -> None:
        """Write ``.sleuth/daemon.json`` via a temp file and a rename (never half a file)."""
        path = info_path(root)
        temp = path.with_name(f".{path.name}.{os.getpid()}")
        temp.write_text(json.dumps(asdict(self), indent=1))
        os.replace(temp, path)


def info_path(root: Path) -> Path:
    return root / INDEX_DIRNAME / INFO_NAME


def read_info(root: Path) -> DaemonInfo | None:
    try:
        data = json.loads(info_path(root).read_text())
        return DaemonInfo(**data)
    except (OSError, ValueError, TypeError):
        return None


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not reaped yet) is not alive
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return True


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            if len(os.fsencode(self.socket_path)) < 104:
                sock.connect(self.socket_path)
            else:  # too long for sun_path: go through the folder's descriptor
                folder = os.open(os.path.dirname(self.socket_path), os.O_RDONLY)
                try:
                    name = os.path.basename(self.socket_path)
                    sock.connect(f"/proc/self/fd/{folder}/{name}")
                finally:
                    os.close(folder)
        except BaseException:
            sock.close()
            raise
        sock.settimeout(self.timeout)
        self.sock = sock


class _TcpConnection(http.client.HTTPConnection):
    def connect(self) -> None:
        self.sock = socket.create_connection((self.host, self.port), CONNECT_TIMEOUT)
        self.sock.settimeout(self.timeout)


class DaemonClient:
    def __init__(self, info: DaemonInfo, root: Path | None = None) -> None:
        self.info = info
        self.root = root
        self.token: str | None = None
        if info.token_file:
            try:
                self.token = Path(info.token_file).read_text().strip()
            except OSError:
                self.token = None

    @classmethod
    def find(cls, root: Path) -> DaemonClient | None:
        """The client of the daemon serving ``root``, if its file names a live process."""
        info = read_info(root)
        if info is None or not pid_alive(info.pid):
            return None
        return cls(info, root)

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        address = self.info.address
        if address.startswith("unix:"):
            return _UnixConnection(address[5:], timeout)
        if address.startswith("http://"):
            host, _, port = address[7:].rpartition(":")
            return _TcpConnection(host.strip("[]"), int(port), timeout=timeout)
        raise DaemonUnavailable(f"unknown daemon address {address!r}")

    def request(
        self, method: str, path: str, body: dict[str, Any] | None = None, timeout: float = 0.0
    ) -> dict[str, Any]:
        """JSON in, JSON out; DaemonError for an error answer, DaemonUnavailable otherwise."""
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None:
            if self.root is not None and "repo" not in body:
                body = {**body, "repo": str(self.root)}
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        connection = self._connection(timeout or READ_TIMEOUT)
        try:
            connection.request(method, path, body=payload, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise DaemonUnavailable(f"{self.info.address}: {exc}") from None
        finally:
            connection.close()
        try:
            answer = json.loads(data)
        except ValueError:
            raise DaemonUnavailable(f"{self.info.address}: not a JSON answer") from None
        if response.status >= 400:
            if isinstance(answer, dict):
                kind = str(answer.get("type", "error"))
                message = str(answer.get("error", answer))
            else:
                kind, message = "error", str(answer)
            raise DaemonError(response.status, kind, message)
        return answer

    def get(self, path: str, timeout: float = 5.0, **params: str) -> dict[str, Any]:
        if params:
            from urllib.parse import urlencode

            path += "?" + urlencode(params)
        return self.request("GET", path, timeout=timeout)

    def post(self, path: str, body: dict[str, Any], timeout: float = 0.0) -> dict[str, Any]:
        return self.request("POST", path, body, timeout=timeout)
