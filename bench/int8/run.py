"""Run a `sleuth` command with the embedder loading another ONNX file of the same model.

``--model`` replaces the packaged file in this process; texts are embedded one per call
(an int8 product quantizes its input per call, so a batch would change each text's
vector). ``--stale`` marks every index under a folder (a copy of the bench caches,
never the originals) as built with another model, so its vectors are rebuilt. Only
in-process embedding sees the file: `bench`, `index --embed deep` (not a background
embedder process).

    python bench/int8/run.py --model /tmp/m.onnx --stale /tmp/copy -- bench --cache /tmp/copy
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path


def mark_stale(folder: Path) -> int:
    marked = 0
    for meta in folder.rglob(".sleuth/meta.db"):
        with sqlite3.connect(meta) as db:
            db.execute("UPDATE state SET value = 'another-model' WHERE key = 'embed_model'")
        marked += 1
    return marked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--stale", type=Path, help="folder of index copies to re-embed")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.stale:
        print(f"marked {mark_stale(args.stale)} indexes for new vectors", file=sys.stderr)
    from sleuth.embedding import minilm

    built = minilm.MiniLMEmbedder.__init__

    def init(self, *positional, **named) -> None:
        built(self, *positional, **named)
        self._model_path = str(args.model)
        self.batch_size = 1

    minilm.MiniLMEmbedder.__init__ = init
    from sleuth.cli import run

    sys.argv = ["sleuth", *[part for part in args.command if part != "--"]]
    run()


if __name__ == "__main__":
    main()
