"""Console entry point: `sleuth mcp` goes straight to the server, so an MCP client gets
the tool list without waiting for the search stack (numpy, tantivy, usearch) to load;
every other command goes to cli/main.py."""

from __future__ import annotations

import sys


def run() -> None:
    if sys.argv[1:2] == ["mcp"]:
        from .mcp_command import run as run_mcp

        run_mcp(sys.argv[2:])
    else:
        from .main import run as run_main

        run_main()


if __name__ == "__main__":
    run()
