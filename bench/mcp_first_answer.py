"""Time of an MCP server's first answer to a question in words (not a test).

An agent starts `sleuth mcp`, reads the tool list, thinks for a moment, then asks its
first question. Measured: that first `search` call, on an indexed repository, after a
pause (default 2 s). This checkout's interpreter and a baseline one (another checkout
in its own virtualenv) take turns, each server started afresh through the SDK's stdio
client; the medians and their ratio are reported.

    python bench/mcp_first_answer.py ~/.cache/sleuth-bench/repos/click/src/click \
        --baseline-python /tmp/base/.venv/bin/python --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import sys
import time
from pathlib import Path

from common import emit
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def first_answer(python: str, root: Path, query: str, pause: float) -> float:
    params = StdioServerParameters(command=python, args=["-m", "sleuth.cli", "mcp", str(root)])
    async with Client(params, read_timeout_seconds=120) as client:
        await client.list_tools()
        await asyncio.sleep(pause)
        begin = time.perf_counter()
        reply = await client.call_tool("search", {"query": query})
        elapsed = time.perf_counter() - begin
    if reply.is_error:
        sys.exit(f"{python}: the search failed: {reply.content}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path, help="an indexed repository (deep tier built)")
    parser.add_argument("--baseline-python", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pause", type=float, default=2.0, help="seconds before the call")
    parser.add_argument("--query", default="how are command line options parsed")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"sleuth": [], "baseline": []}
    for _ in range(args.runs):
        for name, python in (("sleuth", args.python), ("baseline", args.baseline_python)):
            seconds = asyncio.run(first_answer(python, args.root, args.query, args.pause))
            times[name].append(seconds)
    summary = {
        name: {"median_ms": round(1000 * statistics.median(v), 1), "runs_ms": v}
        for name, v in times.items()
    }
    for entry in summary.values():
        entry["runs_ms"] = [round(1000 * s, 1) for s in entry["runs_ms"]]
    summary["ratio"] = round(summary["sleuth"]["median_ms"] / summary["baseline"]["median_ms"], 3)
    summary["root"] = str(args.root)
    summary["machine"] = f"{platform.machine()}, {platform.python_version()}"
    emit(summary, args.out)


if __name__ == "__main__":
    main()
