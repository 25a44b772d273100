"""Human output of `sleuth history`: one block per commit, hunks on request."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ..history import HistoryResponse
from ..history.results import CommitResult, Hunk
from ..results import known_fields

FILES_SHOWN = 6


def print_commits(console: Console, response: HistoryResponse) -> None:
    for result in response.results:
        head = Text()
        head.append(result.sha[:10], style="bold yellow")
        head.append(f"  {result.date[:10]}  ", style="cyan")
        head.append(result.author, style="bold")
        head.append(f"  {result.score:.3f}", style="dim")
        console.print(head)
        console.print(Text("    " + result.subject))
        if result.files:
            shown = ", ".join(result.files[:FILES_SHOWN])
            more = len(result.files) - FILES_SHOWN
            suffix = f" (+{more} more)" if more > 0 else ""
            console.print(Text(f"    files: {shown}{suffix}", style="dim"))
        for hunk in result.hunks:
            console.print(Text(f"    {hunk.path}  {hunk.header}", style="bold cyan"))
            for line in hunk.text.split("\n"):
                style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
                console.print(Text("      " + line, style=style))
        console.print()


def history_response_of(answer: dict) -> HistoryResponse:
    """A HistoryResponse from the JSON of the daemon's /history; keys this version does
    not know (``index``, or what a newer daemon adds) are dropped."""
    response = HistoryResponse(**known_fields(HistoryResponse, answer, "results"))
    for item in answer["results"]:
        hunks = [Hunk(**known_fields(Hunk, h)) for h in item.get("hunks", [])]
        commit = known_fields(CommitResult, item, "hunks")
        response.results.append(CommitResult(**commit, hunks=hunks))
    return response
