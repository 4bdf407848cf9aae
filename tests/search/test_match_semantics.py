"""Match semantics on the real node and the 18 sample judgments (real MiniLM vectors): what a hit matched, the
similarity floor for meaning-only hits, constraints on every hit, and the exact count of judgments matching.

No sample judgment mentions dowry, so ``"dowry death"`` (a phrase) and ``xyzzyqwerty`` (no word of any
judgment) must come back empty on both ranking paths; ``dowry death`` (two words) may bring only judgments
with "death" in them, or meaning-only ones flagged and above the floor.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

from search.execute import Searcher, SearchResult
from search.matching import MEANING_FLOORS
from search.records import MatchKind
from search.request import SearchRequest

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"
PATHS = ("ranker", "fusion")


def _text(judgment_id: str) -> str:
    return (SAMPLES / f"{judgment_id}.txt").read_text(encoding="utf-8")


def _having(pattern: str) -> set[str]:
    """Sample judgments whose text matches ``pattern`` (case-insensitive)."""
    return {p.stem for p in SAMPLES.glob("*.txt") if re.search(pattern, p.read_text(encoding="utf-8"), re.I)}


@pytest.fixture(scope="module")
def searcher(client: OpenSearch, aliases, encoder) -> Searcher:
    return Searcher(client, aliases, encoder)


def _search(searcher: Searcher, query: str, ranking: str, **options) -> SearchResult:
    return searcher.search(SearchRequest.from_query(query, ranking=ranking, size=18, candidates=300, **options))


def test_the_floor_is_the_index_encoders(searcher: Searcher) -> None:
    assert searcher.floor == MEANING_FLOORS["sentence-transformers/all-MiniLM-L6-v2"]


@pytest.mark.parametrize("ranking", PATHS)
def test_a_quoted_phrase_that_occurs_nowhere_returns_nothing(searcher: Searcher, ranking: str) -> None:
    assert not _having(r"dowry\s+death")
    result = _search(searcher, '"dowry death"', ranking)
    assert result.hits == () and result.judgments_found == 0 and result.total == 0


@pytest.mark.parametrize("ranking", PATHS)
def test_gibberish_returns_nothing(searcher: Searcher, ranking: str) -> None:
    result = _search(searcher, "xyzzyqwerty", ranking)
    assert result.hits == () and result.total == 0
    if ranking == "fusion":  # the vector half found judgments: the floor, not the lexical half, removed them
        assert result.below_floor > 0


@pytest.mark.parametrize("ranking", PATHS)
def test_absent_topic_brings_the_words_matches_and_nothing_under_the_floor(searcher: Searcher, ranking: str) -> None:
    assert not _having(r"\bdowry")
    with_death = _having(r"\bdeaths?\b")
    result = _search(searcher, "dowry death", ranking)
    assert result.total == len(with_death) > 0
    words = {h.judgment_id for h in result.hits if h.match is MatchKind.WORDS}
    assert words == with_death  # every judgment with the word is in the window, and nothing else by the words
    for hit in result.hits:
        if hit.match is MatchKind.MEANING:
            assert not re.search(r"\bdeaths?\b|\bdowry", _text(hit.judgment_id), re.I)
            assert hit.similarity is not None and hit.similarity >= result.meaning_floor
    assert result.meaning_floor == searcher.floor


def test_meaning_only_hits_are_flagged_and_above_the_floor(searcher: Searcher) -> None:
    """'homicide' is in two sample judgments; the fusion path's vector half adds murder appeals without the word,
    flagged as found by meaning, each at least as similar as the floor, and drops the rest."""
    result = _search(searcher, "homicide", "fusion")
    with_word = _having(r"\bhomicides?\b")
    assert result.total == len(with_word) == 2
    meaning = [h for h in result.hits if h.match is MatchKind.MEANING]
    assert meaning, "no judgment without the word passed the floor"
    for hit in meaning:
        assert hit.judgment_id not in with_word
        assert hit.similarity is not None and hit.similarity >= result.meaning_floor
    assert {h.judgment_id for h in result.hits if h.match is MatchKind.WORDS} == with_word
    assert result.below_floor > 0  # the rest of the vector half's judgments were under the floor
    assert result.judgments_found == len(result.hits) == len(with_word) + len(meaning)


@pytest.mark.parametrize("ranking", PATHS)
def test_excluded_words_and_phrases_hold_for_every_hit(searcher: Searcher, ranking: str) -> None:
    excluded = _search(searcher, "murder -death", ranking)
    assert excluded.hits
    for hit in excluded.hits:
        assert not re.search(r"\bdeaths?\b", _text(hit.judgment_id), re.I)
    phrase = _search(searcher, '"culpable homicide" evidence', ranking)
    assert phrase.hits
    for hit in phrase.hits:
        assert re.search(r"culpable\s+homicide", _text(hit.judgment_id), re.I)
        assert hit.match is MatchKind.WORDS  # the phrase is a word match by definition


@pytest.mark.parametrize("ranking", PATHS)
def test_filters_hold_and_the_total_counts_within_them(searcher: Searcher, ranking: str) -> None:
    everywhere = _search(searcher, "murder", ranking)
    nineties = _search(searcher, "murder", ranking, years="1990..1999")
    assert nineties.total is not None and everywhere.total is not None
    assert 0 < nineties.total < everywhere.total
    assert all(h.decision_date and 1990 <= h.decision_date.year <= 1999 for h in nineties.hits)


def test_a_filter_only_search_counts_the_judgments_matching_the_filters(searcher: Searcher) -> None:
    result = _search(searcher, 'court:"Supreme Court of India"', "ranker")
    assert result.total == 18 and result.judgments_found == 18
    assert {h.match for h in result.hits} == {MatchKind.FILTERS}


def test_the_cli_says_what_matched(opensearch_settings, aliases) -> None:
    """``ratio search``: the no-match sentence, the count beside the window, the meaning-only line, and the same
    fields in ``--json``."""
    import json

    from click.testing import CliRunner

    from ratio.cli import cli

    base = ["--url", opensearch_settings.url, "--prefix", aliases["chunks"].removesuffix("-chunks"), "search"]
    runner = CliRunner()
    empty = runner.invoke(cli, [*base, '"dowry death"'], catch_exceptions=False)
    assert empty.exit_code == 0 and "No judgment matches '\"dowry death\"'" in empty.stdout
    words = runner.invoke(cli, [*base, "dowry death", "--size", "3"], catch_exceptions=False)
    assert words.exit_code == 0
    assert re.search(r"(\d+) judgments match the words; showing the best \1", words.stdout)
    fused = runner.invoke(cli, [*base, "homicide", "--ranking", "fusion", "--size", "18"], catch_exceptions=False)
    assert "2 judgments match the words; showing the best" in fused.stdout
    assert "matched by meaning only" in fused.stdout
    data = json.loads(runner.invoke(cli, [*base, "homicide", "--ranking", "fusion", "--json"],
                                    catch_exceptions=False).stdout)
    assert data["total"] == 2 and data["meaning_floor"] == 0.42
    assert {hit["match"] for hit in data["hits"]} == {"words", "meaning"}
