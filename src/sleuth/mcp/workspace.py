"""One repository as the MCP server sees it: a first build in the background, a cheap
freshness check before every answer, and one lock around the index.

Kept free of heavy imports: ``sleuth.api`` (numpy, tantivy, usearch) loads in the
background build thread, so the server lists its tools before any of it is needed.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SleuthError
from ..freshness import ChangeDetector

if TYPE_CHECKING:
    from ..api import Index


#: Seconds a reply waits for a running first build before answering from what is done.
FIRST_ANSWER_WAIT = 5.0
#: Seconds the check before a daemon's answer waits for another writer: most often the
#: daemon's own watcher, applying the same save.
CATCH_UP_WAIT = 2.0


class Workspace:
    #: Seconds a freshness check waits for another process's index run before it
    #: answers ``stale``; the daemon waits none (it holds the readers' lock meanwhile).
    refresh_wait = 0.3

    def __init__(self, root: Path, embed: str = "background") -> None:
        self.root = root
        self.embed = embed
        self.detector = ChangeDetector(root)
        self.lock = threading.RLock()
        self._index: Index | None = None
        self._build: threading.Thread | None = None
        self._build_error: str = ""
        #: An answer has waited for the first build once (``prepare``).
        self._waited = False

    @property
    def embeds(self) -> bool:
        """Whether this server computes vectors (``--embed none`` computes none)."""
        return self.embed != "none"

    # -- the first build ----------------------------------------------------------------
    def start(self, delay: float = 0.0) -> None:
        """Start the first index run (new and changed files) in a background thread.

        With ``delay``, a timer starts it later unless something starts it sooner: the
        server starts it as soon as the tool list is sent, so loading the search stack
        does not compete with the first reply for the interpreter.
        """
        if delay > 0:
            timer = threading.Timer(delay, self.start)
            timer.daemon = True
            timer.start()
            return
        with self.lock:
            if self._build is None:
                self._build = threading.Thread(target=self._first_build, daemon=True)
                self._build.start()

    def _first_build(self) -> None:
        from ..api import Index

        builder = Index(self.root)
        try:
            if builder.exists() or not self.embeds:
                builder.refresh(lock_timeout=600.0, detector=self.detector, embed=self.embed)
            else:
                self._build_new(builder)
        except SleuthError as exc:
            self._build_error = str(exc)
        except Exception as exc:  # a failed build must not take the server down
            self._build_error = f"unexpected {type(exc).__name__}: {exc}"
        finally:
            builder.close()
        if self.embed != "none" and not self._build_error:
            warm = threading.Thread(target=self._warm_model, daemon=True, name="sleuth-warm")
            warm.start()

    def _build_new(self, builder: Index) -> None:
        """A new index as the command line builds one: words first, then the static
        tier when it takes a couple of seconds at most, so that the first answers rank
        by meaning as well; the model's vectors follow in a background process."""
        builder.refresh(lock_timeout=600.0, detector=self.detector, embed="none")
        pending = builder.pending()
        if pending:
            builder.embed_static_if_quick(pending)
            builder.start_background_embedding()

    def _warm_model(self) -> None:
        """Load the model once the index is ready, when searches will use it: the first
        question in words then does not wait for it (a reply does not wait for this)."""
        from ..api import Index

        index = Index(self.root)
        try:
            index.warm_model()  # one model per process: the answering index finds it
        except Exception:
            pass  # the first search that needs the model loads it, and says what failed
        finally:
            index.close()

    @property
    def building(self) -> bool:
        return self._build is not None and self._build.is_alive()

    def catch_up(self) -> str:
        """The freshness check, before a daemon answers for this server: the daemon's
        watcher applies a save some tenths of a second after it, and an agent searches
        right after editing. ``Index.refresh``'s answer: fresh, refreshed or stale."""
        with self.lock:
            try:
                return self.index.refresh(
                    lock_timeout=CATCH_UP_WAIT, detector=self.detector, embed=self.embed
                )
            except SleuthError:
                return "stale"

    # -- answering ----------------------------------------------------------------------
    @property
    def index(self) -> Index:
        if self._index is None:
            from ..api import Index

            self._index = Index(self.root)
        return self._index

    def prepare(self, wait: float = FIRST_ANSWER_WAIT) -> dict[str, Any]:
        """Refresh changed files when possible; the index state every reply carries.

        While the first build runs, the first answer waits up to ``wait`` seconds for
        it: a small repository then gets a complete first answer, a large one a partial
        answer soon. Later answers do not wait: they answer from what is done.
        """
        self.start()
        if self.building and wait > 0 and not self._waited:
            assert self._build is not None
            self._waited = True
            self._build.join(wait)
        if self.building:
            state = {
                "state": "building",
                "note": "the first index run is in progress: answers cover the files done so far",
            }
            if self.index.exists():
                state["generation"] = self.index.generation()
            return state
        freshness = "fresh"
        try:
            freshness = self.index.refresh(
                lock_timeout=self.refresh_wait, detector=self.detector, embed=self.embed
            )
        except SleuthError as exc:
            return {"state": "stale", "note": f"could not refresh the index: {exc}"}
        state = self.index.index_state(freshness, embeds=self.embeds)
        if freshness == "refreshed":
            state["note"] = ("changed files were re-indexed. " + state.get("note", "")).strip()
        if self._build_error:
            state["note"] = state.get("note", "") + f" first build failed: {self._build_error}"
        return state
