"""Code-aware terms: how identifiers become searchable words."""

from collections import Counter

from sleuth.tokens import (
    code_terms,
    code_terms_text,
    identifiers_in,
    query_terms,
    split_identifier,
)


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


def test_words_of_any_script_are_terms() -> None:
    """Identifiers and comments in German, French or Russian were cut at the first
    letter outside ASCII (`größe` -> `gr`, `e`; Cyrillic not at all)."""
    assert code_terms("def größe(): return naïve_sort(x)") == [
        "def",
        "größe",
        "große",
        "return",
        "naïve_sort",
        "naïve",
        "sort",
        "naive_sort",
        "naive",
        "x",
    ]
    assert code_terms("обработать_запрос") == ["обработать_запрос", "обработать", "запрос"]
    assert query_terms("où est le café") == ["où", "ou", "est", "le", "café", "cafe"]


def test_a_word_with_accents_is_also_a_term_without_them() -> None:
    """People often type `cafe` for `café`: both find it; the ASCII word is untouched."""
    assert set(query_terms("cafe")) <= set(code_terms("# le café"))
    assert set(query_terms("café")) & set(code_terms("# le cafe")) == {"cafe"}
    assert code_terms("한국어") == ["한국", "국어"]  # CJK pairs are not decomposed


def test_scripts_without_spaces_are_indexed_as_pairs_of_characters() -> None:
    """Chinese and Japanese do not separate words: overlapping pairs let a two-character
    word find the run it stands in, and a question asked in those scripts match."""
    assert code_terms("// 计算订单总价") == ["计算", "算订", "订单", "单总", "总价"]
    assert code_terms("getユーザー名") == ["get", "ユー", "ーザ", "ザー", "ー名"]
    assert code_terms("日") == ["日"]
    assert set(query_terms("总价")) <= set(code_terms("计算订单总价"))
    text = "价格 = 计算订单总价(订单)  # 订单总价"
    assert Counter(code_terms_text(text).split()) == Counter(code_terms(text))


def test_names_in_a_question_are_found_in_any_script() -> None:
    question = "where do berechne_größe, getДанные and parseConfig run, not plain words"
    assert identifiers_in(question) == ["berechne_größe", "getДанные", "parseConfig"]
    assert identifiers_in("how are retries done in Größe") == []
