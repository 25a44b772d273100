"""Rich progress bars on stderr for the indexer's (phase, done, total) callbacks."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

LABELS = {
    "scan": "scanning files",
    "index": "indexing files",
    "embed": "embedding chunks",
    "static": "static vectors",
    "history": "reading commits",
    "history-embed": "embedding commits",
}


class ProgressBars:
    """Context manager; call the instance as the ``progress`` callback."""

    def __init__(self, console: Console, enabled: bool = True) -> None:
        self.enabled = enabled
        self.bars = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<17}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            disable=not enabled,
        )
        self.tasks: dict[str, TaskID] = {}

    def __enter__(self) -> ProgressBars:
        self.bars.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bars.__exit__(*exc)

    def __call__(self, phase: str, done: int, total: int, note: str = "") -> None:
        if not self.enabled:
            return
        task = self.tasks.get(phase)
        if task is None:
            task = self.bars.add_task(
                LABELS.get(phase, phase), total=total or None, rate="", note=""
            )
            self.tasks[phase] = task
        elapsed = self.bars.tasks[task].elapsed or 0.0
        rate = f"{done / elapsed:,.0f}/s" if elapsed > 0.5 and done else ""
        self.bars.update(task, completed=done, total=total or None, rate=rate, note=note)
