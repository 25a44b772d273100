"""Handles: compact references to code that an agent can expand later, and token budgets.

A search answer made of handles costs a few dozen tokens per hit; the agent expands
only the hits it needs. A handle id is ``<chunk id>:<start>-<end>@<generation>``, e.g.
``812:5-12@3``: chunk ids are never reused and a changed file gets new chunks, so a
handle whose chunk is gone points at code that changed since it was issued (stale).
The generation is the index run that issued it, for messages.

Token estimate, used for every budget and in the benchmark: ``ceil(characters / 4)``.
It is the usual rule of thumb for English and code with BPE tokenizers and errs on the
high side for code with long identifiers; a budget is an upper bound, not an exact count.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

#: No reply is larger than this, whatever the arguments.
MAX_REPLY_TOKENS = 20_000
#: Characters of the one-line preview in a handle.
PREVIEW_CHARS = 100

#: Digits of the largest number a handle or a line may carry (ids are 64-bit integers).
MAX_DIGITS = 18
#: Targets one expand reads at most, and the longest target (handle id or path[:lines]).
MAX_TARGETS = 50
MAX_TARGET_CHARS = 5000
_HANDLE = re.compile(r"^\s*(\d+)(?::(\d+)-(\d+))?(?:@(\d+))?\s*$")
_LOCATION = re.compile(r"^(.+?)(?::(\d+)(?:-(\d+))?)?$")


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` by the documented estimate: characters / 4, rounded up."""
    return math.ceil(len(text) / 4)


@dataclass(slots=True)
class Handle:
    chunk_id: int
    start_line: int
    end_line: int
    generation: int
    path: str
    symbol: str
    kind: str
    language: str = ""
    preview: str = ""
    score: float = 0.0
    #: Other matching chunks of the file, as ``start-end symbol`` (``Result.also``): an
    #: agent expands ``path:start-end`` to read one.
    also: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.chunk_id}:{self.start_line}-{self.end_line}@{self.generation}"

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def to_dict(self) -> dict:
        """The compact form sent to agents (about 100 bytes)."""
        out = {"id": self.id, "path": self.path}
        if self.symbol:
            out["symbol"] = self.symbol
        out["kind"] = self.kind
        if self.preview:
            out["preview"] = self.preview
        if self.also:
            out["also"] = self.also
        return out


def one_line(preview: str, signature: str = "") -> str:
    """The signature, else the first non-blank preview line, cut to PREVIEW_CHARS."""
    text = signature.strip() or next(
        (line.strip() for line in preview.split("\n") if line.strip()), ""
    )
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class HandleRef:
    """A parsed handle id; range and generation are optional (a bare chunk id works)."""

    chunk_id: int
    start_line: int | None = None
    end_line: int | None = None
    generation: int | None = None


@dataclass(frozen=True, slots=True)
class LocationRef:
    """``path``, ``path:line`` or ``path:start-end``, relative to the repository root."""

    path: str
    start_line: int | None = None
    end_line: int | None = None


def parse_target(text: str) -> HandleRef | LocationRef:
    """A handle id (digits first) or a ``path[:line[-end]]`` location."""
    text = text.strip()
    match = _HANDLE.match(text)
    if match:
        chunk, start, end, generation = _numbers(text, match.groups())
        return HandleRef(
            int(chunk),
            int(start) if start else None,
            int(end) if end else None,
            int(generation) if generation else None,
        )
    match = _LOCATION.match(text)
    if not match or not match.group(1).strip() or "\x00" in text:
        raise ValueError(f"not a handle id or path[:line]: {_shown(text)}")
    path, start, end = match.group(1), *_numbers(text, match.groups()[1:])
    return LocationRef(path.strip(), int(start) if start else None, int(end) if end else None)


def _numbers(text: str, groups: tuple[str | None, ...]) -> tuple[str | None, ...]:
    """The numbers of a target, refused when too long for the 64-bit integers of the
    index (Python itself refuses to read 4,300 digits)."""
    if any(number and len(number) > MAX_DIGITS for number in groups):
        raise ValueError(f"not a handle id or path[:line]: {_shown(text)} (a number too large)")
    return groups


#: Characters of a bad target quoted back in an error.
SHOWN_CHARS = 80


def _shown(text: str) -> str:
    """``text`` quoted for an error message, cut to SHOWN_CHARS."""
    return repr(text[:SHOWN_CHARS]) + (" ..." if len(text) > SHOWN_CHARS else "")


@dataclass
class Expansion:
    """The code behind a handle or location, as it is on disk now."""

    target: str
    status: str  # fresh | stale
    path: str
    start_line: int = 0
    end_line: int = 0
    symbol: str = ""
    kind: str = ""
    #: Lines shown, from ``first_line`` (context lines included).
    lines: list[str] = field(default_factory=list)
    first_line: int = 0
    handle: Handle | None = None
    #: Why the answer is stale, or other things to know.
    message: str = ""
    #: Where the code is now, when a stale handle could be located again.
    fresh: Handle | None = None

    def render(self, max_tokens: int = MAX_REPLY_TOKENS) -> str:
        """Header line, then numbered lines; cut to ``max_tokens`` with a note."""
        if self.status != "fresh":
            parts = [f"== STALE {self.target}: {self.message}"]
            if self.fresh is not None:
                parts.append(
                    f"fresh location: {self.fresh.id} {self.fresh.location}"
                    f" {self.fresh.kind} {self.fresh.symbol}".rstrip()
                )
            else:
                parts.append("no fresh location found: search again")
            return "\n".join(parts)
        label = " ".join(x for x in (self.symbol, f"({self.kind})" if self.kind else "") if x)
        ident = f" [{self.handle.id}]" if self.handle else ""
        head = f"== {self.path}:{self.start_line}-{self.end_line} {label}{ident}".rstrip()
        if self.message:
            head += f"\n-- {self.message}"
        width = len(str(self.first_line + max(len(self.lines) - 1, 0)))
        budget_chars = max_tokens * 4 - len(head) - 160  # room for the cut note
        out = [head]
        used = 0
        for offset, line in enumerate(self.lines):
            numbered = f"{self.first_line + offset:>{width}}  {line}"
            used += len(numbered) + 1
            if used > budget_chars:
                left = len(self.lines) - offset
                out.append(
                    f"-- cut: {left} more lines (to {self.first_line + len(self.lines) - 1}); "
                    "expand a narrower range (path:start-end) or raise max_tokens"
                )
                break
            out.append(numbered)
        return "\n".join(out)
