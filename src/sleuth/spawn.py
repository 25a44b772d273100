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
