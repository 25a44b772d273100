"""Names asked for with a typing slip or cut short find the name the tree defines, and
say so."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from sleuth import Index
from sleuth.search.spelling import _letters_apart, slips
from sleuth.store.meta import MetaStore

from .conftest import git_init, run_cli, write_tree


@pytest.mark.parametrize("mode", ["hybrid", "lexical"])
def test_a_mistyped_name_finds_the_defined_one(embedded_repo: Path, mode: str) -> None:
    response = Index(embedded_repo).search("ConfigParsr", mode=mode)
    assert response.query == "ConfigParser"
    assert response.respelled_from == "ConfigParsr"
    assert any("ConfigParser" in notice for notice in response.notices)
    top = response.results[0]
    assert (top.path, top.symbol) == ("src/config/parser.py", "ConfigParser")


def test_each_part_of_a_name_is_respelled(embedded_repo: Path) -> None:
    index = Index(embedded_repo)
    snake = index.search("retry_faild_upload")
    assert snake.query == "retry_failed_upload"
    assert snake.results[0].symbol == "retry_failed_upload"
    qualified = index.search("ConfgParser.parse_cnfig")
    assert qualified.query == "ConfigParser.parse_config"
    spelled = index.search("ConfigParser.parse_config")
    assert [r.to_dict() for r in qualified.results] == [r.to_dict() for r in spelled.results]


def test_a_name_in_a_question_is_respelled_and_its_words_are_not(embedded_repo: Path) -> None:
    response = Index(embedded_repo).search("where does ConfgParser read the settings fille")
    assert response.query == "where does ConfigParser read the settings fille"
    assert response.notices[0] == "nothing here is named 'ConfgParser': searched 'ConfigParser'"
    assert response.results[0].path == "src/config/parser.py"


def test_names_spelled_right_and_questions_in_words_are_left_alone(embedded_repo: Path) -> None:
    index = Index(embedded_repo)
    for query in ("ConfigParser", "parse_config", "where are faild uploads retried"):
        response = index.search(query)
        assert response.respelled_from == "", query
        assert response.query == query


def test_a_name_used_but_not_defined_here_is_not_respelled(tmp_path: Path) -> None:
    # `fetch_users` comes from a library: it is called, never defined, and one slip
    # away from a name the tree does define: it is what the person asks for.
    index = _words_only(
        tmp_path,
        {
            "users.py": "def fetch_user(user_id):\n    return {'id': user_id}\n",
            "report.py": "from client import fetch_users\n\n\n"
            "def build_report():\n    return [u['id'] for u in fetch_users(limit=10)]\n",
        },
    )
    response = index.search("fetch_users", mode="lexical")
    assert (response.query, response.respelled_from) == ("fetch_users", "")
    # ... while a name found nowhere is still respelled to the defined one
    assert index.search("fetch_usr", mode="lexical").query == "fetch_user"


def test_a_slip_of_a_name_used_here_finds_that_name(tmp_path: Path) -> None:
    # `Tokenizer` is imported, never defined; `tokenize` is defined two slips away
    # from `Tokennizer`, the import one: the one typed is the one used
    index = _words_only(
        tmp_path,
        {
            "text.py": "def tokenize(text):\n    return text.split()\n",
            "model.py": "from tokenizers import Tokenizer\n\n\n"
            "def load(path):\n    return Tokenizer.from_file(path)\n",
        },
    )
    response = index.search("Tokennizer", mode="lexical")
    assert (response.query, response.respelled_from) == ("tokenizer", "Tokennizer")
    written = index.search("tokenizer", mode="lexical")
    assert [r.to_dict() for r in response.results] == [r.to_dict() for r in written.results]


@pytest.mark.parametrize("mode", ["hybrid", "lexical"])
def test_a_name_cut_short_finds_the_name_it_begins(embedded_repo: Path, mode: str) -> None:
    index = Index(embedded_repo)
    response = index.search("ConfigPars", mode=mode)
    assert (response.query, response.respelled_from) == ("ConfigParser", "ConfigPars")
    assert response.notices[0] == "nothing here is named 'ConfigPars': searched 'ConfigParser'"
    written = index.search("ConfigParser", mode=mode)
    assert [r.to_dict() for r in response.results] == [r.to_dict() for r in written.results]
    assert index.search("retry_failed_up", mode=mode).query == "retry_failed_upload"


def test_a_name_cut_short_is_completed_only_when_it_is_plain_which(tmp_path: Path) -> None:
    index = _words_only(
        tmp_path,
        {
            "adapters.py": "class TypeAdapter:\n    pass\n\n\nclass TypeAdapters:\n    pass\n",
            "builders.py": "class GsonBuilder:\n    pass\n\n\nclass GsonBuildConfig:\n    pass\n",
            "tokens.py": "def typeToString():\n    return 1\n\n\nclass TypeToken:\n    pass\n",
            "vectors.py": "class QueryVectorCache:\n    pass\n",
            "model.py": "from tokenizers import Tokenizer\n\n\ndef load(p):\n"
            "    return Tokenizer.from_file(p)\n",
            "settings.py": "from legacy import load_conf\n\n\ndef load_config(p):\n"
            "    return load_conf(p)\n",
        },
    )

    def searched(query: str) -> str:
        return index.search(query, mode="lexical").query

    # the others extend the shortest: it is the one begun
    assert searched("TypeAdap") == "TypeAdapter"
    # two names part ways after what was typed: left as typed
    assert searched("GsonBu") == "GsonBu"
    # the case typed is meant; a part typed in lower case may begin either
    assert searched("TypeTo") == "TypeToken"
    assert searched("typeToStri") == "typeToString"
    assert searched("typeto") == "typeto"
    assert searched("typeadap") == "TypeAdapter"
    # whole words may name what the tree does not define: searched as words
    assert searched("QueryVector") == "QueryVector"
    # a name the code holds whole is what is asked for, though a longer one is defined
    assert searched("load_conf") == "load_conf"
    assert searched("load_con") == "load_config"
    # a name that begins no defined one (from_file is only called) is left as typed
    assert searched("from_fi") == "from_fi"


def test_names_after_an_owner_or_a_sigil_are_respelled_and_completed(tmp_path: Path) -> None:
    index = _words_only(
        tmp_path,
        {
            "plugin.lua": "local M = {}\n\nfunction M.setup_options(opts)\n  return opts\nend\n"
            "\nfunction M:refresh_windows()\n  return 1\nend\n\nreturn M\n",
            "types.ts": "export class $ZodTypeDefinition {\n  kind = 1;\n}\n",
        },
    )

    typed = ["setup_optons", "refresh_windo", "ZodTypeDefinitoin", "ZodTypeDefini"]
    searched = [index.search(query, mode="lexical").query for query in typed]
    expected = ["setup_options", "refresh_windows", "ZodTypeDefinition", "ZodTypeDefinition"]
    assert searched == expected


def test_the_command_line_says_what_it_searched(sample_repo: Path) -> None:
    result = run_cli("search", "ConfigParsr", "--json", cwd=sample_repo)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["respelled_from"] == "ConfigParsr"
    assert payload["query"] == "ConfigParser"
    assert payload["results"][0]["symbol"] == "ConfigParser"
    human = run_cli("search", "ConfigParsr", "--mode", "lexical", cwd=sample_repo)
    assert "'ConfigParser'" in human.stdout + human.stderr


@pytest.mark.parametrize(
    ("typed", "name", "limit", "expected"),
    [
        ("router", "router", 1, 0),
        ("rotuer", "router", 1, 1),  # two neighbours swapped: one slip
        ("routr", "router", 1, 1),  # one left out
        ("rooter", "router", 1, 1),  # one replaced
        ("routerr", "router", 1, 1),  # one doubled
        ("rtuoer", "router", 1, 2),  # beyond the limit: limit + 1
        ("rtuoer", "router", 2, 2),
        ("handler", "router", 2, 3),
        ("ab", "abcdef", 2, 3),  # lengths alone rule it out
    ],
)
def test_slips_count_typing_slips(typed: str, name: str, limit: int, expected: int) -> None:
    assert slips(typed, name, limit) == expected


def test_letters_apart_never_exceed_the_slips() -> None:
    # the respelling skips a name on this count alone: it must be a lower bound
    rng = random.Random(5)
    for _ in range(2000):
        a = "".join(rng.choice("abcde") for _ in range(rng.randrange(1, 9)))
        b = "".join(rng.choice("abcde") for _ in range(rng.randrange(1, 9)))
        assert _letters_apart(Counter(a), b) <= slips(a, b, 10)
    assert _letters_apart(Counter("rotuer"), "router") == 0
    assert _letters_apart(Counter("routr"), "router") == 1


def test_words_like_reads_every_file_s_words_of_one_first_letter(tmp_path: Path) -> None:
    index = _words_only(
        tmp_path,
        {
            "a.py": "def tally(table):\n    return table.total + tail\n",
            "b.py": "def assign(x):\n    return x.trace_ticket\n",
            "c.py": "def zeta():\n    return 1\n",
        },
    )
    meta = MetaStore(index.layout.meta)
    words = {
        w for (terms,) in meta.db.execute("SELECT terms FROM file_terms") for w in terms.split()
    }
    for first, shortest, longest in (
        ("t", 4, 5),
        ("t", 1, 200),
        ("a", 1, 6),
        ("z", 2, 4),
        ("q", 1, 9),
    ):
        expected = {w for w in words if w[0] == first and shortest <= len(w) <= longest}
        assert meta.words_like(first, shortest, longest) == expected
    assert {"tally", "table", "total", "tail"} <= meta.words_like("t", 4, 5)
    assert "trace_ticket" in meta.words_like("T", 1, 200)


def _words_only(tmp_path: Path, files: dict[str, str]) -> Index:
    """A repository of ``files``, indexed without vectors (its searches are lexical)."""
    root = tmp_path / "repo"
    write_tree(root, files)
    git_init(root)
    index = Index(root)
    index.index(embed="none")
    return index
