"""Entry point of the detached commit embedder: ``python -m sleuth.history.background``.

Holds .sleuth/history-embed.lock while it runs; the next one resumes from history.db.
"""

from __future__ import annotations

import sys

from .. import config
from .index import HistoryIndex


def main(argv: list[str]) -> int:
    root, model_id = argv[0], argv[1]
    HistoryIndex(root, model_id=model_id).embed(lock_timeout=config.EMBEDDER_LOCK_WAIT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
