"""Architecture decision records: docs that say *why*, marked so they can be asked for.

An ADR is a document under a decisions folder (``doc/adr``, ``docs/decisions``,
``docs/architecture/decisions``, ...), a numbered document such as
``0007-use-sqlite.md``, or a decision log (``decisions.md``, ``adr.md``). Its chunks get
kind ``adr``, so ``--kind adr`` finds them; they stay in the ``docs`` category.
"""

from __future__ import annotations

import re

from ..languages import DOC_LANGUAGES
from .base import Chunk

_ADR_FOLDER = re.compile(
    r"(^|/)(adrs?|decisions|decision[-_]records?|architecture[-_]decisions?)/", re.IGNORECASE
)
_NUMBERED = re.compile(r"(^|/)(adr[-_]?)?\d{3,5}[-_][^/]+$", re.IGNORECASE)
_DECISION_LOG = re.compile(r"(^|/)(adrs?|decisions|decision[-_]log)\.[a-z]+$", re.IGNORECASE)

KIND = "adr"


def is_adr(path: str, language: str) -> bool:
    if language not in DOC_LANGUAGES:
        return False
    return bool(_ADR_FOLDER.search(path) or _NUMBERED.search(path) or _DECISION_LOG.search(path))


def mark_adr(chunks: list[Chunk]) -> None:
    for chunk in chunks:
        chunk.kind = KIND
