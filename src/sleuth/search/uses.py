"""Where a name is used: the chunks that call it or name it, as written.

BM25 answers "where is parse_config called" badly: the definition says the name most,
and a call inside a long function sinks by length. A question about uses is a question
of presence, so each candidate is scored by how it holds the name: a call, another
mention, or only a word of it (``_classify`` for ``classify``: not a use).
"""

from __future__ import annotations

import re

from ..tokens import last_part
from .rank import COMMENT_LINE

#: Scores of a chunk that calls the name, or names it otherwise (an import, a
#: reference passed as a value).
CALL = 1.0
MENTION = 0.5


def use_scores(name: str, texts: dict[int, str]) -> dict[int, float]:
    """chunk id -> score, for the chunks whose text holds the name as a whole word: in
    its own case when any chunk does, else in any case (a name typed in lower case).
    Empty when no chunk holds it at all."""
    word = re.escape(last_part(name))
    texts = {chunk_id: _code(text) for chunk_id, text in texts.items()}
    for flags in (0, re.I):
        mention = re.compile(rf"(?<![\w$]){word}(?![\w$])", flags)
        call = re.compile(rf"(?<![\w$]){word}\s*\(", flags)
        scores = {
            chunk_id: CALL if call.search(text) else MENTION
            for chunk_id, text in texts.items()
            if mention.search(text)
        }
        if scores:
            return scores
    return {}


def _code(text: str) -> str:
    """The text without its comment lines: a comment that names a function is no use."""
    return "\n".join(line for line in text.split("\n") if not COMMENT_LINE.match(line))
