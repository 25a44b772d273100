"""The write pipeline: discover, diff against SQLite, chunk, write SQLite + tantivy.

Work is committed in batches of files. SQLite commits first with ``lexical_dirty`` set;
tantivy commits next and the flag is cleared. A crash between the two leaves the flag
set, and the next run rebuilds tantivy from SQLite: nothing finished is lost.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import config
from .chunking import Chunk, chunk_text
from .discover import FoundFile, Skipped, content_skip_reason, walk
from .languages import language_for
from .store.lexical import LexicalStore
from .store.meta import ChunkRow, MetaStore

#: progress(phase, done, total, note): phases are "scan", "index", "embed"; the note
#: says what else grew (e.g. "1,204 chunks").
Progress = Callable[..., None]


def _quiet(phase: str, done: int, total: int, note: str = "") -> None:
    return None


@dataclass
class UpdateReport:
    scanned: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    chunks_written: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    lexical_rebuilt: bool = False


def content_hash(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8", errors="surrogatepass")
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def embed_text(path: str, chunk: Chunk | ChunkRow) -> str:
    """What the model sees: path, parent, signature, then the body (cut at 128 tokens)."""
    header = [path]
    if chunk.parent:
        header.append(f"in {chunk.parent}")
    body = chunk.text.strip("\n")
    first = body.lstrip().split("\n", 1)[0].strip()
    if chunk.signature and chunk.signature != first:
        header.append(chunk.signature)
    return "\n".join([*header, body])


def decode(data: bytes) -> str | None:
    """UTF-8 text with bad bytes replaced; None when it is mostly not text."""
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") > max(8, len(text) // 100):
        return None
    return text.replace("\r\n", "\n")


class Indexer:
    def __init__(self, root: Path, meta: MetaStore, lexical: LexicalStore) -> None:
        self.root = root
        self.meta = meta
        self.lexical = lexical

    def update(self, progress: Progress = _quiet, full: bool = False) -> UpdateReport:
        report = UpdateReport()
        if full:
            self.lexical.clear()
            self.lexical.commit()
        elif self.meta.get("lexical_dirty") == "1":
            report.lexical_rebuilt = True
            self._rebuild_lexical()
        known = self.meta.files()
        found: list[FoundFile] = []
        skipped: list[tuple[str, str]] = []
        progress("scan", 0, 0)
        for item in walk(self.root):
            if isinstance(item, Skipped):
                skipped.append((item.path, item.reason))
            else:
                found.append(item)
                if len(found) % 500 == 0:
                    progress("scan", len(found), 0)
        report.scanned = len(found)
        progress("scan", len(found), len(found))

        present = {f.path for f in found}
        gone = [row.id for path, row in known.items() if path not in present]
        if gone:
            with self.meta.transaction():
                self.meta.set("lexical_dirty", 1)
                self.meta.delete_files(gone)
            for file_id in gone:
                self.lexical.delete_file(file_id)
            self.lexical.commit()
            self.meta.set("lexical_dirty", 0)
        report.removed = len(gone)

        todo = []
        for item in found:
            row = known.get(item.path)
            if full or row is None or row.size != item.size or row.mtime_ns != item.mtime_ns:
                todo.append(item)
        report.unchanged = len(found) - len(todo)
        progress("index", 0, len(todo))
        for begin in range(0, len(todo), config.INDEX_BATCH_FILES):
            batch = todo[begin : begin + config.INDEX_BATCH_FILES]
            changed, written = self._index_batch(batch, known, full)
            report.changed += changed
            report.chunks_written += written
            progress("index", begin + len(batch), len(todo), f"{report.chunks_written:,} chunks")
        with self.meta.transaction():
            self.meta.replace_skipped(skipped)
        for _, reason in skipped:
            report.skipped[reason] = report.skipped.get(reason, 0) + 1
        return report

    def _index_batch(self, batch: list[FoundFile], known: dict, full: bool) -> tuple[int, int]:
        prepared = []
        for item in batch:
            prepared.append((item, *self._read(item)))
        changed = written = 0
        with self.meta.transaction():
            self.meta.set("lexical_dirty", 1)
            lexical_ops: list[tuple[int, str, list[tuple[int, Chunk]]]] = []
            for item, file_hash, language, reason, text in prepared:
                row = known.get(item.path)
                if (
                    row is not None
                    and not full
                    and row.hash == file_hash
                    and reason is None
                    and row.skip_reason is None
                ):
                    self.meta.touch_file(row.id, item.size, item.mtime_ns)
                    continue
                changed += 1
                file_id = self.meta.upsert_file(
                    item.path, item.size, item.mtime_ns, file_hash, language, reason
                )
                if reason is not None or text is None:
                    self.meta.replace_chunks(file_id, [], [], [])
                    lexical_ops.append((file_id, item.path, []))
                    continue
                chunks, definitions = chunk_text(language, text)
                hashes = [content_hash(embed_text(item.path, c)) for c in chunks]
                ids = self.meta.replace_chunks(file_id, chunks, hashes, definitions)
                lexical_ops.append((file_id, item.path, list(zip(ids, chunks, strict=True))))
                written += len(chunks)
        for file_id, path, entries in lexical_ops:
            self.lexical.delete_file(file_id)
            for chunk_id, chunk in entries:
                self.lexical.add(chunk_id, file_id, path, chunk.text, chunk.symbols)
        self.lexical.commit()
        self.meta.set("lexical_dirty", 0)
        return changed, written

    def _read(self, item: FoundFile) -> tuple[str | None, str | None, str | None, str | None]:
        """(file hash, language, skip reason, text) for one file."""
        try:
            with open(os.path.join(self.root, item.path), "rb") as handle:
                data = handle.read(config.MAX_FILE_BYTES + 1)
        except OSError:
            return None, None, "unreadable", None
        if len(data) > config.MAX_FILE_BYTES:
            return None, None, "too_large", None
        file_hash = content_hash(data)
        reason = content_skip_reason(data)
        if reason:
            return file_hash, None, reason, None
        text = decode(data)
        if text is None:
            return file_hash, None, "binary", None
        return file_hash, language_for(item.path), None, text

    def _rebuild_lexical(self) -> None:
        """Recreate tantivy from SQLite: the way out of any disagreement between them."""
        self.lexical.clear()
        file_ids = dict(self.meta.db.execute("SELECT path, id FROM files").fetchall())
        for row in self.meta.iter_chunks():
            self.lexical.add(row.id, file_ids[row.path], row.path, row.text, row.symbols.split())
        self.lexical.commit()
        self.meta.set("lexical_dirty", 0)
