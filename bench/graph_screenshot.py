"""Render the similarity graph of a repository and screenshot it in headless Chromium.

Used for docs/graph.png (the graph of this repository). Needs an index with vectors
(`sleuth index --embed deep`) and Debian's `chromium`.

    python bench/graph_screenshot.py . docs/graph.png --select src/sleuth/api.py
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from sleuth import Index
from sleuth.graph import to_html


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--type", default="all")
    parser.add_argument("-k", type=int, default=4)
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--size", default="1600,1000")
    parser.add_argument("--select", default="", help="Path of a file to show selected.")
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("error: chromium is not installed (apt-get install -y chromium)")
    graph = Index(args.repo).graph(args.type, k=args.k, threshold=args.threshold)
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "graph.html"
        page.write_text(to_html(graph), encoding="utf-8")
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--window-size={args.size}",
                f"--screenshot={args.out.resolve()}",
                page.as_uri() + (f"#select={args.select}" if args.select else ""),
            ],
            check=True,
            capture_output=True,
        )
    print(f"{args.out}: {len(graph.nodes)} files, {len(graph.edges)} links")


if __name__ == "__main__":
    main()
