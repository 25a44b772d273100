"""`sleuth mcp` through the SDK's own client: over stdio as agents start it, and over HTTP."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from sleuth import Index
from sleuth.config import MAX_QUERY_CHARS
from sleuth.handles import MAX_REPLY_TOKENS, estimate_tokens
from sleuth.mcp.server import pack_reply

from .conftest import git_init, write_tree

TOOLS = {
    "search",
    "find_symbol",
    "find_uses",
    "expand",
    "related",
    "history",
    "index_status",
    "reindex",
}


def server(repo: Path, *options: str) -> StdioServerParameters:
    """`sleuth mcp REPO OPTIONS` through the console entry point's module."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "sleuth.cli", "mcp", str(repo), *options]
    )


def session(params: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(params, read_timeout_seconds=120) as client:
            return await body(client)

    return asyncio.run(main())


async def call(client: Client, tool: str, arguments: dict) -> tuple[bool, str]:
    result = await client.call_tool(tool, arguments)
    return result.is_error, result.content[0].text


async def ok(client: Client, tool: str, arguments: dict) -> str:
    failed, text = await call(client, tool, arguments)
    assert not failed, text
    return text


def test_agent_session_search_symbol_expand_and_stale(sample_repo: Path) -> None:
    Index(sample_repo).index(embed="deep")
    retry_file = sample_repo / "src" / "uploads" / "retry.py"

    async def body(client: Client) -> None:
        listed = (await client.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        for tool in listed:
            assert len(tool.description or "") > 30, tool.name
            assert "\n    " not in tool.description, tool.name  # no docstring indentation
            assert tool.annotations.read_only_hint == (tool.name != "reindex"), tool.name
        search_schema = next(t for t in listed if t.name == "search").input_schema
        assert search_schema["required"] == ["query"]
        assert {"query", "k", "mode", "path", "language", "kind", "type", "max_tokens"} <= set(
            search_schema["properties"]
        )
        # the bounds are in the schema, the same as the HTTP API's and the library's
        assert search_schema["properties"]["query"]["maxLength"] == MAX_QUERY_CHARS
        too_long = "how are uploads retried " * (MAX_QUERY_CHARS // 24 + 1)
        failed, text = await call(client, "search", {"query": too_long})
        assert failed and f"at most {MAX_QUERY_CHARS}" in text

        reply = json.loads(
            await ok(client, "search", {"query": "where are failed uploads retried"})
        )
        assert reply["index"]["state"] in ("complete", "building")
        top = reply["hits"][0]
        assert (top["path"], top["symbol"], top["kind"]) == (
            "src/uploads/retry.py",
            "retry_failed_upload",
            "function",
        )
        assert top["preview"].startswith("def retry_failed_upload(")
        assert all(len(json.dumps(h)) < 200 for h in reply["hits"])

        structured = json.loads(
            await ok(client, "search", {"query": "symbol:ConfigParser kind:class lang:python"})
        )
        assert [(h["path"], h["kind"]) for h in structured["hits"]] == [
            ("src/config/parser.py", "class")
        ]

        found = json.loads(await ok(client, "find_symbol", {"name": "parse_config"}))
        assert [(h["path"], h["symbol"]) for h in found["hits"]] == [
            ("src/config/parser.py", "ConfigParser.parse_config")
        ]
        # what a function calls, and who calls one: questions agents ask while reading
        callees = json.loads(await ok(client, "search", {"query": "what does main call"}))
        assert (callees["hits"][0]["path"], callees["hits"][0]["symbol"]) == (
            "src/config/parser.py",
            "ConfigParser",
        )
        callers = json.loads(await ok(client, "search", {"query": "who calls retry_failed_upload"}))
        assert callers["hits"][0]["path"] == "tests/test_retry.py"  # the one call
        # the same by name and kind of use: handlers, imports, constructions, tests, callees
        uses = {
            ("ConnectionError", "catch"): ("src/uploads/retry.py", "retry_failed_upload"),
            ("ConfigParser", "import"): ("src/app.py", ""),
            ("ConfigParser", "construct"): ("src/app.py", "main"),
            ("ConfigParser", "use"): ("src/app.py", "main"),
            ("retry_failed_upload", "test"): (
                "tests/test_retry.py",
                "test_retry_gives_up_after_attempts",
            ),
            ("main", "callees"): ("src/config/parser.py", "ConfigParser"),
        }
        for (name, use), first in uses.items():
            reply = json.loads(await ok(client, "find_uses", {"name": name, "use": use, "k": 3}))
            top_use = reply["hits"][0]
            assert (top_use["path"], top_use.get("symbol", "")) == first, (name, use)
        failed, text = await call(client, "find_uses", {"name": "main", "use": "overrides"})
        assert failed and "\n" not in text.strip(), text
        fuzzy = json.loads(await ok(client, "find_symbol", {"name": "retryUpload", "exact": False}))
        assert fuzzy["hits"][0]["symbol"] == "retry_failed_upload"

        code = await ok(client, "expand", {"handles": [top["id"]], "context_lines": 1})
        assert code.startswith("index: complete")
        assert " 5  def retry_failed_upload(upload, attempts=3, backoff=0.5):" in code
        assert "12      raise RuntimeError" in code

        related = json.loads(await ok(client, "related", {"target": top["id"], "k": 3}))
        assert related["mode"] == "semantic" and len(related["hits"]) == 3

        retry_file.write_text('"""Moved."""\n\n\n' + retry_file.read_text())
        stale = await ok(client, "expand", {"handles": [top["id"]]})
        assert "STALE" in stale and "changed since this handle was issued" in stale
        fresh_id = re.search(r"fresh location: (\S+) src/uploads/retry.py:8-15", stale).group(1)
        fresh = await ok(client, "expand", {"handles": [fresh_id]})
        assert " 8  def retry_failed_upload(" in fresh

        again = json.loads(await ok(client, "search", {"query": "retry_failed_upload", "k": 1}))
        assert again["hits"][0]["id"].split(":")[1].startswith("8-15@")
        status = json.loads(await ok(client, "index_status", {}))
        assert status["files"] == 6 and status["index"]["generation"] == 2

    session(server(sample_repo), body)


BAD_CALLS = [
    ("search", {}, "query: field required"),
    ("search", {"query": "retry", "k": 100000}, "k: input should be less than or equal"),
    ("search", {"query": "retry", "k": 0}, "k: input should be greater than"),
    ("search", {"query": "retry", "mode": "magic"}, "mode: input should be"),
    ("search", {"query": "retry", "max_tokens": 10**9}, "max_tokens: input should be"),
    ("search", {"query": "!!!"}, "nothing searchable"),
    ("search", {"query": "retry", "type": "everything"}, "type: input should be"),
    ("expand", {"handles": ["99999:1-2@1"]}, "unknown handle"),
    ("expand", {"handles": ["../../etc/passwd"]}, "outside the repository"),
    ("expand", {"handles": ["/etc/passwd"]}, "outside the repository"),
    ("expand", {"handles": [".env"]}, "not an indexed file"),
    ("expand", {"handles": []}, "handles: list should have at least 1 item"),
    ("expand", {"handles": ["src/app.py"], "context_lines": -3}, "context_lines:"),
    ("related", {"target": "../../etc/passwd:1"}, "outside the repository"),
    ("find_symbol", {"name": "..."}, "not a symbol name"),
    ("no_such_tool", {}, "unknown tool"),
]


def test_bad_arguments_are_one_line_tool_errors(sample_repo: Path) -> None:
    write_tree(sample_repo, {".env": "TOKEN=hunter2\n"})
    Index(sample_repo).index(embed="deep")

    async def body(client: Client) -> None:
        for tool, arguments, message in BAD_CALLS:
            failed, text = await call(client, tool, arguments)
            assert failed, (tool, arguments)
            assert message.lower() in text.lower(), text
            assert "\n" not in text and "Traceback" not in text and "hunter2" not in text
        # The session survives bad calls.
        assert json.loads(await ok(client, "find_symbol", {"name": "main"}))["hits"]

    session(server(sample_repo), body)


def test_no_reply_exceeds_its_budget(tmp_path: Path) -> None:
    body_lines = "\n".join(f"    total += step_{n}(value, {n})" for n in range(40))
    files = {
        f"pkg/module_{m}.py": "\n\n".join(
            f"def handler_{m}_{f}(value):\n    total = 0\n{body_lines}\n    return total"
            for f in range(12)
        )
        for m in range(40)
    }
    repo = write_tree(tmp_path / "wide", files)
    git_init(repo)
    Index(repo).index(embed="none")
    everything = [f"pkg/module_{m}.py" for m in range(40)]

    async def body(client: Client) -> None:
        for budget in (200, 1000, 5000):
            reply = await ok(
                client,
                "search",
                {"query": "handler total value step", "k": 100, "max_tokens": budget},
            )
            assert estimate_tokens(reply) <= budget
            if budget < 5000:
                assert json.loads(reply)["omitted"] > 0
        reply = await ok(client, "search", {"query": "handler total value step", "k": 100})
        assert len(json.loads(reply)["hits"]) + json.loads(reply).get("omitted", 0) == 100
        # a budget nothing fits in says what would
        empty = json.loads(pack_reply({"mode": "hybrid"}, "hits", [{"x": "y" * 2000}], 200))
        assert empty["hits"] == [] and "max_tokens of about" in empty["note"]
        for budget in (300, 8000, MAX_REPLY_TOKENS):
            code = await ok(
                client,
                "expand",
                {"handles": everything, "context_lines": 200, "max_tokens": budget},
            )
            assert estimate_tokens(code) <= budget
            assert "budget spent" in code or "-- cut:" in code

    session(server(repo, "--embed", "none"), body)


def test_tools_are_listed_while_the_first_build_runs(tmp_path: Path) -> None:
    files = {
        f"src/area_{a}/unit_{u}.py": f"def compute_{a}_{u}(x):\n    return x * {u}\n"
        for a in range(60)
        for u in range(60)
    }
    repo = write_tree(tmp_path / "large", files)
    git_init(repo)

    async def body(client: Client) -> None:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        status = json.loads(await ok(client, "index_status", {}))
        assert status["index"]["state"] == "building"
        await asyncio.sleep(2)  # the run's worker processes are up by now

    before = worker_processes()
    session(server(repo, "--embed", "none"), body)
    deadline = time.monotonic() + 10
    while worker_processes() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not worker_processes() - before  # no worker outlives the server


def worker_processes() -> set[int]:
    """Live multiprocessing children of this test environment's interpreter."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if command[0].decode(errors="replace") == sys.executable and any(
            b"multiprocessing" in part for part in command
        ):
            found.add(int(entry.name))
    return found


def test_streamable_http_on_loopback(sample_repo: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "sleuth.cli", "mcp", str(sample_repo)]
    process = subprocess.Popen(
        [*command, "--http", "--port", str(port), "--embed", "none"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)

        async def body(client: Client) -> None:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            reply = json.loads(await ok(client, "find_symbol", {"name": "startServer"}))
            assert reply["hits"][0]["path"] == "web/server.js"

        session(f"http://127.0.0.1:{port}/mcp", body)
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=30)
    assert out == b""  # nothing on stdout


def test_the_first_answer_on_a_new_repository_ranks_by_meaning_too(sample_repo: Path) -> None:
    # as a first command-line search does: words first, then the static tier when it
    # takes a couple of seconds at most; the model's vectors follow in the background
    async def body(client: Client) -> None:
        reply = json.loads(
            await ok(client, "search", {"query": "where are failed uploads retried"})
        )
        assert reply["mode"] == "hybrid", reply
        assert any("static table" in notice for notice in reply.get("notices", [])), reply
        assert reply["hits"][0]["symbol"] == "retry_failed_upload"

    session(server(sample_repo, "--no-daemon"), body)


def test_cli_mcp_bad_path_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sleuth.cli", "mcp", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("error:") and "Traceback" not in proc.stderr


def test_cli_mcp_over_http_refuses_a_remote_host_without_the_flag(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "sleuth.cli", "mcp", str(tmp_path), "--http"]
    proc = subprocess.run(
        [*command, "--host", "0.0.0.0", "--port", "1"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert "not a loopback address" in proc.stderr and "--allow-remote" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_history_tool_finds_the_commit_and_filters_by_author(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": "def upload():\n    return 1\n"})
    git_init(tmp_path)

    def commit(message: str, author: str, text: str) -> None:
        (tmp_path / "app.py").write_text(text)
        subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
        identity = ["-c", f"user.name={author}", "-c", f"user.email={author}@example.org"]
        subprocess.run(
            ["git", "-C", str(tmp_path), *identity, "commit", "-qm", message], check=True
        )

    commit("Add the upload entry point", "ann", "def upload():\n    return 1\n")
    commit(
        "Retry failed uploads with exponential backoff",
        "bob",
        "def upload():\n    return retry_with_backoff(send)\n",
    )

    async def body(client: Client) -> None:
        reply = json.loads(
            await ok(client, "history", {"query": "when did uploads get retries", "k": 3})
        )
        assert reply["commits"][0]["subject"] == "Retry failed uploads with exponential backoff"
        assert reply["commits"][0]["files"] == ["app.py"]
        assert reply["index"]["state"] in ("complete", "lexical", "building")
        only_ann = json.loads(
            await ok(client, "history", {"query": "upload", "author": "ann", "k": 3})
        )
        assert [c["author"] for c in only_ann["commits"]] == ["ann"]
        failed, text = await call(client, "history", {"query": "x", "since": "not a date"})
        assert failed and "\n" not in text.strip()

    session(server(tmp_path, "--embed", "none"), body)


def test_cli_mcp_bad_options_are_usage_errors(tmp_path: Path) -> None:
    for options in (["--port", "0"], ["--embed", "deep"], ["--bogus"]):
        proc = subprocess.run(
            [sys.executable, "-m", "sleuth.cli", "mcp", str(tmp_path), *options],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2 and proc.stdout == ""
        assert "error:" in proc.stderr.splitlines()[-1] and "Traceback" not in proc.stderr
