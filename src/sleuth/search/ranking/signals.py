"""The ranking's multipliers (``PRIORS``) and switches (``SIGNALS``), in one place.

Each is switched off one at a time in the ablation (docs/benchmarks.md); the scripts
under ``bench/`` change them for one process (``--set``), never as a default.
"""

from __future__ import annotations

#: Multipliers; each is switched off in the ablation of docs/benchmarks.md.
PRIORS = {
    "definition": 1.6,  # the chunk defines a symbol the query names
    # ... and holds its first line: a long class is chunked in pieces, each named for it;
    # the piece with the signature answers a lookup (bench/definition_lookup.py)
    "definition_head": 1.05,
    "exact_case": 1.3,  # ... with the query's very case: class Command over def command
    # ... a capitalised name asked for alone, and the chunk is the type of exactly that
    # name: `Index` asks for class Index, not the method index() or class Indexer (the
    # case decides only between kinds that share the name: a lower-case C struct
    # `leveldb_options_t`, or a capitalised C# method `GetProcessId`, takes its prior
    # when nothing else has that name; ``_kind_asked``)
    "type_name": 2.5,
    # ... a lower-case one, and the chunk is the function, method or macro (Elixir's
    # defmacro, Rust's macro_rules!, called like functions) of exactly that name
    # (or holds its first line: an inner function, `transferTo` in a returned object):
    # `index` asks for def index(), not class Indexer in indexer.py
    "function_name": 2.5,
    # ... an upper-case one (`DEFAULT_LIMIT`), and the chunk defines the constant of
    # exactly that name, not code whose names hold its words (`limit`); a name of
    # another case too when no type or function has it (Go's `ShellCompDirectiveDefault`)
    "constant_name": 2.5,
    # ... as a function's inner function, which no symbol field names: it makes up for
    # the field match a definition of its own chunk would have
    "inner_definition": 1.6,
    # the query asks where a name is used ("where is parse_config called", "usages of
    # Index"): the chunk defining it, which says the name most, is not an answer
    "used_name_defined": 0.3,
    "tests": 0.4,  # test files, unless the query asks about tests
    "docs": 0.35,  # prose, unless the query asks about docs (below tests: source, tests, docs)
    "asked_for": 1.3,  # tests or docs when the query asks for them
    "auxiliary": 0.65,  # examples, benchmarks, code of the docs, unless a query asks for them
    # release notes (CHANGELOG.md, CHANGES.rst, HISTORY): a line for every change says
    # the words of every question, but answers one about releases only
    "release_notes": 0.5,
    # documentation translated from English (``docs/ru/``, ``i18n/ja/``: ``locales``),
    # for a question written in ASCII: the original page answers it, not its copies
    "translation": 0.3,
    # data and configuration files (JSON, YAML, TOML, XML), and recorded test data
    # (snapshots, screenshots, fixtures as text), for a question in words that does not
    # ask for configuration or data: CI workflows and fixtures say many words
    "data_files": 0.5,
    # generated code: by its path (generated/, *.generated.*, .d.ts), or a file whose
    # first lines say a tool wrote it (``DO NOT EDIT``, a flex scanner; ``generated``)
    "generated": 0.6,
    # a type stub (Python's ``.pyi``): it declares the names its module defines, with
    # overloads that say a name many times; the module's code answers, for a name asked
    # alone too (a stub with no module beside it is still the one definition)
    "stubs": 0.6,
    # another project's code copied in (spdlog's fmt under fmt/bundled/, pip's _vendor/);
    # the usual folders (vendor/, third_party/) are not indexed at all
    "vendored": 0.6,
    # query words name the file (retry.py, lock.lua, Options.hs): the full boost when they
    # name every word of its name, a share of it for part (options: CommandLineOptions.hs)
    "file_name": 1.6,
    "folder_name": 1.2,  # a query word names a folder of the path (Writers/HTML.hs)
    "imports": 0.6,  # a block of import / use / require lines names things, defines none
    # an older version folder (src/v3/) beside a newer one among the candidates (src/v4/),
    # unless the query names that version
    "superseded": 0.6,
    # TypeScript/JavaScript type-declaration modules (a types/ folder, .d.ts files), and
    # functions declared without a body (SIGNALS["body_less"]), for questions in words:
    # they describe shapes, the code that does the work is elsewhere
    "declarations": 0.75,
    # a file that mentions every word of a question somewhere (in any chunk or its
    # path); partly covered files get the same share of the boost
    "coverage": 2.0,
    # the query writes the file's name as on disk, extension and all (keylog.h beside
    # keylog.c, `fastapi/utils.py` among other utils.py)
    "named_file": 4.0,
    # ... and the chunk holds the line written after it (rank.py:230, a stack trace's
    # frame): a pointer, so the other chunks of the file, however well they match the
    # file name's words, are not what was asked for
    "named_line": 10.0,
    # the chunk holds the query as written, case and spacing aside: a pasted line of code
    # or error message asks for the place it was copied from
    "verbatim": 10.0,
}

