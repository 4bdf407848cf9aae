"""Search end to end with the LLM parts (real small model, real node, sample judgments), and without them."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from opensearchpy import OpenSearch

from backends.llm import CachedLLM, OpenAICompatibleLLM
from search.execute import Searcher
from search.explain.llm import grounding_problem, hit_record
from search.query.request import SearchRequest
from search.retrieval.records import StoredJudgment

FACTS = ("The husband and his mother demanded more dowry and harassed the young wife. Within three years of the "
         "marriage she died of burns in the matrimonial home and her father lodged a complaint.")


def test_hits_carry_highlighted_sentences(client: OpenSearch, aliases, encoder) -> None:
    result = Searcher(client, aliases, encoder).search(SearchRequest.from_query("public servant misappropriated"))
    best = result.hits[0].passages[0]
    assert best.highlights and all("<mark>" in fragment for fragment in best.highlights)
    for fragment in best.highlights:
        plain = re.sub(r"</?mark>", "", fragment).replace("&quot;", '"').replace("&#x27;", "'").replace("&amp;", "&")
        assert " ".join(plain.split())[:40] in " ".join(best.text.split())
    marked = {m.lower() for f in best.highlights for m in re.findall(r"<mark>(.*?)</mark>", f)}
    assert marked & {"public", "servant", "misappropriated"}


def test_without_an_llm_everything_falls_back(client: OpenSearch, aliases, encoder) -> None:
    searcher = Searcher(client, aliases, encoder)
    plain = searcher.search(SearchRequest.from_query(FACTS, size=5))
    asked = searcher.search(SearchRequest.from_query(FACTS, size=5, expand="issues,provisions", explain=True))
    assert asked.expansion.note == "no LLM configured: searched without expansion"
    assert [h.judgment_id for h in asked.hits] == [h.judgment_id for h in plain.hits]
    assert all(h.explanation.method == "extractive" and h.explanation.note is None for h in asked.hits)
    # provisions by the query text mixed with those the top judgments quote (search.provisions.precedents); on the
    # 18 sample judgments few of the "precedents" are about dowry, so the dowry provision need not lead
    titles = [p.title for p in asked.provisions]
    assert len(titles) == 5 and any("dowry" in (t or "").lower() for t in titles)
    assert asked.ranking.startswith("ranker:") and plain.ranking == asked.ranking  # the expansion did not happen


def test_issue_expansion_provisions_and_llm_explanations(client: OpenSearch, aliases, encoder, small_llm,
                                                         tmp_path) -> None:
    llm = CachedLLM(small_llm, tmp_path / "answers.sqlite")
    searcher = Searcher(client, aliases, encoder, llm=llm)
    request = SearchRequest.from_query(FACTS, size=5, expand="issues,provisions", explain=True, explain_top=2)
    result = searcher.search(request)
    assert result.expansion.model == small_llm.name and result.expansion.issues
    assert result.expansion.provisions and result.fusion.endswith("+issues:rrf")
    assert len(result.provisions) == 5
    assert len({h.judgment_id for h in result.hits}) == 5
    for rank, hit in enumerate(result.hits):
        explanation = hit.explanation
        if rank >= 2 or explanation.method == "extractive":
            assert explanation.method == "extractive"
            assert rank >= 2 or explanation.note  # an LLM answer was rejected or failed, and we say why
        else:
            assert explanation.method == f"llm:{small_llm.name}"
    again = searcher.search(request)  # the same search again: every LLM answer comes from the cache
    assert llm.misses > 0 and llm.hits >= llm.misses
    assert [h.explanation.text for h in again.hits] == [h.explanation.text for h in result.hits]
    source = client.get(index=aliases["judgments"], id=result.hits[0].judgment_id)["_source"]
    best = result.hits[0].passages[0]
    record = hit_record(StoredJudgment.from_source(source), best.role, best.text)
    if result.hits[0].explanation.method != "extractive":
        assert grounding_problem(result.hits[0].explanation.text, record) is None


def test_http_llm_serves_the_same_expansion(client: OpenSearch, aliases, encoder, llm_server: str) -> None:
    llm = OpenAICompatibleLLM(llm_server, "qwen-small", timeout=120)
    result = Searcher(client, aliases, encoder, llm=llm).search(
        SearchRequest.from_query(FACTS, size=3, expand="issues"))
    assert result.expansion.issues and result.expansion.note is None
    assert result.fusion.endswith("+issues:rrf") and len(result.hits) == 3


def test_client_explains_lazily_with_its_llm(opensearch_settings, aliases, encoder, small_llm) -> None:
    from ratio import Client

    prefix = aliases["chunks"].removesuffix("-chunks")
    plain = Client(opensearch_settings.url, prefix=prefix, encoder=encoder)
    with_llm = Client(opensearch_settings.url, prefix=prefix, encoder=encoder, llm=small_llm)
    query = "criminal breach of trust by a public servant"
    extractive, written = plain.explain(query, "C7"), with_llm.explain(query, "C7")
    assert extractive.method == "extractive" and extractive.note is None
    assert written.method == f"llm:{small_llm.name}" or (written.note and written.text == extractive.text)


def test_cli_search_with_llm_expansion_and_explanations(opensearch_settings, aliases, encoder, small_llm,
                                                        tmp_path) -> None:
    """The CLI's local LLM, named as the session's, asks exactly what the library asks for the same search: the
    library's run fills an answer cache (from the session's answers, so the model runs once per session for
    both), and the CLI, pointed at that cache, finds every answer there and prints them."""
    from click.testing import CliRunner

    from backends.llm import SMALL_LLM
    from ratio import Client
    from ratio.cli import cli

    prefix = aliases["chunks"].removesuffix("-chunks")
    cache = tmp_path / "llm-answers.sqlite"
    library = Client(opensearch_settings.url, prefix=prefix, encoder=encoder, llm=CachedLLM(small_llm, cache))
    expected = library.run(SearchRequest.from_query(FACTS, size=3, expand="issues,provisions", explain=True,
                                                    explain_top=1))
    rows = _answers(cache)
    assert expected.expansion.issues and rows >= 2
    env = {"RATIO_LLM": "local", "RATIO_LLM_MODEL": SMALL_LLM, "RATIO_CACHE": str(tmp_path)}
    args = ["--url", opensearch_settings.url, "--prefix", prefix, "search", FACTS, "--size", "3", "--expand",
            "issues", "--expand", "provisions", "--explain", "--explain-top", "1"]
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "searched also for the issues: " in result.output and "provisions:" in result.output
    assert "1. " in result.output and "3. " in result.output
    assert all(issue in result.output for issue in expected.expansion.issues)
    assert _answers(cache) == rows  # nothing new asked
    refused = CliRunner().invoke(cli, args, env={**env, "RATIO_LLM": "http", "RATIO_LLM_URL": ""})
    assert refused.exit_code != 0 and "an http LLM needs a URL" in refused.output


def test_benchmark_measures_the_llm_steps(client: OpenSearch, aliases, encoder, small_llm) -> None:
    import pytest

    from lab.bench.searches import LLM_MODES, measure

    # What is checked here is the benchmark's machinery (each LLM mode run, one row each, timed, refused without
    # an LLM), not the model's speed: the session's answers serve it, so the warm-up generates each prompt (or
    # finds it from an earlier test) and the timed run repeats the warm-up's prompts from the cache, as the
    # module says a cached LLM would. An uncached model generated every prompt twice (minutes of CI).
    request = SearchRequest.from_query(FACTS, facets=False)
    repeated = small_llm.repeated
    rows = measure(Searcher(client, aliases, encoder, llm=small_llm), [request], LLM_MODES)
    assert [row.mode for row in rows] == list(LLM_MODES)
    assert all(row.queries == 1 and row.p50_ms > 0 for row in rows)
    assert small_llm.repeated - repeated >= len(LLM_MODES)  # the timed run asked the model what the warm-up did
    with pytest.raises(ValueError, match="needs a searcher with an LLM"):
        measure(Searcher(client, aliases, encoder), [request], ["hybrid_expand_issues"])


def test_index_command_refines_summaries_with_the_llm(opensearch_settings, client: OpenSearch, layout, small_gguf,
                                                      tmp_path) -> None:
    from click.testing import CliRunner

    from ratio.cli import cli

    sample = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments" / "C7.txt"
    base = ["--url", opensearch_settings.url, "--prefix", layout.prefix, "index", str(sample), "--refine-summaries"]
    refused = CliRunner().invoke(cli, base, env={"RATIO_LLM": "none"})
    assert refused.exit_code != 0 and "--refine-summaries needs an LLM" in refused.output
    result = CliRunner().invoke(cli, [*base, "--llm", "local", "--llm-model", str(small_gguf)],
                                env={"RATIO_CACHE": str(tmp_path)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = client.get(index=layout.alias("judgments"), id="C7")["_source"]["summary"]
    methods = {summary["provenance"][field].get("method") for field in ("facts", "legal_issues")}
    refusals = [summary["provenance"][field].get("llm_refused") for field in ("facts", "legal_issues")]
    assert any(m and m.startswith("llm:") for m in methods) or all(refusals)


def _answers(cache: Path) -> int:
    """How many answers the LLM cache at ``cache`` holds."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(cache)) as db:
        return int(db.execute("SELECT count(*) FROM answers").fetchone()[0])
