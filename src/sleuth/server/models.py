"""Request bodies of the HTTP API: the same names and bounds as the CLI and MCP arguments.

Unknown fields are refused (a typo should not be silently ignored), and so are values of
another JSON type (`"k": "10"`, `"refresh": 0`). Bounds are checked here, so a bad
request gets a 422 naming the field before any index work starts.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..config import MAX_NAME_CHARS, MAX_QUERY_CHARS
from ..handles import MAX_REPLY_TOKENS, MAX_TARGET_CHARS, MAX_TARGETS

#: The CLI's own upper bound of ``-k``.
MAX_K = 1000

Mode = Literal["hybrid", "semantic", "lexical"]
Category = Literal["code", "docs", "tests"]


def repo_field() -> Any:
    return Field(
        None,
        max_length=4096,
        description="Repository root (or its folder name) when the daemon serves several; "
        "default: the first one served.",
    )


def k_field(default: int) -> Any:
    return Field(default, ge=1, le=MAX_K, description=f"Number of results, 1 to {MAX_K}.")


def handles_field() -> Any:
    return Field(False, description="Also return compact handles (`hits`) for /expand.")


def refresh_field() -> Any:
    return Field(
        True,
        description="Re-index changed files first (skipped while a watcher follows the "
        "repository; otherwise a stat check at most once a second; never waits for an "
        "index run of another process: the answer then says stale).",
    )


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SearchRequest(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"query": "where are failed uploads retried", "k": 5},
                {"query": "parse_config", "type": "code", "handles": True},
                {"query": "who calls parse_config", "path": "src/**"},
            ]
        }
    )

    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="Plain words or an identifier; filters may be inside: symbol:NAME "
        "kind:KIND lang:LANGUAGE path:GLOB type:code|docs|tests.",
        examples=["where are failed uploads retried"],
    )
    k: int = k_field(10)
    mode: Mode = "hybrid"
    path: str | None = Field(None, max_length=1000, description="Only paths matching this glob.")
    language: str | None = Field(None, max_length=50)
    kind: str | None = Field(None, max_length=50)
    type: Category | None = None
    repo: str | None = repo_field()
    handles: bool = handles_field()
    refresh: bool = refresh_field()


class SymbolsRequest(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": "parse_config"},
                {"name": "Confg", "exact": False, "kind": "class"},
            ]
        }
    )

    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS, examples=["parse_config"])
    exact: bool = Field(True, description="true: the name in any case; false: fuzzy.")
    kind: str | None = Field(None, max_length=50)
    language: str | None = Field(None, max_length=50)
    path: str | None = Field(None, max_length=1000)
    type: Category | None = None
    k: int = k_field(20)
    repo: str | None = repo_field()
    handles: bool = handles_field()
    refresh: bool = refresh_field()


class ExpandRequest(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"handles": ["812:5-12@3"], "context_lines": 3},
                {"handles": ["src/app/config.py:40"]},
            ]
        }
    )

    handles: list[Annotated[str, Field(min_length=1, max_length=MAX_TARGET_CHARS)]] = Field(
        min_length=1,
        max_length=MAX_TARGETS,
        description="Handle ids (812:5-12@3) or repository paths: path, path:line, path:start-end.",
    )
    context_lines: int = Field(0, ge=0, le=200)
    max_tokens: int = Field(8000, ge=200, le=MAX_REPLY_TOKENS)
    repo: str | None = repo_field()


class RelatedRequest(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"target": "812:5-12@3", "k": 5},
                {"target": "src/app/config.py:40", "type": "docs"},
            ]
        }
    )

    target: str = Field(
        min_length=1, max_length=MAX_TARGET_CHARS, description="Handle id or path:line."
    )
    k: int = k_field(10)
    type: Category | None = None
    repo: str | None = repo_field()
    handles: bool = handles_field()


class HistoryRequest(Body):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"query": "retry backoff", "since": "3 months ago"},
                {"query": "fix upload timeout", "path": "src/**", "diff": True},
            ]
        }
    )

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = k_field(10)
    mode: Mode = "hybrid"
    author: str | None = Field(None, max_length=200)
    since: str | None = Field(None, max_length=100)
    until: str | None = Field(None, max_length=100)
    path: str | None = Field(None, max_length=1000)
    diff: bool = False
    refresh: bool = Field(True, description="Index new commits first.")
    repo: str | None = repo_field()


class ReindexRequest(Body):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{}, {"path_glob": "src/**/*.py"}, {"full": True}]}
    )

    path_glob: str | None = Field(
        None, max_length=1000, description="Re-read these files even if they look unchanged."
    )
    full: bool = Field(False, description="Rebuild from scratch (cached vectors are kept).")
    repo: str | None = repo_field()


class ErrorBody(BaseModel):
    """Every refusal and failure: one line, the status again, and a stable type."""

    error: str = Field(description="What went wrong, in one line.")
    status: int
    type: str = Field(
        description="malformed_json, invalid_request, bad_query, bad_path, bad_request, "
        "unauthorized, misdirected, forbidden_origin, unknown_repository, not_found, "
        "method_not_allowed, body_too_large, index_busy, index_corrupt or internal."
    )


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route can answer with."""
    meaning = {
        400: "Malformed JSON, or a query, path or handle that cannot be used.",
        401: "Bearer token missing or wrong (TCP with auth).",
        404: "No such repository served.",
        413: "Request body too large.",
        422: "A field is missing, unknown or out of bounds.",
        500: "The index is damaged, or an unexpected error.",
        503: "The index is busy (another process holds it too long).",
    }
    return {status: {"model": ErrorBody, "description": meaning[status]} for status in statuses}
