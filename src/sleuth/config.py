"""Defaults in one place, so docs, CLI help and code agree."""

from __future__ import annotations

import os
import sys


def _number(name: str, default: float, minimum: float, kind: type = float) -> float:
    """A number from the environment; a value that is not one, or below ``minimum``,
    gets one line on stderr and the default (every command imports this module, so
    raising here would be a traceback before any of them could say what is wrong)."""
    text = os.environ.get(name)
    if text is None:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or value != value or value < minimum:  # (value != value: NaN)
        kind_name = "a whole number" if kind is int else "a number"
        sys.stderr.write(
            f"sleuth: {name}={text!r} is not {kind_name} >= {minimum}; using {default}\n"
        )
        os.environ[name] = str(default)  # worker processes inherit it and stay quiet
        return default
    return value


#: Name of the per-repository folder that holds every store.
INDEX_DIRNAME = ".sleuth"
#: Bump when the on-disk layout changes: an older index is rebuilt with a message.
SCHEMA_VERSION = 1
#: Bump when chunking or lexical terms change: files are re-chunked (vectors are kept).
#: What each version changed is in the commit that bumped it.
CHUNKER_VERSION = 126

#: Seconds a detached embedder waits for .sleuth/embed.lock before it leaves the work to
#: the one holding it: another process's look at the lock (a status, a search noting
#: the embedder) holds it for microseconds, a running embedder for minutes.
EMBEDDER_LOCK_WAIT = 2.0

#: Files larger than this are skipped (reason ``too_large``).
MAX_FILE_BYTES = int(_number("SLEUTH_MAX_FILE_BYTES", 1_000_000, 1, int))
#: A file whose average line is longer than this is treated as minified.
MINIFIED_AVG_LINE = 300
#: Any single line longer than this in a file of few lines also means minified.
MINIFIED_MAX_LINE = 5_000
#: A file whose parse takes longer is cut into line windows instead: the grammars'
#: error recovery is quadratic on some malformed input (80,000 lines of ``label:`` /
#: ``#endif``: 40 s), while real files of 1 MB parse in well under a second.
PARSE_SECONDS = _number("SLEUTH_PARSE_SECONDS", 5.0, 0.0)
#: ... and a small file gets less: a base plus this many bytes a second, 20 times
#: slower than the slowest of 7,724 real files parsed (500 kB/s). Recovery can also
#: take memory as fast as time: 1.8 kB of broken Kotlin grew to 930 MB in 5 s.
PARSE_BASE_SECONDS = 0.25
PARSE_BYTES_PER_SECOND = 25_000
#: The walk over a parsed file's definitions gives up after this long, and the file is
#: cut into line windows: tree-sitter finds a node's parent and siblings by a descent
#: from the root, so on a tree thousands of levels deep every step costs thousands
#: (30,000 nested ``if x do`` blocks of Elixir: 94 s). Real files of 1 MB take under 5 s
#: in all, parse included.
CHUNK_WALK_SECONDS = _number("SLEUTH_CHUNK_WALK_SECONDS", 15.0, 0.0)
#: Brackets nested deeper than this in a file make it line windows before any parse:
#: queries over such a tree cost the square of its depth in C, where no deadline
#: reaches (C# nested 60,000 deep: 20 s). The deepest of 29,477 real files: 1,389.
MAX_BRACKET_NESTING = 10_000
#: Definition candidates nested deeper than this (classes in classes, callbacks in
#: callbacks ...) make a file line windows too; the deepest of 29,477 real files: 20.
MAX_DEFINITION_NESTING = 100
#: A file whose parse leaves more top-level pieces than this, nearly all bare tokens
#: (error recovery that found no structure: 40,000 ``template<`` in C++), is line
#: windows: queries over it are quadratic too (11 s a query at 80,000). Real files:
#: up to 31,000 top-level pieces, each a declaration or a comment.
MAX_BARE_TOP_LEVEL = 20_000

#: Chunk size bounds in lines: longer definitions are split, shorter siblings merged.
CHUNK_MAX_LINES = 60
CHUNK_MIN_LINES = 5
#: Line windows for files without a grammar.
WINDOW_LINES = 50
WINDOW_OVERLAP = 10

