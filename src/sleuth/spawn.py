"""Detached worker processes (the background embedders of code and of history)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def spawn_detached(module: str, args: list[str], log: Path) -> None:
    """Start ``python -m module args`` in its own session, output appended to ``log``.

    It outlives the command that started it (a search returns at once) and holds no
    terminal or inherited descriptors. Raises OSError when it cannot be started.
    """
    with open(log, "ab") as out:
        subprocess.Popen(
            [sys.executable, "-m", module, *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )


def spawn_embedder(
    module: str, args: list[str], log: Path, notices: list[str], hint: str = ""
) -> bool:
    """``spawn_detached`` for a background embedder: a failure to start becomes a notice
    (the index stays usable lexically), with ``hint`` saying how to embed instead."""
    try:
        spawn_detached(module, args, log)
    except OSError as exc:
        notices.append(f"could not start the background embedder ({exc.strerror}){hint}")
        return False
    return True
