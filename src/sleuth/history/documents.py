"""What the model and the lexical index see of a commit.

The embedded text leads with the message, then the changed paths, then the diff
digest: the model reads the first 128 tokens, and the message says *why* best.
"""

from __future__ import annotations

from ..prepare import LexicalFields, content_hash
from ..tokens import code_terms, path_terms
from .gitlog import CommitRecord
from .store import CommitRow

MAX_BODY_CHARS = 600
MAX_PATHS_EMBEDDED = 8
MAX_PATHS_INDEXED = 300


def embed_text(subject: str, body: str, paths: list[str], digest: str) -> str:
    parts = [subject]
    if body:
        parts.append(body[:MAX_BODY_CHARS])
    if paths:
        shown = paths[:MAX_PATHS_EMBEDDED]
        more = f" (+{len(paths) - len(shown)} more)" if len(paths) > len(shown) else ""
        parts.append("files: " + ", ".join(shown) + more)
    if digest:
        parts.append(digest)
    return "\n".join(parts)


def record_hash(record: CommitRecord) -> str:
    """Key of the commit's vector in the embedding cache."""
    paths = [f.path for f in record.files]
    return content_hash(embed_text(record.subject, record.body, paths, record.digest))


def row_embed_text(row: CommitRow) -> str:
    return embed_text(row.subject, row.body, row.paths, row.digest)


def lexical_fields(row: CommitRow) -> LexicalFields:
    """body: message, digest and changed identifiers; symbol: the subject; path: paths."""
    body = " ".join(
        [
            *code_terms(row.subject),
            *code_terms(row.body),
            *code_terms(row.digest),
            *code_terms(" ".join(row.added_ids)),
            *code_terms(" ".join(row.removed_ids)),
            *code_terms(row.author_name),
        ]
    )
    names: list[str] = []
    for change in row.files[:MAX_PATHS_INDEXED]:
        names.append(change.path)
        if change.old_path:
            names.append(change.old_path)
    return LexicalFields(
        body, " ".join(code_terms(row.subject)), " ".join(path_terms(p) for p in names)
    )
