"""The definitions table's queries: where a name is defined, what a type owns, the
names a mistyped one may mean. Part of ``MetaStore``, kept apart because ranking,
lookups and respelling read definitions in ways of their own."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from ..tokens import short_name, sigil_forms
from .sqlite import escape_like

T = TypeVar("T")

#: The chunk ``c`` holding the first line of the definition ``d``.
_CHUNK_OF_DEFINITION = (
    " JOIN chunks c ON c.file_id=d.file_id"
    " AND c.start_line<=d.start_line AND c.end_line>=d.start_line"
)
#: A definition's columns in ``DefinitionRow``'s field order, and the tables they come from.
_DEFINITION_COLUMNS = (
    "f.path, f.language, d.name, d.kind, d.parent, d.start_line, d.end_line, d.signature"
)
_DEFINITIONS_AND_FILES = " FROM definitions d JOIN files f ON f.id=d.file_id"
#: A definition's ``DefinitionRow`` columns and the id of the chunk holding its first
#: line (a WHERE clause follows).
_DEFINITION_AND_CHUNK = (
    f"SELECT {_DEFINITION_COLUMNS}, c.id" + _DEFINITIONS_AND_FILES + _CHUNK_OF_DEFINITION
)


class DefinitionSpan(NamedTuple):
    """Where a name is defined, as ranking reads it."""

    path: str
    start_line: int
    end_line: int
    name: str  # as defined: ``Command``, ``$ZodType``
    kind: str


@dataclass(frozen=True, slots=True)
class DefinitionRow:
    path: str
    language: str
    name: str
    kind: str
    parent: str
    start_line: int
    end_line: int
    signature: str


class DefinitionLookups:
    """The definition queries of ``MetaStore``, over its connection."""

    db: sqlite3.Connection

    if TYPE_CHECKING:  # MetaStore's cache of values computed once per lexical commit

        def _once_per_commit(self, name: str, compute: Callable[[], T]) -> T: ...

    def find_definitions(self, names: list[str]) -> dict[str, list[DefinitionSpan]]:
        """name (lowercased) -> where it is defined, for exact,
        case-insensitive names, with or without a leading sigil (``tokens.sigil_forms``:
        ``$ZodType``); ``impl`` blocks are named for a type they do not define, and are
        left out."""
        out: dict[str, list[DefinitionSpan]] = {}
        for name in names:
            forms = sigil_forms(name)
            found = self.db.execute(
                "SELECT f.path, d.start_line, d.end_line, d.name, d.kind FROM definitions d"
                " JOIN files f ON f.id=d.file_id"
                f" WHERE d.name COLLATE NOCASE IN ({','.join('?' * len(forms))})"
                " AND d.kind != 'impl' LIMIT 50",
                forms,
            ).fetchall()
            # a re-export answers only for a name the tree defines nowhere (it comes
            # from a dependency), and an overload's signature only for a name with no
            # code of its own: else the definition itself is the answer
            own = [r for r in found if r[4] not in ("reexport", "overload")] or found
            if own:
                out[name.lower()] = [DefinitionSpan(*row) for row in own]
        return out

    def defines_name(self, name: str, kinds: Iterable[str] = ()) -> bool:
        """Whether any definition (of one of ``kinds``, when given) is named ``name``,
        alone or after its owner (``Timer.sleep``, ``M:sleep``), in any ASCII case."""
        kinds = list(kinds)
        of_kind = f" AND kind IN ({','.join('?' * len(kinds))})" if kinds else ""
        found = self.db.execute(
            "SELECT 1 FROM definitions WHERE (name = ? COLLATE NOCASE"
            f" OR name LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\'){of_kind} LIMIT 1",
            (name, f"%.{escape_like(name)}", f"%:{escape_like(name)}", *kinds),
        ).fetchone()
        return found is not None

    def reexport_chunks(self, names: list[str], limit: int = 10) -> list[int]:
        """Chunks holding a re-export of a name the tree defines nowhere else (as
        ``find_definitions`` answers it): the block of ``pub use`` lines that names it."""
        out: list[int] = []
        for name in names:
            forms = sigil_forms(name)
            marks = ",".join("?" * len(forms))
            rows = self.db.execute(
                "SELECT DISTINCT c.id FROM definitions d"
                + _CHUNK_OF_DEFINITION
                + f" WHERE d.name COLLATE NOCASE IN ({marks}) AND d.kind='reexport'"
                " AND NOT EXISTS (SELECT 1 FROM definitions o"
                f" WHERE o.name COLLATE NOCASE IN ({marks})"
                " AND o.kind NOT IN ('reexport', 'impl')) LIMIT ?",
                (*forms, *forms, limit),
            )
            out.extend(row[0] for row in rows)
        return out

    def sole_definition_chunk(self, name: str) -> int | None:
        """The chunk holding the first line of the one definition named exactly ``name``
        (case and all; impl blocks, tests and re-exports aside), when there is one."""
        rows = self.db.execute(  # (through the name index, which ignores case)
            "SELECT c.id, d.name FROM definitions d"
            + _CHUNK_OF_DEFINITION
            + " WHERE d.name=? COLLATE NOCASE"
            " AND d.kind NOT IN ('impl', 'test', 'reexport', 'overload') LIMIT 50",
            (name,),
        ).fetchall()
        exact = [chunk_id for chunk_id, defined in rows if defined == name]
        return exact[0] if len(exact) == 1 else None

    def definitions_named(self, pattern: str, like: bool, limit: int) -> list[DefinitionRow]:
        """Definitions whose name equals ``pattern`` or matches it as LIKE (any case),
        with or without a leading sigil (``tokens.sigil_forms``)."""
        if like:
            values = (pattern,) if pattern.startswith("%") else sigil_forms(pattern)
            where = " OR ".join(["d.name LIKE ? ESCAPE '\\'"] * len(values))
        else:
            values = sigil_forms(pattern)
            where = f"d.name COLLATE NOCASE IN ({','.join('?' * len(values))})"
        rows = self.db.execute(
            f"SELECT {_DEFINITION_COLUMNS}{_DEFINITIONS_AND_FILES} WHERE {where} LIMIT ?",
            (*values, limit),
        )
        return [DefinitionRow(*r) for r in rows]

    def definitions_owned(self, name: str, limit: int, like: bool = False) -> list[DefinitionRow]:
        """Definitions whose own name carries an owner before ``name`` (any case):
        ``res.send``, ``M.setup``, ``Async:init``, ``absl::Cord::Find`` for ``Find``.
        With ``like``, ``name`` is a LIKE pattern (already escaped), so the part after
        the owner may itself span separators: callers check it.

        A LIKE on a name's end reads the whole table (about 1 ms per 10,000
        definitions), so this serves symbol lookups, not the search path."""
        escaped = name if like else escape_like(name)
        rows = self.db.execute(
            f"SELECT {_DEFINITION_COLUMNS}{_DEFINITIONS_AND_FILES}"
            " WHERE d.name LIKE ? ESCAPE '\\' OR d.name LIKE ? ESCAPE '\\' LIMIT ?",
            (f"%.{escaped}", f"%:{escaped}", limit),
        )
        return [DefinitionRow(*r) for r in rows]

    def definitions_in(
        self, names: Iterable[str], kinds: Iterable[str], language: str | None
    ) -> list[tuple[DefinitionRow, int]]:
        """The definitions of ``language`` (None: any) named exactly one of ``names``
        (case and all), of one of ``kinds``, each with the chunk holding its first line."""
        names, kinds = sorted(set(names)), list(kinds)
        found: list[tuple[DefinitionRow, int]] = []
        for begin in range(0, len(names) if kinds else 0, 500):  # (SQL variables are few)
            batch = names[begin : begin + 500]
            rows = self.db.execute(  # (through the name index, which ignores case)
                _DEFINITION_AND_CHUNK
                + f" WHERE d.name COLLATE NOCASE IN ({','.join('?' * len(batch))})"
                f" AND d.kind IN ({','.join('?' * len(kinds))})"
                + (" AND f.language=?" if language else ""),
                (*batch, *kinds, *([language] if language else [])),
            )
            wanted = set(batch)
            found += [(DefinitionRow(*row[:8]), row[8]) for row in rows if row[2] in wanted]
        return found

    def members_of(self, owner: str, limit: int) -> list[tuple[DefinitionRow, int]]:
        """The definitions whose parent is ``owner`` (in its case when any is so written,
        else in any case), in file and line order, each with the chunk holding its first
        line. Reads the whole table (no index on the parent): for rare questions."""
        rows = self.db.execute(
            _DEFINITION_AND_CHUNK
            + " WHERE d.parent = ? COLLATE NOCASE AND d.kind NOT IN ('impl', 'reexport')"
            " ORDER BY f.path, d.start_line LIMIT ?",
            (owner, limit),
        ).fetchall()
        found = [(DefinitionRow(*row[:8]), row[8]) for row in rows]
        return [item for item in found if item[0].parent == owner] or found

    def definition_texts(self, kind: str, language: str) -> list[tuple[str, str]]:
        """(name, its lines) of every definition of ``kind`` in ``language`` that spans
        more than one line, cut from the chunk holding its first line (to that chunk's
        end). Reads those chunks whole: for rare questions, cached by the caller."""
        rows = self.db.execute(
            "SELECT d.name, d.start_line, d.end_line, c.start_line, c.text FROM definitions d"
            " JOIN files f ON f.id=d.file_id"
            + _CHUNK_OF_DEFINITION
            + " WHERE d.kind=? AND f.language=? AND d.end_line>d.start_line",
            (kind, language),
        )
        return [
            (name, "\n".join(text.split("\n")[first - chunk_first : last - chunk_first + 1]))
            for name, first, last, chunk_first, text in rows
        ]

    def definition_names(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT name FROM definitions")]

    def definition_names_like(self, begins: str, shortest: int, longest: int) -> dict[str, int]:
        """Names a definition answers to (``tokens.short_name``: ``send`` of ``res.send``,
        ``ZodType`` of ``$ZodType``) that begin with ``begins`` in any case and are
        ``shortest`` to ``longest`` characters long, with how many definitions answer to
        each: a mistyped name's neighbours.

        Plain names (with or without a sigil) are read through the ``definitions_name``
        index, their length checked there; names written after an owner take a scan of
        every name, so those (a few percent of all) are read once per commit. At 156k
        definitions this takes 0-20 ms a call where one query per call took 50-480 ms;
        it serves the rare respelling, not every search."""
        counts: dict[str, int] = {}
        for form in sigil_forms(begins):
            extra = len(form) - len(begins)
            counts.update(
                self.db.execute(
                    "SELECT name, COUNT(*) FROM definitions WHERE name LIKE ? ESCAPE '\\'"
                    " AND length(name) BETWEEN ? AND ? AND kind != 'impl' GROUP BY name",
                    (escape_like(form) + "%", shortest + extra, longest + extra),
                )
            )
        counts.update(self._once_per_commit("owned_names", self._owned_definition_names))
        found: dict[str, int] = {}
        low = begins.lower()
        for name, count in sorted(counts.items()):  # in name order, as one query gave
            answers_to = short_name(name)
            if shortest <= len(answers_to) <= longest and answers_to.lower().startswith(low):
                found[answers_to] = found.get(answers_to, 0) + count
        return found

    def _owned_definition_names(self) -> dict[str, int]:
        """Definition names written after an owner (``res.send``, ``Async:init``), with
        how many definitions carry each."""
        return dict(
            self.db.execute(
                "SELECT name, COUNT(*) FROM definitions"
                " WHERE (instr(name, '.') OR instr(name, ':')) AND kind != 'impl' GROUP BY name"
            )
        )
