"""The `sleuth` command: thin shells over sleuth.Index."""

import os
import sys


def run() -> None:
    """Console entry point, kept import-light.

    Worker processes (spawned for big indexing jobs) re-import the console script; with
    the commands and their dependencies imported only here, that costs them ~0.1 s
    instead of ~0.4 s each, which a first search on a fresh repository feels.
    `sleuth mcp` goes straight to its own module, so an MCP client gets the tool list
    without waiting for the search stack (numpy, tantivy, usearch) to load.
    """
    if sys.argv[1:2] == ["serve"]:
        # Before numpy loads: one BLAS thread per product. A daemon under load shares two
        # cores with index runs and clients; a 10k-chunk vector scan took 1.06 ms on two
        # contended BLAS threads and 0.42 ms on one (docs/decisions.md).
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.argv[1:2] == ["mcp"]:
        from .mcp_command import run as run_mcp

        run_mcp(sys.argv[2:])
        return
    if sys.argv[1:2] == ["search"]:  # a running daemon answers without the search stack
        from .search_command import run as run_search

        run_search(sys.argv[2:])
        return
    from .main import run as run_main

    run_main()
