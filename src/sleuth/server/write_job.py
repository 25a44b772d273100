"""Index runs asked for over HTTP, in a child process at a lower priority.

A run inside the daemon would share its interpreter lock with every search: re-chunking,
hashing and the stores' writes are Python work, and readers waited for them (measured in
docs/benchmarks.md). A child process only competes for a core, at nice 10, and the file
lock still keeps one writer. The reply is the same dictionary ``service.reindex`` builds.

    python -m sleuth.server.write_job '{"root": ..., "embed": ..., "path_glob": ..., "full": ...}'
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..errors import SleuthError

#: Niceness of the child that runs an index run.
WRITER_NICE = 10


def run_in_child(root: Path, embed: str, path_glob: str | None, full: bool) -> dict[str, Any]:
    """Run one index run in a child process; its report, or its error raised here
    (a SleuthError the child reported, or RuntimeError when it gave no report)."""
    job = {"root": str(root), "embed": embed, "path_glob": path_glob, "full": full}
    done = subprocess.run(
        [sys.executable, "-m", "sleuth.server.write_job", json.dumps(job)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    try:
        reply = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        reply = {}
    if done.returncode == 0 and "error" not in reply:
        return reply
    if "error" in reply:
        raise _error_class(reply.get("type", ""))(reply["error"])
    # no report at all: the child crashed or was killed, a server fault (500), not a bad
    # request; the index stays as its last commit left it and the next run completes it
    tail = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
    raise RuntimeError(f"the index run stopped: {tail[0]}")


def _error_class(name: str) -> type[SleuthError]:
    """The error a child reported, by name, so the daemon answers with its HTTP status."""
    kinds = {kind.__name__: kind for kind in SleuthError.__subclasses__()}
    return kinds.get(name, SleuthError)


def main(argv: list[str]) -> int:
    with contextlib.suppress(AttributeError, OSError):
        os.nice(WRITER_NICE)
    from ..api import Index
    from ..service import run_reindex

    job = json.loads(argv[0])
    index = Index(Path(job["root"]))
    try:
        print(json.dumps(run_reindex(index, job["embed"], job["path_glob"], job["full"])))
        return 0
    except SleuthError as exc:
        print(json.dumps({"error": str(exc), "type": type(exc).__name__}))
        return 1
    finally:
        index.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
