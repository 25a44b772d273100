"""One writer per repository: an flock on .sleuth/write.lock holding the owner's PID.

The kernel drops an flock when its process dies, so a killed writer never leaves a
stale lock behind: the file it leaves (with its PID) is taken over by the next process
at once, with no PID liveness guess (PIDs are reused). The PID is for messages.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import IndexBusy


class FileLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lock; wait up to ``timeout`` seconds (None = forever, 0 = try once)."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if deadline is not None and time.monotonic() >= deadline:
                    os.close(fd)
                    return False
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def held_by_other(self) -> int | None:
        """PID of another live holder, or None when free."""
        if self._fd is not None:
            return None
        try:  # a look, not a take: the holder's PID in the file stays as it is
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass
        else:
            return None
        finally:
            os.close(fd)  # (closing drops a lock this look took)
        try:
            return int(self.path.read_text().strip() or 0) or -1
        except (OSError, ValueError):
            return -1

    @contextlib.contextmanager
    def taken(self, timeout: float | None = None) -> Iterator[bool]:
        """The lock for a with-block if it can be had within ``timeout``: yields whether
        it was taken (callers that find it busy skip their work), released on exit."""
        if not self.acquire(timeout):
            yield False
            return
        try:
            yield True
        finally:
            self.release()

    @contextlib.contextmanager
    def hold(self, timeout: float | None = 600.0) -> Iterator[None]:
        if not self.acquire(timeout):
            pid = self.held_by_other()
            who = f"pid {pid}" if pid and pid > 0 else "pid unknown"
            raise IndexBusy(
                f"another sleuth process ({who}) is writing this index; try again when it finishes"
            )
        try:
            yield
        finally:
            self.release()
