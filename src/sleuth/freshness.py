"""A cheap "did anything change since the last index run?" check, for long-lived servers.

A full index run walks the whole tree and applies every ignore rule; on a large
repository that costs seconds, too much to pay before every answer. This check only
stats what the index already knows: every indexed file (size and mtime against SQLite)
and every folder that holds one (mtime against the value seen before the last run; a
folder's mtime changes when an entry is added, removed or renamed in it). When it finds
anything, the caller runs the normal index update, which sorts out what really changed.

Blind spot, accepted: a new file in a folder that held no indexed file before (e.g. a
folder of only ignored files) is seen at the next run that something else triggers.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the store pulls numpy; this module stays light for the MCP server
    from .store.meta import FileRow


class ChangeDetector:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._folder_mtimes: dict[str, int] | None = None
        self._lock = threading.Lock()

    def changes(self, files: dict[str, FileRow], limit: int = 20) -> list[str]:
        """Up to ``limit`` changed paths (folders end with ``/``); empty when nothing changed.

        Before the first ``mark`` nothing is known, so the root counts as changed.
        """
        with self._lock:
            folders = self._folder_mtimes
        if folders is None:
            return ["./"]
        changed: list[str] = []
        for path, row in files.items():
            try:
                stat = os.stat(self.root / path, follow_symlinks=False)
            except OSError:
                changed.append(path)
            else:
                if stat.st_size != row.size or stat.st_mtime_ns != row.mtime_ns:
                    changed.append(path)
            if len(changed) >= limit:
                return changed
        for folder, mtime in folders.items():
            if _mtime(self.root / folder) != mtime:
                changed.append(folder + "/" if folder else "./")
                if len(changed) >= limit:
                    break
        return changed

    def mark(self, paths: Iterable[str], keep_known: bool = False) -> None:
        """Remember the mtimes of the folders holding ``paths`` (call before an index run).

        With ``keep_known`` only folders not seen before are added (call after a run, for
        folders that the run found new).
        """
        folders = {""}
        for path in paths:
            parent = path.rpartition("/")[0]
            while parent not in folders:
                folders.add(parent)
                parent = parent.rpartition("/")[0]
        with self._lock:
            known = self._folder_mtimes if keep_known and self._folder_mtimes else {}
            fresh = {f: _mtime(self.root / f) for f in folders if f not in known}
            self._folder_mtimes = {**known, **fresh}

    def forget(self) -> None:
        """Make the next check report a change (e.g. after a run that could not happen)."""
        with self._lock:
            self._folder_mtimes = None


def _mtime(path: Path) -> int:
    try:
        return os.stat(path, follow_symlinks=False).st_mtime_ns
    except OSError:
        return -1
