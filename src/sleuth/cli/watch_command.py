"""`sleuth watch`: keep the index current while files change, one line per batch."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from dataclasses import asdict
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ..live import WatchBatch, Watcher
from ..server.watch_process import PARENT_VARIABLE
from .consoles import console


class WatchEmbed(StrEnum):
    background = "background"
    inline = "inline"
    none = "none"


def watch(
    path: Annotated[
        Path, typer.Argument(help="Repository or any folder inside it.", readable=False)
    ] = Path("."),
    debounce: Annotated[
        int, typer.Option(min=10, max=10_000, help="Milliseconds to group events over.")
    ] = 200,
    embed: Annotated[
        WatchEmbed,
        typer.Option(
            help="background: a background process embeds new chunks; inline: this process "
            "does (the model stays loaded); none: lexical only."
        ),
    ] = WatchEmbed.background,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per batch.")] = False,
) -> None:
    """Follow file changes and re-index them as they happen (Ctrl-C or SIGTERM stops).

    Indexes what changed since the last run first, then applies every batch of saves,
    renames and deletions; a branch switch or an ignore-file change re-walks the tree.
    """
    from ..api import Index

    out = console()
    err = console(stderr=True)
    index = Index(path)

    def report(batch: WatchBatch) -> None:
        if as_json:
            out.print_json(json.dumps(asdict(batch)), indent=None)
        else:
            out.print(describe(batch), markup=False)

    watcher = Watcher(index, debounce, report, embed=embed.value)
    if not as_json:
        err.print(f"[dim]watching {index.root} (Ctrl-C stops)[/]")
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop,), daemon=True)
    # A kill (SIGTERM) stops as Ctrl-C does. It is how the daemon stops this process:
    # SIGINT is ignored by processes a script starts in the background.
    signal.signal(signal.SIGTERM, _interrupt)
    thread.start()
    parent = os.environ.get(PARENT_VARIABLE, "")
    try:
        while thread.is_alive():
            thread.join(0.5)
            if parent and os.getppid() != int(parent):  # started by a daemon now gone
                stop.set()
                thread.join(60)
                break
    except KeyboardInterrupt:
        if not as_json:
            err.print("[dim]stopping: finishing the batch in progress[/]")
        stop.set()
        thread.join(60)
    finally:
        index.close()
    if watcher.error:  # the watch itself ended (the folder vanished): not a clean stop
        err.print(watcher.error, markup=False)
        raise typer.Exit(1)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def describe(batch: WatchBatch) -> str:
    """One line per batch: when, what changed, what the index did, how long it took."""
    clock = time.strftime("%H:%M:%S")
    if batch.full:
        what = "full run"
    else:
        what = f"{len(batch.changed)} changed, {len(batch.removed)} removed"
    if batch.error:
        return f"{clock}  {what}: not applied yet ({batch.error})"
    return (
        f"{clock}  {what}: {batch.indexed} re-indexed, {batch.dropped} dropped, "
        f"{batch.chunks} chunks in {batch.seconds:.2f} s (generation {batch.generation})"
    )
