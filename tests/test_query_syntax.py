"""Filters written inside the query: parsed the same for the CLI, the library and MCP."""

from __future__ import annotations

import pytest

from sleuth import QueryError
from sleuth.search.query_syntax import parse_query


def test_filters_and_free_words_are_separated() -> None:
    parsed = parse_query("symbol:Config kind:class lang:python path:src/** retry backoff")
    assert parsed.text == "retry backoff"
    assert (parsed.symbol, parsed.kind, parsed.language, parsed.path) == (
        "Config",
        "class",
        "python",
        "src/**",
    )


def test_aliases_quotes_and_case() -> None:
    parsed = parse_query('sym:load_* language:Go file:"my docs/**" type:Tests where')
    assert parsed.symbol == "load_*" and parsed.language == "go"
    assert parsed.path == "my docs/**" and parsed.category == "tests"
    assert parsed.text == "where"


@pytest.mark.parametrize(
    "query",
    ["Rails::Engine", "how Picker:find opens a window", "std::vector push", "http://x.y/z a"],
)
def test_code_with_colons_stays_words(query: str) -> None:
    parsed = parse_query(query)
    assert parsed.text == query
    assert parsed.symbol is parsed.kind is parsed.path is parsed.language is None


def test_symbol_alone_is_the_search_text() -> None:
    parsed = parse_query("symbol:parse_* kind:function")
    assert parsed.text == "" and parsed.search_text == "parse_"


def test_bad_filters_are_errors() -> None:
    with pytest.raises(QueryError, match="type"):
        parse_query("type:everything retry")
    with pytest.raises(QueryError, match="twice"):
        parse_query("lang:go lang:rust retry")
    with pytest.raises(QueryError, match="conflicting language"):
        parse_query("lang:go retry").with_options(language="rust")
    same = parse_query("lang:go retry").with_options(language="Go", kind="function")
    assert same.language == "go" and same.kind == "function"
    with pytest.raises(QueryError, match="needs a value"):
        parse_query("symbol:")
    # a key in a sentence is a word
    assert parse_query("what type: string or int").text == "what type: string or int"
