"""Run the sleuth CLI and SIGKILL it at a named point of a write (the crash tests).

    python -m tests.killer POINT N sleuth-args...

kills the process at the N-th time it reaches POINT. Points:

- ``batch``: a batch of files is written into the open unit (SQLite transaction open,
  tantivy documents added, neither committed);
- ``lexical-commit``: while tantivy commits (a thread kills a few ms into it);
- ``between-commits``: tantivy has committed, SQLite not yet;
- ``merging``: both have committed, tantivy's segment merges still run (``settle``);
- ``embed``: a batch of vectors is written, its SQLite transaction not committed;
- ``publish``: the vectors temp file is written, not yet renamed over vectors.npy.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def install(point: str, nth: int) -> None:
    from sleuth.indexer import Indexer
    from sleuth.store import vectors
    from sleuth.store.lexical import LexicalStore
    from sleuth.store.meta import MetaStore

    calls = 0

    def reached() -> bool:
        nonlocal calls
        calls += 1
        return calls == nth

    if point == "batch":
        original_batch = Indexer._write_batch

        def write_batch(self, *args, **kwargs):
            result = original_batch(self, *args, **kwargs)
            if reached():
                _die()
            return result

        Indexer._write_batch = write_batch
    elif point in ("lexical-commit", "between-commits"):
        original_commit = LexicalStore.commit

        def commit(self, *args, **kwargs):
            hit = reached()
            if hit and point == "lexical-commit":
                threading.Thread(target=lambda: (time.sleep(0.003), _die()), daemon=True).start()
            original_commit(self, *args, **kwargs)
            if hit:
                _die()

        LexicalStore.commit = commit
    elif point == "merging":
        original_settle = LexicalStore.settle

        def settle(self):
            merging = self._merging is not None
            if merging and reached():
                threading.Thread(target=lambda: (time.sleep(0.002), _die()), daemon=True).start()
            original_settle(self)

        LexicalStore.settle = settle
    elif point == "embed":
        original_put = MetaStore.put_embeddings

        def put_embeddings(self, *args, **kwargs):
            original_put(self, *args, **kwargs)
            if reached():
                _die()

        MetaStore.put_embeddings = put_embeddings
    elif point == "publish":

        def atomic_write(path, suffix, write):
            import tempfile

            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".vectors-", suffix=suffix)
            os.close(fd)
            write(temp)
            if reached():
                _die()
            os.replace(temp, path)

        vectors._atomic_write = atomic_write
    else:
        raise SystemExit(f"unknown point {point}")


def main(argv: list[str]) -> None:
    install(argv[0], int(argv[1]))
    from sleuth.cli.main import app

    app(argv[2:], prog_name="sleuth")


if __name__ == "__main__":
    main(sys.argv[1:])