#: Files per batch: prepared by one worker task, written to the stores at once.
INDEX_BATCH_FILES = int(_number("SLEUTH_BATCH_FILES", 128, 1, int))
#: SQLite and tantivy commit together this often during a run (and at its end): a kill
#: loses at most this much work; each commit costs ~0.1 s.
COMMIT_SECONDS = _number("SLEUTH_COMMIT_SECONDS", 2.0, 0.0)
#: Worker processes that read and chunk files on big jobs (the main process writes).
INDEX_WORKERS = int(_number("SLEUTH_INDEX_WORKERS", min(4, os.cpu_count() or 1), 1, int))
#: Below this many files to (re)index, preparation stays in the main process.
PARALLEL_MIN_FILES = 400
#: Transformer inputs are cut at this many tokens (path, parent, signature come first).
EMBED_MAX_TOKENS = 128
#: Chunks per model call; small batches of similar length run fastest on 2 cores.
EMBED_BATCH = 8
#: Embedding throughput assumed before it is measured, in chunks per second. Measured on
#: 2 cores: 91-96 (the first machine), about 55 (an AMD EPYC), 31 (an Intel Xeon at 2.5
#: GHz: 2,553 chunks in 83 s). Taken low, so that a first search waits in the foreground
#: no longer than ``FOREGROUND_EMBED_SECONDS`` on the slower machines too.
EMBED_ASSUMED_RATE = 40.0
#: `sleuth search` on a new index embeds in the foreground only below this many seconds.
FOREGROUND_EMBED_SECONDS = _number("SLEUTH_FOREGROUND_EMBED_SECONDS", 10.0, 0.0)
#: Static-tier throughput assumed before it is measured (a token table: numpy only).
STATIC_ASSUMED_RATE = 2500.0
#: ... and when the transformer is left to the background, the first search still
#: builds the static tier in the foreground below this many seconds, so that its first
#: answer has a semantic side (docs/decisions.md).
FOREGROUND_STATIC_SECONDS = _number("SLEUTH_FOREGROUND_STATIC_SECONDS", 2.0, 0.0)

#: Whether the static tier (a token table, numpy only) is built by every index run. Off:
#: it did not clear its bar on the benchmark (docs/decisions.md); `--embed static` asks
#: for it per index.
STATIC_DEFAULT = os.environ.get("SLEUTH_STATIC_DEFAULT", "0") == "1"
#: While the static tier answers alone (the deep tier still being built), its semantic
#: weight in hybrid fusion relative to the deep tier's: a token table's cosines are a
#: weaker view, so they count half (docs/decisions.md, twenty-fourth round).
STATIC_WEIGHT = _number("SLEUTH_STATIC_WEIGHT", 0.5, 0.0)

#: From this many vectors on, searches go through an HNSW graph (plus an exact pass over
#: vectors added since it was built); below, exact search is fast enough and exact.
HNSW_MIN_VECTORS = int(_number("SLEUTH_HNSW_MIN_VECTORS", 200_000, 1, int))
#: The graph is rebuilt when vectors added or removed since it was built exceed this share.
HNSW_REBUILD_SHARE = 0.1
#: Candidates an HNSW search keeps in view: wider than the library default (64) trades
#: a fraction of a millisecond for fewer missed nearest neighbours.
HNSW_EXPANSION_SEARCH = 128

#: Candidates each retriever hands to fusion.
CANDIDATES = 200
#: Candidates BM25 hands a question about uses ("who imports Client"): its one term is
#: often a common word whose 200 best chunks hold it most, not the uses asked for.
#: Each is read for the use (a few milliseconds more for a word in every chunk).
USES_CANDIDATES = 1000

#: Longest query any front end accepts (CLI, HTTP, MCP): a pasted stack trace fits, and
#: a search of this length still takes tens of milliseconds (about 30 ms for 8,000).
MAX_QUERY_CHARS = 8000
#: Longest definition name asked for (find_symbol, /symbols).
MAX_NAME_CHARS = 500
