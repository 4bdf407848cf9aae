"""Analysis settings for Ratio's text fields, kept as data.

The JSON files hold the analyzer definitions; ``synonyms.txt`` and ``stopwords.txt`` are inlined into
the settings here so the node needs no files in its config directory (a managed cluster often allows
no such files). Every language variant defines the same analyzer names (``ratio_text``,
``ratio_text_search``, ``ratio_exact``) and normalizer (``ratio_keyword``), so the mappings never change
with the language.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES: dict[str, str] = {"en": "legal_en.json", "ko": "cjk.json", "cjk": "cjk.json"}
ANALYZER_NAMES = ("ratio_text", "ratio_text_search", "ratio_exact")


def _read_text(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def _lines(name: str) -> list[str]:
    """Non-empty, non-comment lines of a word-list file."""
    return [ln.strip() for ln in _read_text(name).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def synonyms() -> list[str]:
    """The search-time synonym rules (Solr format)."""
    return _lines("synonyms.txt")


def stopwords() -> list[str]:
    """The stopword list of the legal English analyzer."""
    return _lines("stopwords.txt")


@cache
def _load(language: str) -> dict[str, Any]:
    try:
        filename = LANGUAGES[language]
    except KeyError:
        raise ValueError(f"unknown analysis language {language!r}; choose one of {sorted(LANGUAGES)}") from None
    data = json.loads(_read_text(filename))
    data.pop("_comment", None)
    filters = data.get("filter", {})
    if "ratio_legal_synonyms" in filters:
        filters["ratio_legal_synonyms"]["synonyms"] = synonyms()
    if "ratio_english_stop" in filters:
        stop = filters["ratio_english_stop"]
        stop.pop("stopwords_path", None)
        stop["stopwords"] = stopwords()
    return data


def analysis_settings(language: str = "en") -> dict[str, Any]:
    """The ``index.analysis`` settings block for ``language`` (a fresh copy the caller may change)."""
    return copy.deepcopy(_load(language))
