"""A compact, bounded summary of one commit's diff.

The digest keeps what says what a change was about: per file, the hunk headers (git
puts the enclosing function or class there) and the first changed lines; plus the
identifiers of added and removed lines. Every part has a cap, so a commit that rewrites
10,000 files costs as much to store and embed as one that touches three. The lines of a
secret file (by name, or a private key in a file that is not code) are left out: the
history must not hold what the code index never reads.
"""

from __future__ import annotations

import re

from ..discover import holds_key, sensitive
from ..languages import language_for

#: Caps on the digest text and on the work spent on one commit.
MAX_DIGEST_CHARS = 1_200
MAX_FILES_SHOWN = 8
MAX_HUNKS_PER_FILE = 3
MAX_LINES_PER_HUNK = 3
LINE_CHARS = 100
MAX_SCANNED_LINES = 2_000
MAX_IDENTIFIERS = 200

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


class DigestBuilder:
    """Fed by the log parser as lines stream past; ``result()`` gives the summary."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._chars = 0
        self._files = 0
        self._hunks_in_file = 0
        self._lines_in_hunk = 0
        self._scanned = 0
        self._show_file = False
        self._secret = False
        self._language = "text"
        self._added: dict[str, None] = {}
        self._removed: dict[str, None] = {}

    def _emit(self, text: str) -> bool:
        if self._chars + len(text) + 1 > MAX_DIGEST_CHARS:
            return False
        self._parts.append(text)
        self._chars += len(text) + 1
        return True

    def file(self, path: str) -> None:
        self._files += 1
        self._hunks_in_file = 0
        self._secret = sensitive(path)
        self._language = language_for(path)
        self._show_file = self._files <= MAX_FILES_SHOWN and self._emit(path)

    def hunk(self, header: str) -> None:
        self._hunks_in_file += 1
        self._lines_in_hunk = 0
        shown = self._show_file and not self._secret
        if shown and self._hunks_in_file <= MAX_HUNKS_PER_FILE and header.strip():
            self._emit("@@ " + header.strip()[:LINE_CHARS])

    def added(self, line: str) -> None:
        self._changed("+", line, self._added)

    def removed(self, line: str) -> None:
        self._changed("-", line, self._removed)

    def _changed(self, sign: str, line: str, names: dict[str, None]) -> None:
        if self._scanned >= MAX_SCANNED_LINES:
            return
        self._scanned += 1
        stripped = line.strip()
        if not stripped or self._secret:
            return
        if holds_key(stripped, self._language):
            self._secret = True  # the rest of this file is the key
            return
        if len(names) < MAX_IDENTIFIERS:
            for name in _IDENTIFIER.findall(stripped[:400]):
                names.setdefault(name, None)
        if (
            self._show_file
            and self._hunks_in_file <= MAX_HUNKS_PER_FILE
            and self._lines_in_hunk < MAX_LINES_PER_HUNK
        ):
            self._lines_in_hunk += 1
            self._emit(f"{sign} {stripped[:LINE_CHARS]}")

    def result(self) -> tuple[str, list[str], list[str]]:
        """(digest text, identifiers of added lines, identifiers of removed lines)."""
        return "\n".join(self._parts), list(self._added), list(self._removed)
