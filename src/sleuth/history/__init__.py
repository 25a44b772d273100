"""Search over git history: commits indexed with their message, paths and a diff digest."""

from __future__ import annotations

from .gitlog import GitError
from .index import HistoryIndex, HistoryReport
from .results import CommitResult, HistoryResponse, Hunk

__all__ = ["CommitResult", "GitError", "HistoryIndex", "HistoryReport", "HistoryResponse", "Hunk"]
