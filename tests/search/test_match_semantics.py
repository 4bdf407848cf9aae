"""Match semantics on the real node and the 18 sample judgments (real MiniLM vectors): what a hit matched, the
similarity floor for meaning-only hits, constraints on every hit, and the exact count of judgments matching.

No sample judgment mentions dowry, so ``"dowry death"`` (a phrase) and ``xyzzyqwerty`` (no word of any
judgment) must come back empty on both ranking paths; ``dowry death`` (two words) counts none (no judgment has
every word), and may rank only judgments with "death" in them, each saying it lacks "dowry", or meaning-only ones
flagged and above the floor.

The counting rule (every word of a typed query) is checked against the node itself: the count, the date and
cited-by sorts and the facets hold exactly the judgments an OpenSearch ``match`` with ``operator: and`` over the
judgments' ``text`` finds for the same words.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

from search.execute import Searcher
from search.hits import SearchResult
from search.pages.browse import explore
from search.query.request import SearchRequest
from search.retrieval.matching import MEANING_FLOORS
from search.retrieval.records import MatchKind

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
    # no judgment has every word (the count a lawyer reads); those with any are ranked, each saying what it lacks
    assert result.total == 0 and result.total_any == len(with_death) > 0
    words = {h.judgment_id for h in result.hits if h.match is MatchKind.WORDS}
    assert words == with_death  # every judgment with a word is in the window, and nothing else by the words
    assert all(h.missing == ("dowry",) for h in result.hits if h.match is MatchKind.WORDS)
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


def _count(client: OpenSearch, aliases, query: dict) -> int:
    return int(client.count(index=aliases["judgments"], body={"query": query})["count"])


def _ids(client: OpenSearch, aliases, query: dict) -> set[str]:
    hits = client.search(index=aliases["judgments"], body={"query": query, "size": 100, "_source": False})
    return {hit["_id"] for hit in hits["hits"]["hits"]}


def _and(words: str) -> dict:
    return {"match": {"text": {"query": words, "operator": "and"}}}


# typed queries some judgments have every word of and more have some of (on the 18 samples: 2 of 7, 4 of 12, 7 of
# 12); "by" is a stopword, which drops out as it does from OpenSearch's operator "and"
TYPED = ("murder by husband", "conviction acquittal witness", "death sentence")


@pytest.mark.parametrize("ranking", PATHS)
@pytest.mark.parametrize("words", TYPED)
def test_the_count_requires_every_word_as_opensearch_and_does(searcher: Searcher, client: OpenSearch, aliases,
                                                              ranking: str, words: str) -> None:
    every, some = _count(client, aliases, _and(words)), _count(client, aliases, {"match": {"text": words}})
    assert 0 < every < some, "the query must tell every word from any word on the samples"
    result = _search(searcher, words, ranking, explain=False)
    assert (result.total, result.total_any, result.count_rule) == (every, some, "every_word")
    # Explore and the facets count the same judgments
    assert sum(b["judgments"] for b in result.facets["court"]) == every  # every sample names its court
    assert all(b["judgments"] <= every for b in result.facets["role"]) and result.facets["role"]
    provisions = {b["key"]: b["judgments"] for b in result.facets["cited_provisions"]}
    for key, judgments in provisions.items():
        assert judgments == _count(client, aliases, {"bool": {"must": [_and(words)], "filter": [
            {"term": {"cited_provisions": key}}]}})
    explored = explore(client, aliases, SearchRequest.from_query(words, classify=False))
    assert explored.judgments == every


@pytest.mark.parametrize("sort", ["newest", "cited_by"])
@pytest.mark.parametrize("words", TYPED)
def test_the_date_and_cited_by_sorts_list_the_judgments_with_every_word(searcher: Searcher, client: OpenSearch,
                                                                        aliases, sort: str, words: str) -> None:
    every = _ids(client, aliases, _and(words))
    result = _search(searcher, words, "ranker", sort=sort)
    by_words = {h.judgment_id for h in result.hits if h.match is MatchKind.WORDS}
    assert by_words == every and result.total == len(every)
    assert all(h.missing == () for h in result.hits)
    # anything else in the sorted set was found by meaning alone: it has none of the words
    others = {h.judgment_id for h in result.hits} - every
    assert not others & _ids(client, aliases, {"match": {"text": words}})
    assert all(h.match is MatchKind.MEANING for h in result.hits if h.judgment_id in others)


@pytest.mark.parametrize("ranking", PATHS)
def test_a_hit_missing_a_word_says_which(searcher: Searcher, client: OpenSearch, aliases, ranking: str) -> None:
    words = "murder by husband"
    every = _ids(client, aliases, _and(words))
    result = _search(searcher, words, ranking)
    lacking = [h for h in result.hits if h.missing]
    assert lacking, "the ranking reaches judgments with only some of the words"
    for hit in result.hits:
        if hit.match is not MatchKind.WORDS:
            continue
        assert (hit.judgment_id in every) == (hit.missing == ())
        for word in ("murder", "husband"):
            has = _count(client, aliases, {"bool": {"must": [{"match": {"text": word}}],
                                                    "filter": [{"ids": {"values": [hit.judgment_id]}}]}})
            assert (word in hit.missing) == (has == 0), (hit.judgment_id, word, hit.missing)
        assert "by" not in hit.missing  # a stopword is no condition


def test_a_pasted_text_counts_any_of_its_words(searcher: Searcher, client: OpenSearch, aliases) -> None:
    pasted = ("The husband was convicted of murder of his wife on the evidence of a dying declaration recorded by "
              "the magistrate, and the High Court confirmed the sentence of death passed by the Sessions Judge")
    result = _search(searcher, pasted, "ranker")
    assert result.count_rule == "any_word" and result.total_any is None
    assert result.total == _count(client, aliases, {"match": {"text": pasted}})
    assert all(h.missing == () for h in result.hits)


def test_a_filter_only_search_lists_every_judgment_passing_the_filters_newest_first(searcher: Searcher,
                                                                                    client: OpenSearch,
                                                                                    aliases) -> None:
    result = _search(searcher, 'court:"Supreme Court of India"', "ranker")
    assert result.total == 18 and result.judgments_found == 18
    assert {h.match for h in result.hits} == {MatchKind.FILTERS}
    cited = {"term": {"cited_provisions": "IPC s. 302"}}
    passing = _ids(client, aliases, cited)
    seen: list[str] = []
    for page in (1, 2, 3, 4):  # relevance asked, pages of 2: every judgment, newest first, past one page
        found = searcher.search(SearchRequest.from_query('statute:"IPC s. 302"', size=2, page=page, explain=True))
        assert found.sort == "newest" and found.ranking_note and "no words to rank by" in found.ranking_note
        assert found.total == found.judgments_found == len(passing) == 7 and found.count_rule == "filters"
        seen += [h.judgment_id for h in found.hits]
        for hit in found.hits:
            assert hit.explanation is not None and hit.explanation.text.startswith("Cites IPC s. 302")
            assert hit.court in hit.explanation.text
    assert len(seen) == len(set(seen)) and set(seen) == passing
    dates = [d for d in (_stored_dates(client, aliases)[j] for j in seen) if d]
    assert dates == sorted(dates, reverse=True)


def _stored_dates(client: OpenSearch, aliases) -> dict[str, str | None]:
    hits = client.search(index=aliases["judgments"], body={"size": 100, "_source": ["decision_date"]})
    return {h["_id"]: h["_source"].get("decision_date") for h in hits["hits"]["hits"]}


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
    assert re.search(r"0 judgments have every word · (\d+) have any; showing the best \1", words.stdout)
    assert "missing: dowry" in words.stdout
    fused = runner.invoke(cli, [*base, "homicide", "--ranking", "fusion", "--size", "18"], catch_exceptions=False)
    assert "2 judgments have every word · 2 have any; showing the best" in fused.stdout
    assert "matched by meaning only" in fused.stdout
    data = json.loads(runner.invoke(cli, [*base, "homicide", "--ranking", "fusion", "--json"],
                                    catch_exceptions=False).stdout)
    assert data["total"] == 2 and data["meaning_floor"] == 0.42
    assert {hit["match"] for hit in data["hits"]} == {"words", "meaning"}
    data = json.loads(runner.invoke(cli, [*base, "murder by husband", "--json", "--size", "18"],
                                    catch_exceptions=False).stdout)
    assert (data["total"], data["total_any"], data["count_rule"]) == (2, 7, "every_word")
    missing = {tuple(hit["missing"]) for hit in data["hits"] if hit["match"] == "words"}
    assert () in missing and any(missing - {()}) and all(set(m) <= {"murder", "husband"} for m in missing)