#: Other ranking signals, each switched off in the ablation (False or 0 is neutral).
SIGNALS: dict[str, bool | float | str] = {
    # "minmax": weighted min-max score fusion; "rrf": reciprocal rank fusion (measured
    # against each other in docs/benchmarks.md)
    "fusion": "minmax",
    "class_weights": True,  # fusion weights by query class; off: 0.5 / 0.5 for all
    # a function or method declared without a body (an interface's method, a C
    # prototype) takes the ``declarations`` prior for a question that is not a name
    "body_less": True,
    # A word in the names of this share of the code files (five at least: ramsey/uuid's
    # "uuid", Monolog's "handler") names no file in particular: the file-name prior
    # leaves it out of a name's share. 0: every word counts.
    "common_name_share": 0.2,
    # an interface or protocol (C#, Java, PHP, Swift) lists what implementations do:
    # the ``declarations`` prior too, for a question in words not about interfaces
    "interfaces": True,
    # Each further hit of a file already ranked higher keeps (1 - this) of its score,
    # compounding: one big file cannot fill the top 10 while other files also match.
    "same_file_penalty": 0.7,
    # The best hit of a file gains this share of its file's other hits' scores: a file
    # where many chunks match is more likely the one asked about.
    "file_evidence": 0.1,
    # Only a file's best 10 further hits count as evidence: a huge file (a 4,000-line
    # header) otherwise wins every query by the sheer number of its chunks. 0: all count.
    "evidence_hits": 10,
    # Where the semantic scale starts: "mean" of the candidates' cosines (the bulk of
    # weak candidates scores 0, the best 1), "min" (min-max: one far-off candidate
    # stretches the scale and flattens the rest), or "zero" (cosine over the best).
    "semantic_floor": "mean",
    # Each further hit of a file counts this much less than the one before as evidence
    # (geometric, 1.0: all the same); applied within the evidence_hits cap.
    "evidence_decay": 1.0,
    # The static table's share of the semantic side when both tiers are built: each
    # model's cosines scaled on their own (as above), then blended. 0: deep vectors only.
    "static_share": 0.3,
    # A question in words sits nearer to prose than to code in an embedding model's
    # space: prose candidates' cosines are moved onto the code candidates' mean and
    # spread before scaling, so a README paragraph does not outrank the code it describes
    # for being prose. False: one scale for all.
    "prose_alignment": True,
    # A definition cut in pieces, each named for it: when a later piece scores best, it
    # trades scores with the piece holding the first line (the file keeps its score).
    "lead_with_heads": True,
    # Pieces of a definition ranked below the cut still join its shown piece, within a
    # chunk's length (``file_order.merge_and_cut``).
    "join_below_cut": True,
    # A test file's path names what it tests (tests/search/test_rank.py): unless the
    # query asks for tests, its words earn a test file no file-name or folder prior.
    "tested_by_path": True,
    # A name asked for alone that the tree only re-exports (`pub use dep::{Name}`): the
    # chunk holding the re-export scores at least this share of the best BM25 score
    # (``engine``). One name in a block of fifty otherwise sinks by length.
    "reexport_floor": 1.0,
    # A name asked for alone that exactly one definition has, case and all: the chunk
    # holding it scores at least this share of the best BM25 score (``engine``). One
    # line in a long block of values (`Scope = MutableMapping[..]`) otherwise sinks.
    "sole_definition_floor": 1.0,
    # A name asked for alone that no definition has (`cmd_parse_from_file` of a yacc
    # file, `DATABASE_URL`): the chunks holding it whole come first, before chunks that
    # only share its words (``engine``), each scoring at least the best BM25 score.
    "undefined_name_first": True,
    # BM25's boost of the symbol field for a question in words (a name asked for keeps
    # ``lexical.FIELD_BOOSTS``'s): the words of a question name what the code does, and
    # short chunks named with one of them (`set_error`, `sort_cmp`) outranked the code
    # that does it. 0: the same boost for every query.
    "words_symbol_boost": 1.1,
    # A question in words whose best chunk in a file is a type's header (its declaration
    # and fields, a name nothing asked for): when a function or method of the file scores
    # at least this share of it, the two trade scores (the file keeps its scores). The
    # header says what a thing is; the function, what it does. 0: off.
    "lead_with_code": 0.5,
    # For a question in words, a file's candidates are put in order by score x lines^this,
    # and take the file's scores in that order (the file keeps its scores): BM25's length
    # normalisation and the embedding of a short chunk (mostly its path and signature)
    # favour a file's short chunks, and the code asked about is more often a longer one.
    # 0: the scores' own order.
    "longer_first": 0.2,
    # In the same order, a function, method or test of the file counts this share more
    # than its score: a question in words asks how something is done, and a file's
    # blocks, constants and headers more often only name it. 0: no lean.
    "code_in_file": 0.5,
    # ... and a code file's opening chunk (from its first line: licence, summary,
    # imports) this share less: it says what the whole file is for, and so matches a
    # question about anything inside; the code asked about lies further down. (A
    # document's opening section is its overview, and keeps its place.) 0: no lean.
    "file_opening": 0.5,
    # For a question in words, the initials of 2-4 consecutive terms name a file or
    # folder too (`hmr.ts` for "hot module replacement", `sse/` for "server-sent
    # events"; ``path_words.with_initialisms``), for the path priors only.
    "initialisms": True,
    # After fusion, only the best this many candidates (of up to 400; the lexical mode,
    # 200 at most, keeps all), with the chunks their files' evidence reads and those the
    # priors may raise from anywhere (``fusion.best_fused``), go through the priors,
    # evidence and merging; 0: all.
    "fused_cut": 120,
}
