"""One clear line and a non-zero exit instead of a traceback, for every CLI entry point.

Kept in a module of its own (rich only) so import-light entry points such as
`sleuth search` share it without loading the rest of the CLI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from rich.markup import escape

from ..errors import SleuthError
from .consoles import console

_err = console(stderr=True)


def run_guarded(command: Callable[[], object]) -> None:
    """Run ``command``; turn every failure into one line on stderr and an exit code."""
    try:
        command()
    except SleuthError as exc:
        _err.print(f"[bold red]error:[/] {escape(str(exc))}")
        sys.exit(1)
    except KeyboardInterrupt:
        _err.print("interrupted: finished batches are kept; run the command again to resume")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as exc:
        message = f"{exc.strerror or exc}: {exc.filename or ''}"
        _err.print(f"[bold red]error:[/] {escape(message)}")
        sys.exit(1)
    except Exception as exc:  # the last line of defence: one line, never a traceback
        if os.environ.get("SLEUTH_DEBUG"):
            raise
        _err.print(
            f"[bold red]error:[/] unexpected {type(exc).__name__}: {escape(str(exc))} "
            "(set SLEUTH_DEBUG=1 for details)"
        )
        sys.exit(1)
