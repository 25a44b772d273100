"""What the HTTP API answers with, as OpenAPI documents it.

The bodies are built as plain dicts (``sleuth.service``) and sent as they are: these
models describe them for /openapi.json and for clients generated from it; no answer is
validated against them on its way out. The test suite checks every endpoint's real
answers against this schema, undocumented keys included, so the two cannot drift apart.
Fields are only ever added: a client should ignore keys it does not know.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

IndexStateName = Literal["complete", "embedding", "lexical", "stale", "building"]


class IndexState(BaseModel):
    """What an answer can promise about the index it came from."""

    state: IndexStateName = Field(
        description="complete; embedding (some vectors are still being computed: lexical "
        "results fill in); lexical (some chunks have no vector and none are being "
        "computed); stale (files changed, another process holds the write lock); "
        "building (the first index run is under way)."
    )
    generation: int | None = Field(None, description="Index run counter.")
    chunks: int | None = None
    embedded_fraction: float | None = None
    note: str = ""


class OtherHit(BaseModel):
    """Another chunk of a result's file that matched: a pointer, not a result."""

    start_line: int
    end_line: int
    symbol: str


class Result(BaseModel):
    path: str = Field(description="Relative to the repository root.")
    start_line: int = Field(description="First line, counted from 1.")
    end_line: int
    symbol: str
    kind: str
    language: str
    score: float
    preview: str
    parent: str
    signature: str
    also: list[OtherHit]


class Hit(BaseModel):
    """A compact handle: /expand turns its id into the code."""

    id: str = Field(description="chunk:start-end@generation", examples=["812:5-12@3"])
    path: str
    symbol: str | None = None
    kind: str
    preview: str | None = None
    also: list[OtherHit] | None = None


class SearchReply(BaseModel):
    query: str = Field(description="What was searched (respelled when a name was mistyped).")
    mode: str = Field(description="The mode actually used: hybrid, lexical or semantic.")
    query_class: str = Field(description="identifier, natural or mixed.")
    embedded_fraction: float
    vectors: list[str] = Field(description="Whose vectors ranked it: static, deep, both, none.")
    reason: str = Field(description="Why there are no results, when there are none.")
    notices: list[str]
    respelled_from: str = Field(description="The query as asked, when it was respelled.")
    results: list[Result]
    hits: list[Hit] | None = Field(None, description="With `handles`: one per result.")
    index: IndexState


class SymbolsReply(BaseModel):
    name: str
    exact: bool
    reason: str
    results: list[Result]
    hits: list[Hit] | None = None
    index: IndexState


class FreshHandle(Hit):
    """Where a stale handle's code is now."""

    location: str = Field(description="path:start-end")


class ExpandItem(BaseModel):
    target: str
    status: str = Field(
        description="fresh; stale (the code changed since the handle was given: `fresh` "
        "says where it is now, when it can be found); error (see `error`)."
    )
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None
    kind: str | None = None
    text: str | None = Field(None, description="This target's block of the answer's text.")
    id: str | None = Field(None, description="A fresh handle of the code shown.")
    message: str | None = None
    fresh: FreshHandle | None = None
    error: str | None = None


class ExpandReply(BaseModel):
    text: str = Field(description="The whole answer: numbered lines under one header each.")
    items: list[ExpandItem]
    errors: list[str]
    index: IndexState


class Hunk(BaseModel):
    path: str
    header: str
    text: str


class Commit(BaseModel):
    sha: str
    date: str = Field(description="Author date, ISO 8601 with the author's offset.")
    author: str
    email: str
    subject: str
    files: list[str]
    score: float
    body: str
    parents: list[str]
    hunks: list[Hunk] = Field(description="With `diff`: the hunks that match best.")


class HistoryReply(BaseModel):
    query: str
    mode: str
    query_class: str
    embedded_fraction: float
    commits_indexed: int
    reason: str
    notices: list[str]
    results: list[Commit]
    index: IndexState


class ReindexReply(BaseModel):
    files: int
    changed: int
    removed: int
    chunks_written: int
    pending_embeddings: int
    notices: list[str]
    index: IndexState


class HistoryStatus(BaseModel):
    root: str
    exists: bool
    commits: int | None = None
    embedded_commits: int | None = None
    embedded_fraction: float | None = None
    tips: list[str] | None = None
    background_embedder_pid: int | None = None


class CacheCounts(BaseModel):
    hits: int
    misses: int
    entries: int | None = None


class Caches(BaseModel):
    results: CacheCounts
    query_vectors: CacheCounts


class StatusReply(BaseModel):
    root: str
    index_dir: str
    exists: bool
    files: int | None = None
    chunks: int | None = None
    definitions: int | None = None
    embedded_chunks: int | None = None
    static_chunks: int | None = None
    embedding_model: str | None = None
    static_model: str | None = None
    embedded_fraction: float | None = None
    background_embedder_pid: int | None = None
    writer_pid: int | None = None
    generation: int | None = None
    size_bytes: int | None = None
    history: HistoryStatus | None = None
    index: IndexState
    watching: bool
    watcher_pid: int | None
    watch_note: str
    caches: Caches


class HealthReply(BaseModel):
    ok: bool
    version: str
    pid: int
    repositories: list[str] = Field(
        description="Roots served (folder names only when the daemon asks for a token)."
    )
