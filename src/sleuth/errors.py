"""Errors the surfaces turn into one clear line and a non-zero exit."""


class SleuthError(Exception):
    """Base of every error sleuth reports to a user instead of a traceback."""


class PathError(SleuthError):
    """The given path does not exist, is not a directory, or cannot be read."""


class QueryError(SleuthError):
    """The query is empty or carries nothing searchable."""


class IndexCorrupt(SleuthError):
    """A store under .sleuth/ cannot be opened; `sleuth index --full` rebuilds it."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"the index is damaged ({detail}); run `sleuth index --full` to rebuild it"
        )


class IndexBusy(SleuthError):
    """Another process holds the write lock for too long."""
