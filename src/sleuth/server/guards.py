"""What stands between a request and the index: body size, bearer token, the names a
request gives for the host and its origin, JSON errors.

Every refusal is a JSON object ``{"error": "one line", "status": N, "type": "..."}``
and a log line; nothing a client sends can take the server down or print a traceback
to it.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import IndexBusy, IndexCorrupt, PathError, QueryError, SleuthError
from .daemon import is_loopback
from .registry import UnknownRepository

log = logging.getLogger("sleuth.server")

#: Largest request body accepted; the biggest legitimate one (50 handles) is a few kB.
MAX_BODY_BYTES = 1_000_000
#: Paths anyone may read without the token: they reveal nothing about the repositories.
OPEN_PATHS = frozenset({"/health", "/openapi.json"})


def error_body(status: int, kind: str, message: str) -> dict[str, Any]:
    return {"error": message, "status": status, "type": kind}


def refuse(
    request_path: str,
    status: int,
    kind: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    log.warning("refused %s: %d %s: %s", request_path, status, kind, message)
    return JSONResponse(error_body(status, kind, message), status_code=status, headers=headers)


async def _send_json(send: Send, status: int, body: dict[str, Any], headers=()) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class BodyLimit:
    """Refuses bodies over ``limit`` bytes with 413, by header or while reading."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = f"request body over {self.limit:,} bytes"
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                log.warning("refused %s: 413 body_too_large", scope.get("path"))
                await _send_json(send, 413, error_body(413, "body_too_large", message))
                return
        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            event = await receive()
            if event["type"] == "http.request":
                seen += len(event.get("body", b""))
                if seen > self.limit:  # FastAPI turns this into the JSON error below
                    raise HTTPException(413, message)
            return event

        await self.app(scope, limited_receive, send)


class BearerAuth:
    """Requires ``Authorization: Bearer <token>`` on every path but OPEN_PATHS."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                given = value
        scheme, _, credential = given.partition(b" ")
        if scheme.lower() == b"bearer" and secrets.compare_digest(credential.strip(), self.token):
            await self.app(scope, receive, send)
            return
        message = (
            "missing bearer token: send Authorization: Bearer <token> (the token is in "
            ".sleuth/daemon.token)"
            if not given
            else "wrong bearer token"
        )
        log.warning("refused %s: 401 unauthorized", scope.get("path"))
        await _send_json(
            send, 401, error_body(401, "unauthorized", message), [(b"www-authenticate", b"Bearer")]
        )


class LoopbackOnly:
    """Refuses a request whose ``Host`` or ``Origin`` names another machine, for a daemon
    bound to a loopback address: a web page whose name is made to resolve to 127.0.0.1
    (DNS rebinding) sends its own name in both, and must not read the code when no
    token is asked for. 421 for the host, 403 for the origin, as MCP's HTTP server does.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        host = headers.get(b"host", b"").decode("latin-1")
        origin = headers.get(b"origin", b"").decode("latin-1")
        if host and not _names_loopback(host):
            status, kind, message = 421, "misdirected", f"Host {host[:80]!r} is not this machine"
        elif origin and origin != "null" and not _names_loopback(urlsplit(origin).netloc):
            status, kind, message = 403, "forbidden_origin", f"Origin {origin[:80]!r} refused"
        else:
            await self.app(scope, receive, send)
            return
        log.warning("refused %s: %d %s", scope.get("path"), status, kind)
        await _send_json(send, status, error_body(status, kind, message))


def _names_loopback(netloc: str) -> bool:
    """Whether ``host[:port]`` (``[::1]:8765`` for IPv6) names a loopback address."""
    name = netloc.rpartition("@")[2]
    name = name[1:].partition("]")[0] if name.startswith("[") else name.partition(":")[0]
    return is_loopback(name.lower())


def _validation_message(error: RequestValidationError) -> tuple[int, str, str]:
    problems = []
    for item in error.errors():
        if item["type"] == "json_invalid":
            detail = item.get("ctx", {}).get("error", "")
            return 400, "malformed_json", f"malformed JSON body: {detail}".rstrip(": ")
        location = [str(p) for p in item["loc"] if p != "body"]
        field = ".".join(location) or "body"
        got = ""
        if item["type"] not in ("missing", "model_attributes_type", "dict_type"):
            got = f" (got {str(item.get('input'))[:40]!r})"
        problems.append(f"{field}: {item['msg'].lower()}{got}")
    return 422, "invalid_request", "invalid request: " + "; ".join(problems)


STATUS_OF_ERROR: list[tuple[type[Exception], int, str]] = [
    (UnknownRepository, 404, "unknown_repository"),
    (PathError, 400, "bad_path"),
    (QueryError, 400, "bad_query"),
    (IndexBusy, 503, "index_busy"),
    (IndexCorrupt, 500, "index_corrupt"),
    (SleuthError, 400, "bad_request"),
]


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        status, kind, message = _validation_message(exc)
        return refuse(request.url.path, status, kind, message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # (400 here: a body that is not UTF-8 or nests too deep to parse as JSON)
        kinds = {
            400: "malformed_json",
            404: "not_found",
            405: "method_not_allowed",
            413: "body_too_large",
        }
        kind = kinds.get(exc.status_code, "http_error")
        message = str(exc.detail)
        if exc.status_code == 400:
            message = f"malformed JSON body: {message[:200]}"
        if exc.status_code == 404:
            message = f"no such endpoint: {request.method} {request.url.path} (see /openapi.json)"
        # (a 405 keeps its Allow header: RFC 9110 requires it)
        return refuse(request.url.path, exc.status_code, kind, message, exc.headers)

    @app.exception_handler(SleuthError)
    async def sleuth_error(request: Request, exc: SleuthError) -> JSONResponse:
        for cls, status, kind in STATUS_OF_ERROR:
            if isinstance(exc, cls):
                return refuse(request.url.path, status, kind, " ".join(str(exc).split()))
        raise AssertionError("unreachable: SleuthError is in the table")

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s", request.url.path)
        message = f"unexpected {type(exc).__name__}: {' '.join(str(exc).split())}"[:500]
        return JSONResponse(error_body(500, "internal", message), status_code=500)
