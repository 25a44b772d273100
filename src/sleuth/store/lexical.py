"""tantivy index over chunks: code-split body, symbol names and path words, BM25-ranked.

Documents carry only ids; text and metadata come from SQLite. The index is derived:
when it is missing, damaged or behind SQLite it is rebuilt from there.

One extra document, the commit mark (``file_id`` -1, no text), carries the number of
the SQLite commit this tantivy commit belongs to. The indexer commits both stores in
step (tantivy first, inside the open SQLite transaction), so a reader that finds the
mark equal to SQLite's ``lexical_commit`` sees one generation in both; a mark ahead of
SQLite after a crash means tantivy holds work SQLite rolled back, and is rebuilt.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import string
from pathlib import Path

import tantivy

from ..prepare import LexicalFields
from ..tokens import split_identifier

#: ``file_id`` of the commit-mark document.
MARK_FILE_ID = -1

#: Field weights: a symbol-name hit says more than a body hit; a path word a bit more.
FIELD_BOOSTS = {"body": 1.0, "symbol": 3.0, "path": 1.5}
#: The ``en_stem`` tokenizer drops tokens of this many bytes or more, when indexing and
#: when parsing a query; a query of only such terms would parse to no clause at all.
TOKEN_BYTES_LIMIT = 40


def _is_hex(text: str) -> bool:
    return all(c in string.hexdigits for c in text)


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("chunk_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("file_id", stored=False, indexed=True, fast=True)
    for name in FIELD_BOOSTS:
        builder.add_text_field(name, stored=False, tokenizer_name="en_stem")
    return builder.build()


class LexicalStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.schema = _schema()
        directory.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(directory))
        self._writer: tantivy.IndexWriter | None = None
        #: A committed writer whose segment merges may still run (see ``commit``).
        self._merging: tantivy.IndexWriter | None = None

    @classmethod
    def open_or_reset(cls, directory: Path) -> tuple[LexicalStore, bool]:
        """Open; on any error wipe and recreate. The bool says whether it was reset."""
        try:
            return cls(directory), False
        except (ValueError, OSError):
            shutil.rmtree(directory, ignore_errors=True)
            return cls(directory), True

    @property
    def writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self.settle()  # one writer per index: the last one's merges end first
            self._writer = self.index.writer(heap_size=64_000_000, num_threads=1)
            self.remove_orphans()
        return self._writer

    def remove_orphans(self) -> int:
        """Delete segment files no commit refers to; returns how many.

        A process that ends right after its commit leaves the segments its merges
        replaced (and an index run killed mid-way, the segments it was writing) on disk,
        forgotten by tantivy's own clean-up: every index run of a live index would leave
        a copy behind. Called by the one writer (the file lock) when its tantivy writer
        opens, before it writes anything: the segments of the current commit, which
        readers may be opening, are kept; older ones stay readable by readers that have
        them open (POSIX keeps an unlinked file's data while it is mapped).
        """
        try:
            meta = json.loads((self.directory / "meta.json").read_text())
            live = {s["segment_id"].replace("-", "") for s in meta.get("segments", [])}
        except (OSError, ValueError, KeyError, AttributeError):
            return 0  # no readable commit: nothing can be told apart safely
        removed = 0
        for entry in self.directory.iterdir():
            segment = entry.name.split(".", 1)[0]
            if len(segment) != 32 or segment in live or not _is_hex(segment):
                continue
            with contextlib.suppress(OSError):
                entry.unlink()
                removed += 1
        return removed

    def add(self, chunk_id: int, file_id: int, fields: LexicalFields) -> None:
        self.writer.add_document(
            tantivy.Document(
                chunk_id=chunk_id,
                file_id=file_id,
                body=indexed_form(fields.body),
                symbol=indexed_form(fields.symbol),
                path=indexed_form(fields.path),
            )
        )

    def delete_file(self, file_id: int) -> None:
        self.writer.delete_documents_by_term("file_id", file_id)

    def set_mark(self, number: int) -> None:
        """Make the next commit carry ``number`` (SQLite's ``lexical_commit``)."""
        self.writer.delete_documents_by_term("file_id", MARK_FILE_ID)
        self.writer.add_document(tantivy.Document(chunk_id=number, file_id=MARK_FILE_ID))

    def mark(self, searcher: tantivy.Searcher | None = None) -> int:
        """The commit mark ``searcher`` (default: the last one loaded) sees; 0 if none."""
        searcher = searcher or self.index.searcher()
        query = tantivy.Query.term_query(self.schema, "file_id", MARK_FILE_ID)
        hits = searcher.search(query, 1).hits
        return int(searcher.doc(hits[0][1])["chunk_id"][0]) if hits else 0

    def clear(self) -> None:
        self.writer.delete_all_documents()

    def commit(self, settle: bool = True) -> None:
        """Make the writes visible. tantivy then merges segments in the background and
        publishes the merged set as a new commit of the same documents; ``settle``
        False leaves that to ``settle()``, so a caller can first commit what must follow
        this commit closely (the indexer's SQLite transaction: readers wait for the two
        to agree, and a merge takes a tenth of a second or more)."""
        if self._writer is not None:
            self._writer.commit()
            self._merging, self._writer = self._writer, None
        if settle:
            self.settle()
        self.index.reload()

    def settle(self) -> None:
        """Wait for the merges the last commit started."""
        if self._merging is not None:
            merging, self._merging = self._merging, None
            merging.wait_merging_threads()

    def rollback(self) -> None:
        if self._writer is not None:
            self._writer.rollback()
            self._writer = None

    def num_docs(self) -> int:
        """Documents, the commit mark not counted."""
        self.index.reload()
        searcher = self.index.searcher()
        return searcher.num_docs - (1 if self.mark(searcher) else 0)

    def query_of(
        self, terms: list[str], boosts: dict[str, float] = FIELD_BOOSTS
    ) -> tantivy.Query | None:
        """Any of the terms in any field, boosted per field (``boosts``); None when no
        term holds a token the index can hold (all too long)."""
        kept = [term for term in map(indexed_form, terms) if _holds_a_token(term)]
        if not kept:
            return None
        return self.index.parse_query(" ".join(kept), list(boosts), field_boosts=boosts)

    def occurs(self, term: str, begun: bool = False) -> bool:
        """Whether any chunk holds ``term`` in any field (the last commit loaded); with
        ``begun``, also a word that starts with it (``pars`` of ``parser``)."""
        searcher = self.index.searcher()
        query = self.query_of([term])
        if query is not None and searcher.search(query, 1).count > 0:
            return True
        lowered = term.lower().replace("_", "")  # (a prefix of a name's whole token)
        return begun and any(
            searcher.terms_with_prefix(name, lowered, limit=1) for name in FIELD_BOOSTS
        )

    def holding_whole(
        self, name: str, limit: int, searcher: tantivy.Searcher | None = None
    ) -> list[int]:
        """Chunks holding ``name`` whole (``parseConfig``, ``cmd_parse_from_file``), not
        only its words apart; none for a name of one word, which is its words."""
        if _NAME.fullmatch(name) is None or len(split_identifier(name)) < 2:
            return []
        token = name.lower().strip("_").replace("_", "")
        if not _holds_a_token(token):
            return []
        searcher = searcher or self.index.searcher()
        query = self.index.parse_query(token, list(FIELD_BOOSTS))
        return [
            chunk_id for chunk_id, _ in chunk_hits(searcher, searcher.search(query, limit).hits)
        ]

    def search(
        self,
        terms: list[str],
        limit: int,
        searcher: tantivy.Searcher | None = None,
        boosts: dict[str, float] = FIELD_BOOSTS,
    ) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) best first, for any of the terms in any field.

        ``searcher`` pins one commit (see ``mark``); default: the last one loaded.
        """
        query = self.query_of(terms, boosts)
        if query is None:
            return []
        searcher = searcher or self.index.searcher()
        return chunk_hits(searcher, searcher.search(query, limit).hits)


def indexed_form(terms: str) -> str:
    """Terms as the index holds them: a name written with underscores is also one
    token without them (``cmd_parse_from_file`` -> ``cmdparsefromfile``), as
    ``parseConfig`` is ``parseconfig``; the tokenizer splits at underscores, so the
    whole name would be lost and only its parts matched."""
    if "_" not in terms:
        return terms
    return _UNDERSCORED.sub(lambda name: f"{name.group()} {name.group().replace('_', '')}", terms)


_UNDERSCORED = re.compile(r"\S*?[^\s_]_+[^\s_]\S*")
#: One identifier, in any script.
_NAME = re.compile(r"[^\W\d]\w*")


def _holds_a_token(term: str) -> bool:
    """Whether the tokenizer keeps anything of ``term``: it splits at every character
    that is not a letter or digit (`create_app` is two tokens), then drops tokens of
    ``TOKEN_BYTES_LIMIT`` bytes or more."""
    return any(
        len(token.encode("utf-8")) < TOKEN_BYTES_LIMIT
        for token in "".join(c if c.isalnum() else " " for c in term).split()
    )


def chunk_hits(searcher: tantivy.Searcher, hits: list) -> list[tuple[int, float]]:
    """(chunk id, score) of search hits, ids read from the fast field: a stored-document
    fetch per hit cost more than the search itself."""
    ids = searcher.fast_field_values("chunk_id", [address for _, address in hits])
    return [(int(chunk_id), float(score)) for chunk_id, (score, _) in zip(ids, hits, strict=True)]
