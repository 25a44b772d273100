"""sleuth: local, offline code search.

Exports load lazily, so worker processes that only chunk files do not pay for the
stores and the model runtime.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import Index, IndexReport
    from .errors import IndexBusy, IndexCorrupt, PathError, QueryError, SleuthError
    from .results import Result, SearchResponse

_EXPORTS = {
    "Index": "api",
    "IndexReport": "api",
    "IndexBusy": "errors",
    "IndexCorrupt": "errors",
    "PathError": "errors",
    "QueryError": "errors",
    "SleuthError": "errors",
    "Result": "results",
    "SearchResponse": "results",
}
__all__ = [
    "Index",
    "IndexBusy",
    "IndexCorrupt",
    "IndexReport",
    "PathError",
    "QueryError",
    "Result",
    "SearchResponse",
    "SleuthError",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sleuth' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
