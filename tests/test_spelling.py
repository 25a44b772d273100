"""Names asked for with a typing slip find the name the tree defines, and say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sleuth import Index
from sleuth.search.spelling import slips

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
    # ConfigPars: a name begun, each of its words in the tree, not a slip
    for query in ("ConfigParser", "parse_config", "ConfigPars", "where are faild uploads retried"):
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


def _words_only(tmp_path: Path, files: dict[str, str]) -> Index:
    """A repository of ``files``, indexed without vectors (its searches are lexical)."""
    root = tmp_path / "repo"
    write_tree(root, files)
    git_init(root)
    index = Index(root)
    index.index(embed="none")
    return index
