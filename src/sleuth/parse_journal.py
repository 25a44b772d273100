"""Which file each process is parsing, so that a process that dies mid-parse names it.

A grammar that crashes the process on some input (a segmentation fault in C) would
crash every run that reaches the file, and the index could never be completed. So
each process that parses writes the path it is about to parse, and a newline, at the
start of a file of its own (``<index>/parsing/<pid>``), and a newline alone there when
the parse returns: two small writes (4 us a file), no flush to disk (a crashed
process's writes are in the page cache all the same). The first line names the file. A
journal left by a dead process that still names a path names the suspect; the indexer
then prepares that file in a process of its own, and as line windows if that process
dies too (``indexer``). The journal is kept per thread: a library caller indexing two
trees at once from two threads journals each tree's parses into its own folder (worker
processes run their tasks on their main thread).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path


class _Journal(threading.local):
    """This thread's journal: its folder, and the file opened in it by which process."""

    directory: str | None = None
    fd: int | None = None
    pid: int | None = None


_state = _Journal()


def use(directory: str | None) -> None:
    """Journal this thread's parses into ``directory`` (None: none)."""
    _close()
    _state.directory = directory


@contextlib.contextmanager
def parsing(path: str) -> Iterator[None]:
    """Name ``path`` in this thread's journal while the block runs."""
    fd = _journal()
    if fd is None:
        yield
        return
    with contextlib.suppress(OSError):  # a journal is a help, never a reason to fail
        os.pwrite(fd, path.encode("utf-8", errors="surrogateescape") + b"\n", 0)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.pwrite(fd, b"\n", 0)  # the first line is empty: nothing being parsed


def crashed(directory: Path) -> list[str]:
    """The paths named by the journals of processes that are gone (each journal is
    read once, then removed); journals of live processes stay."""
    try:
        entries = list(directory.iterdir())
    except OSError:
        return []
    paths: list[str] = []
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid() or _alive(int(entry.name)):
            continue
        try:
            first = entry.read_bytes().split(b"\n", 1)[0]
            named = first.decode("utf-8", errors="surrogateescape")
            entry.unlink()
        except OSError:
            continue
        if named and named not in paths:
            paths.append(named)
    return paths


def _journal() -> int | None:
    """This thread's journal, opened on first use (again in a new process)."""
    directory = _state.directory
    if directory is None:
        return None
    if _state.pid != os.getpid():
        _state.fd = None
        try:
            os.makedirs(directory, exist_ok=True)
            path = os.path.join(directory, str(os.getpid()))
            _state.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError:
            pass
        _state.pid = os.getpid()
    return _state.fd


def _close() -> None:
    if _state.fd is not None and _state.pid == os.getpid():
        with contextlib.suppress(OSError):
            os.close(_state.fd)
    _state.fd = _state.pid = None


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs: a worker that died is a zombie until its pool reaps it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:  # reaped since the signal, unless there is no /proc at all
        return not Path("/proc/self/stat").exists()
    except OSError:
        return True  # no /proc to ask: alive, as far as can be told
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
