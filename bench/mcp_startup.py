"""Time from starting `sleuth mcp` to the tool list, on a large repository with no index.

Baseline, measured in the same run and alternated with it: a minimal server made with
the same SDK (one tool, nothing else), so the ratio shows what sleuth adds over the
SDK's own start-up. Both are launched and listed by the SDK's stdio client. The large
repository is every benchmark export copied into one folder, without any index, so
the server starts its first build in the background while it answers.

    python bench/mcp_startup.py --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

EXPORTS = Path.home() / ".cache" / "sleuth-bench" / "repos"
MINIMAL = """
from mcp.server import MCPServer
server = MCPServer("minimal")

@server.tool()
def add(a: int, b: int) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b

server.run("stdio")
"""


async def time_to_tools(params: StdioServerParameters, then_status: bool) -> tuple[float, str]:
    begin = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as client:
        await client.list_tools()
        elapsed = time.perf_counter() - begin
        state = ""
        if then_status:
            reply = await client.call_tool("index_status", {})
            state = json.loads(reply.content[0].text)["index"]["state"]
    return elapsed, state


def large_repo(target: Path) -> int:
    """Every export side by side (no .sleuth folders); returns the number of files."""
    for export in sorted(EXPORTS.iterdir()):
        if export.is_dir():
            shutil.copytree(export, target / export.name, ignore=shutil.ignore_patterns(".sleuth"))
    return sum(1 for p in target.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        minimal = work / "minimal.py"
        minimal.write_text(MINIMAL)
        baseline = StdioServerParameters(command=sys.executable, args=[str(minimal)])
        sleuth_times, base_times, states = [], [], []
        files = 0
        for run in range(args.runs):
            repo = work / f"large-{run}"  # a fresh copy: every run starts with no index
            files = large_repo(repo)
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "sleuth.cli", "mcp", str(repo), "--embed", "none"],
            )
            base_times.append(asyncio.run(time_to_tools(baseline, False))[0])
            elapsed, state = asyncio.run(time_to_tools(params, True))
            sleuth_times.append(elapsed)
            states.append(state)
            shutil.rmtree(repo, ignore_errors=True)
    sleuth_median, base_median = statistics.median(sleuth_times), statistics.median(base_times)
    print(f"large repository: {files} files, no index")
    print(f"sleuth mcp, spawn to tool list: median {sleuth_median:.2f} s {sleuth_times}")
    print(f"minimal SDK server (baseline):  median {base_median:.2f} s {base_times}")
    print(f"ratio {sleuth_median / base_median:.2f}; index state right after: {states}")


if __name__ == "__main__":
    main()
