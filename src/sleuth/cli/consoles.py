"""The consoles every command writes through: one style, one answer to a closed pipe."""

from __future__ import annotations

import os
import sys

from rich.console import Console


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """A reader that stopped early (``sleuth search x | head -1``) is no error: exit 0
        quietly, stdout sent to /dev/null so the interpreter's last flush is silent too.
        (rich exits 1, which fails a script run with ``set -o pipefail``.)"""
        self.quiet = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(0)


def console(stderr: bool = False) -> Console:
    """Plain text: no syntax highlighting, no emoji codes, long lines left whole."""
    return _Console(stderr=stderr, highlight=False, soft_wrap=True, emoji=False)
