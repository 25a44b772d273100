"""The daemon's watcher, as a child process (`sleuth watch --json`).

A watcher inside the daemon re-indexes in a thread that shares the interpreter lock
with every search (the same reason index runs asked for over /reindex run apart, see
write_job.py). As a child it only competes for a core. Its one-line-per-batch output
goes to ``.sleuth/watch.log``; when it ends on its own, the last line says why.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

#: Tells `sleuth watch` the pid to outlive no longer.
PARENT_VARIABLE = "SLEUTH_WATCH_PARENT"
#: Seconds the child may take to finish the batch in progress after SIGTERM.
STOP_WAIT = 30.0


class WatcherProcess:
    def __init__(self, root: Path, log: Path, embed: str) -> None:
        self.root = root
        self.log = log
        self.embed = embed
        self._process: subprocess.Popen | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "sleuth.cli", "watch", str(self.root), "--json"]
        command += ["--embed", self.embed]
        # the child ends by itself when this process is gone (even after a kill -9)
        env = {**os.environ, PARENT_VARIABLE: str(os.getpid())}
        with open(self.log, "wb") as out:  # a fresh log per start: one line per batch
            self._process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env
            )

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def error(self) -> str:
        """Why it ended: the last line of its log, or its exit code."""
        if self._process is None or self._process.poll() is None:
            return ""
        try:
            lines = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            lines = []
        return lines[-1][-300:] if lines else f"exit code {self._process.returncode}"

    def stop(self) -> None:
        """SIGTERM (the batch in progress is finished), then a kill if it takes too long.

        Not SIGINT: a daemon started in the background by a script hands its children
        SIGINT ignored, and the stop would always wait ``STOP_WAIT`` and then kill.
        """
        process = self._process
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
