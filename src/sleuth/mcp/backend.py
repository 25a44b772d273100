"""Where an MCP tool's work happens: a running `sleuth serve` daemon of the same
repository when there is one (its indexes are hot and shared), else this process.

Both answer with the same dicts (``sleuth.service``), so a tool formats one shape.
The daemon is looked up on every call (a small file read and a pid check): one that
starts later is used from then on, one that stops is replaced by local work at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import QueryError
from .workspace import Workspace

if TYPE_CHECKING:  # http.client loads on the first call, not on the path to the tool list
    from ..server.client import DaemonClient


class Backend:
    def __init__(self, workspace: Workspace, use_daemon: bool = True) -> None:
        self.workspace = workspace
        self.use_daemon = use_daemon

    def daemon(self) -> DaemonClient | None:
        if not self.use_daemon:
            return None
        from ..server.client import DaemonClient

        return DaemonClient.find(self.workspace.root)

    def start_local(self) -> None:
        """Start the local first build, unless a daemon does the work."""
        if self.daemon() is None:
            self.workspace.start()

    def call(
        self,
        endpoint: str,
        body: dict[str, Any] | None,
        local: Callable[[], dict[str, Any]],
        timeout: float = 0.0,
        catch_up: bool = False,
    ) -> dict[str, Any]:
        """POST ``body`` to the daemon (GET when None); ``local()`` under the lock otherwise.

        With ``catch_up``, files changed since the last look are re-indexed here first,
        as before a local answer (``Workspace.catch_up``). A bad-argument answer (400,
        422) is raised as QueryError; any other trouble with the daemon means local work.
        """
        client = self.daemon()
        if client is not None:
            from ..server.client import DaemonError, DaemonUnavailable

            try:
                if body is None:
                    return client.get(endpoint, timeout=timeout or 30.0, repo=str(client.root))
                freshness = self.workspace.catch_up() if catch_up else "fresh"
                return _noted(client.post(endpoint, body, timeout=timeout), freshness)
            except DaemonUnavailable:
                pass
            except DaemonError as exc:
                if exc.status in (400, 422):
                    raise QueryError(str(exc)) from None
        with self.workspace.lock:
            return local()


def _noted(data: dict[str, Any], freshness: str) -> dict[str, Any]:
    """The daemon's answer, its index state amended by the check made here."""
    state = data.get("index")
    if not isinstance(state, dict) or freshness == "fresh":
        return data
    if freshness == "stale":
        note = "files changed, but another process is writing the index: re-indexed soon"
        state = {**state, "state": "stale", "note": note}
    else:
        note = ("changed files were re-indexed. " + state.get("note", "")).strip()
        state = {**state, "note": note}
    return {**data, "index": state}
