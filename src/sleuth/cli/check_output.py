"""`sleuth status --check`: counts per store, problems, repairs; exit 1 if unrepaired."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from .consoles import console

if TYPE_CHECKING:
    from ..api import Index


def print_check(index: Index, as_json: bool) -> None:
    out = console()
    report = index.check(repair=True)
    if as_json:
        out.print_json(json.dumps(report.to_dict()))
    else:
        out.print(f"[bold]{index.root}[/]")
        out.print(f"  SQLite chunks      {report.chunks:,}")
        out.print(
            f"  tantivy documents  {report.lexical_docs:,}  (commit {report.lexical_mark}, "
            f"SQLite at {report.lexical_commit})"
        )
        out.print(
            f"  vectors            {report.vectors:,}  (SQLite has vectors for "
            f"{report.embedded_chunks:,} chunks)"
        )
        for line in report.problems:
            out.print(f"  [yellow]found[/]     {line}")
        for line in report.repaired:
            out.print(f"  [green]repaired[/]  {line}")
        for line in report.notes:
            out.print(f"  [dim]note[/]      {line}")
        for line in report.unrepaired:
            out.print(f"  [bold red]not repaired[/] {line}")
        out.print("consistent" if report.ok else "inconsistent")
    if not report.ok:
        raise typer.Exit(1)
