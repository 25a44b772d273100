"""Folders of translated documentation (``docs/ru/``, ``i18n/ja/``), told by their names.

Projects that translate their docs keep one folder per language beside each other, each
holding the same pages with the same code examples. A question in English then matched
the Russian, Hindi and Korean copies of a page as well as the original (fastapi: nine of
the first ten answers to "how are dependencies with yield cleaned up" were
translations). A folder counts as a translation when it is named for a language other
than English (``ru``, ``pt-BR``, ``zh_hant``) and either has another language folder
beside it, or sits in a folder kept for translations (``i18n/``, ``locales/``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

#: ISO 639-1 codes: a two-letter folder name that is one of these may be a language.
_ISO_639_1 = (
    "aa ab af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv"
    " cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho"
    " hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku"
    " kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn"
    " no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm"
    " sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi"
    " vo wa wo xh yi yo za zh zu"
)
_CODES = frozenset(_ISO_639_1.split())
#: Languages docs are commonly translated into: one of them must be among the folders, so
#: that ``io/`` and ``os/`` beside each other are not taken for Ido and Ossetian.
_TRANSLATED_INTO = (
    "ar bn cs da de el es fa fi fr he hi hu id it ja ko nl no pl pt ro ru sv th tr uk vi zh"
)
_COMMON = frozenset(_TRANSLATED_INTO.split())
_LANGUAGE_FOLDER = re.compile(r"([a-z]{2})(?:[-_][A-Za-z]{2,4})?")
_NAME_LENGTHS = frozenset({2, 5, 6, 7})
#: Folders that hold nothing but translations, one language each.
_TRANSLATION_PARENTS = frozenset(
    {"i18n", "l10n", "locale", "locales", "translations", "lang", "langs", "languages"}
)


def _language(name: str) -> str | None:
    """The language code a folder is named for, or None."""
    found = _LANGUAGE_FOLDER.fullmatch(name)
    return found.group(1) if found is not None and found.group(1) in _CODES else None


def translation_folders(paths: Iterable[str]) -> frozenset[str]:
    """The folders (``docs/ru/``, with their trailing slash) holding a translation, among
    the folders of these file paths."""
    #: parent folder -> its language folders' names -> their languages
    children: dict[str, dict[str, str]] = defaultdict(dict)
    for folder in {path.rpartition("/")[0] for path in paths}:  # files share folders
        parts = folder.split("/")
        for depth, name in enumerate(parts):
            # (a language folder's name is 2 letters, or 5 to 7 with its region)
            language = _language(name) if len(name) in _NAME_LENGTHS else None
            if language is not None:
                children["/".join(parts[:depth])][name] = language
    found = set()
    for parent, languages in children.items():
        kept_for_them = parent.rsplit("/", 1)[-1].lower() in _TRANSLATION_PARENTS
        if not kept_for_them and (len(languages) < 2 or _COMMON.isdisjoint(languages.values())):
            continue
        prefix = f"{parent}/" if parent else ""
        found.update(f"{prefix}{name}/" for name, language in languages.items() if language != "en")
    return frozenset(found)


def translated(path: str, folders: frozenset[str]) -> bool:
    """Whether ``path`` lies in one of ``folders`` (``translation_folders``)."""
    if not folders:
        return False
    at = path.find("/")
    while at != -1:
        if path[: at + 1] in folders:
            return True
        at = path.find("/", at + 1)
    return False
