"""sleuth: local, offline code search."""

from .api import Index, IndexReport
from .errors import IndexBusy, IndexCorrupt, PathError, QueryError, SleuthError
from .results import Result, SearchResponse

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
