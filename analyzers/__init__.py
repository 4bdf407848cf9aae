"""Analysis settings for Ratio's text fields, kept as data.

The JSON files hold the analyzer definitions; ``synonyms.txt`` and ``stopwords.txt`` are inlined into
the settings here so the node needs no files in its config directory (a managed cluster often allows
no such files). Every language variant defines the same analyzer names (``ratio_text``,
``ratio_text_search``, ``ratio_exact``, ``ratio_name``) and normalizer (``ratio_keyword``), so the mappings never
change with the language.

``ratio_name`` reads party names as lawyers write them (``title.name``, ``parties.name``): ``&`` is ``and``, a run of
initials is one token (``K. M.`` and ``K.M.`` are ``km``, ``U.P.`` is ``up``), the connectors (``v``, ``vs``,
``versus``, ``alias``) and filler (``Ors``, ``Anr``, ``and others``, ``The``) go, and abbreviations become their
words (``up`` → ``uttar pradesh``, ``mohd`` → ``mohammad``), from the word lists of ``party_names.json``, which
:mod:`search.query.party_names` reads too: one list for the index and for the comparisons made in Python.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES: dict[str, str] = {"en": "legal_en.json", "ko": "cjk.json", "cjk": "cjk.json"}
ANALYZER_NAMES = ("ratio_text", "ratio_text_search", "ratio_exact", "ratio_name")
PARTY_NAMES = "party_names.json"
# Initials written with dots (``K. M.``, ``U.P.``) joined into one word, one pair at a time: a letter standing alone,
# its dot and the spaces after it go when another lone letter follows. The lookbehind and lookahead are one
# character each and the pattern starts at a lone letter, so the engine reads each character a bounded number of
# times (no ``\b``, whose cost grows with runs of combining marks: docs/hardening.md).
_INITIALS = r"(?<![\p{L}\p{N}])(\p{L})\.\s*(?=(?!v)\p{L}(?![\p{L}\p{N}]))"  # a lower-case v is the connector


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


def party_name_rules() -> dict[str, Any]:
    """The party word lists (``party_names.json``): filler, separators, other-name words, aliases, generic words."""
    return json.loads(_read_text(PARTY_NAMES))


def _name_analysis() -> dict[str, dict[str, Any]]:
    """The ``ratio_name`` analyzer and its parts, built from the party word lists (the same in every language)."""
    rules = party_name_rules()
    aliases = [f"{word} => {expansion}" for word, expansion in sorted(rules["aliases"].items())]
    dropped = sorted({*rules["filler"], *rules["separators"], *rules["other_names"]})
    return {
        "char_filter": {
            "ratio_name_symbols": {"type": "mapping", "mappings": [
                "& => \\u0020and\\u0020", "@ => \\u0020alias\\u0020",
                "M/s => \\u0020", "M/S => \\u0020", "m/s => \\u0020"]},
            "ratio_name_initials": {"type": "pattern_replace", "pattern": _INITIALS, "replacement": "$1"},
        },
        "filter": {
            "ratio_name_stop": {"type": "stop", "stopwords": dropped, "ignore_case": True},
            "ratio_name_aliases": {"type": "synonym", "synonyms": aliases},
        },
        "analyzer": {
            "ratio_name": {"type": "custom", "char_filter": ["ratio_name_symbols", "ratio_name_initials"],
                           "tokenizer": "standard",
                           "filter": ["lowercase", "asciifolding", "ratio_name_stop", "ratio_name_aliases",
                                      "ratio_name_stop"]},
        },
    }


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
    for section, entries in _name_analysis().items():
        data.setdefault(section, {}).update(entries)
    return data


def analysis_settings(language: str = "en") -> dict[str, Any]:
    """The ``index.analysis`` settings block for ``language`` (a fresh copy the caller may change)."""
    return copy.deepcopy(_load(language))
