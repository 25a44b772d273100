"""What a history search returns: the stable shapes behind `sleuth history --json`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(slots=True)
class Hunk:
    path: str
    header: str  # the "@@ -a,b +c,d @@ context" line
    text: str  # the hunk's lines, bounded


@dataclass(slots=True)
class CommitResult:
    sha: str
    date: str  # author date, ISO 8601 with the author's offset
    author: str
    email: str
    subject: str
    files: list[str]
    score: float
    body: str = ""
    parents: list[str] = field(default_factory=list)
    #: Only with --diff: the hunks that match the query best.
    hunks: list[Hunk] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(slots=True)
class HistoryResponse:
    query: str
    mode: str  # the mode actually used: hybrid | lexical | semantic
    query_class: str = ""
    embedded_fraction: float = 0.0
    commits_indexed: int = 0
    reason: str = ""
    notices: list[str] = field(default_factory=list)
    results: list[CommitResult] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "mode": self.mode,
            "query_class": self.query_class,
            "embedded_fraction": round(self.embedded_fraction, 4),
            "commits_indexed": self.commits_indexed,
            "reason": self.reason,
            "notices": list(self.notices),
            "results": [r.to_dict() for r in self.results],
        }
