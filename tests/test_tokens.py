"""Code-aware terms: how identifiers become searchable words."""

from collections import Counter

from sleuth.tokens import code_terms, code_terms_text, query_terms, split_identifier


def test_identifiers_split_on_case_underscores_and_digits() -> None:
    assert split_identifier("parseHTTPConfig") == ["parse", "http", "config"]
    assert split_identifier("retry_upload") == ["retry", "upload"]
    assert split_identifier("IOError") == ["io", "error"]
    assert split_identifier("utf8Decode") == ["utf", "8", "decode"]


def test_code_terms_keep_the_whole_identifier_before_its_parts() -> None:
    assert code_terms("getUserName(x)") == ["getusername", "get", "user", "name", "x"]


def test_indexed_text_has_the_same_terms_and_counts_as_code_terms() -> None:
    text = "def retryUpload(url):\n    retryUpload(url)  # retry the upload\n    return url\n"
    assert Counter(code_terms_text(text).split()) == Counter(code_terms(text))


def test_query_terms_drop_stopwords_and_repeats() -> None:
    assert query_terms("where are failed uploads retried, retried?") == [
        "failed",
        "uploads",
        "retried",
    ]
