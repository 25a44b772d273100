"""Entry point of the detached embedder: ``python -m sleuth.background ROOT MODEL``.

Holds .sleuth/embed.lock while it runs, so at most one embeds per repository; the
kernel frees the lock if it dies, and the next one resumes from SQLite.
"""

from __future__ import annotations

import sys

from . import config
from .api import Index


def main(argv: list[str]) -> int:
    root, model_id = argv[0], argv[1]
    Index(root, model_id=model_id).embed(lock_timeout=config.EMBEDDER_LOCK_WAIT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
