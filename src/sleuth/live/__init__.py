"""Live index: follow file changes as they happen (``Watcher``)."""

from .watcher import WatchBatch, Watcher

__all__ = ["WatchBatch", "Watcher"]
