"""The evaluation runner and ``ratio eval run`` on the sample judgments: a small hand-made qrels for the mechanics,
and effectiveness pinned per configuration on the samples' own AILA queries and qrels."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

from lab.evaluate import Query, evaluate, ranked_run
from lab.evaluate.data import read_qrels, read_queries
from lab.evaluate.systems import CONFIGS, Runner, filter_safety
from search.execute import Searcher
from search.retrieval.rerank import BiEncoderRescorer

QUERIES = [Query("Q1", "detention of a foreigner under the Foreigners (Internment) Order"),
           Query("Q2", "a public servant entrusted with property dishonestly misappropriated it")]
QRELS = {"Q1": {"C1": 1, "C11": 0}, "Q2": {"C7": 1}}


@pytest.fixture(scope="module")
def runner(client: OpenSearch, aliases, encoder) -> Runner:
    return Runner(Searcher(client, aliases, encoder, reranker=BiEncoderRescorer(encoder)), candidates=200)


@pytest.mark.parametrize("name", [c.name for c in CONFIGS.values() if c.task == "judgments" and not c.llm])
def test_every_judgment_configuration_ranks_sample_judgments(runner: Runner, name: str) -> None:
    text = "Masud Khan v State of Uttar Pradesh" if name == "title_bm25" else QUERIES[0].text  # C1's facts, C1's title
    ranked = runner.rank(name, text)
    assert ranked and len(ranked) == len(set(ranked)) and all(doc.startswith("C") for doc in ranked)
    assert "C1" in ranked[:5]


def test_whole_query_bm25_reads_a_judgment_past_the_query_limit(runner: Runner) -> None:
    from search.query.syntax import MAX_TERMS

    text = (Path(__file__).resolve().parents[3] / "samples" / "aila-2019" / "judgments" / "C12.txt").read_text()
    assert len(text.split()) > 2 * MAX_TERMS  # several segments, none of which alone is the whole judgment
    assert runner.rank("fulltext_bm25_whole", text)[0] == "C12"
    assert runner.rank("hybrid_fulltext_whole", text)[0] == "C12"


def test_scores_runs_and_statute_configurations(runner: Runner) -> None:
    run = ranked_run({q.qid: runner.rank("hybrid", q.text) for q in QUERIES})
    evaluation = evaluate(run, QRELS)
    assert evaluation.mean["MAP"] == pytest.approx(1.0)  # each query's one relevant judgment comes first
    provisions = runner.rank("provisions", "criminal breach of trust by a public servant entrusted with property")
    assert provisions[0] == "S52" and len(provisions) == 18
    with pytest.raises(ValueError, match="needs an LLM"):
        runner.rank("issues_only", QUERIES[0].text)
    with pytest.raises(ValueError, match="unknown configuration"):
        runner.check("bm42")


# Effectiveness pinned on a fixed small corpus: the 18 sample judgments and the 9 AILA 2019 queries with a
# relevant judgment among them (samples/aila-2019/Query_doc.txt, relevance_judgments_priorcases.txt: the dataset's
# own judgments restricted to the samples). Expected MAP and nDCG@10 per configuration, measured with the code
# at the time of pinning; the tolerance absorbs float noise (a swap deep in a list) but not a relevant judgment
# moving near the top (one query's AP from 1 to 1/2 moves MAP by 0.056).
#
# ``default`` and ``default_document`` are what 'ratio search' and search_by_document do: the shipped learned
# ranker (search/ranking/model/) over its candidates. They are pinned too, so a change that moves the default's
# ranking (a feature, a candidate source, a retrained model) shows here and must be re-pinned on purpose; the
# test also checks the ranker, not the fusion fallback, produced them.
# On these 18 judgments the ranker trails BM25 (it learned from corpora of thousands, where the citation
# graph and the candidate pool mean something): its pin is a tripwire for change, not a quality figure.
#
# To update after an intended change: run
#   RATIO_PRINT_PINNED=1 pytest tests/lab/evaluate/test_eval.py -k pinned -s
# and copy the printed lines into PINNED, saying in the commit message why the figures moved.
SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "aila-2019"
PINNED = {  # configuration: (MAP, nDCG@10)
    "bm25": (0.4638, 0.5701),
    "knn": (0.5532, 0.6436),
    "hybrid": (0.4704, 0.5768),
    "hybrid_rrf": (0.6085, 0.7131),
    "fulltext_bm25": (0.4300, 0.5459),
    "summary_bm25": (0.4700, 0.6023),
    "hybrid_fulltext": (0.4875, 0.6245),
    "default": (0.3865, 0.4865),
    "default_document": (0.4050, 0.5025),
}
TOLERANCE = 0.02


@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_effectiveness_on_the_sample_corpus(runner: Runner, name: str) -> None:
    queries = read_queries(SAMPLES / "Query_doc.txt")
    qrels = read_qrels(SAMPLES / "relevance_judgments_priorcases.txt")
    assert len(queries) == 9 and set(qrels) == {q.qid for q in queries}
    if name.startswith("default"):  # the shipped model, not the fusion fallback, is what is pinned
        assert runner.searcher.ranker is not None, runner.searcher.ranker_note
    evaluation = evaluate(ranked_run({q.qid: runner.rank(name, q.text) for q in queries}), qrels)
    found = (round(evaluation.mean["MAP"], 4), round(evaluation.mean["nDCG@10"], 4))
    if os.environ.get("RATIO_PRINT_PINNED"):
        print(f'\n    "{name}": ({found[0]:.4f}, {found[1]:.4f}),')
    assert found == pytest.approx(PINNED[name], abs=TOLERANCE), (
        f"{name}: MAP, nDCG@10 = {found}, pinned {PINNED[name]} (tolerance {TOLERANCE}) on the sample corpus. "
        "If the change is intended, update PINNED in tests/lab/evaluate/test_eval.py from "
        "RATIO_PRINT_PINNED=1 pytest tests/lab/evaluate/test_eval.py -k pinned -s, and say why in the commit.")


def test_filter_safety_counts_what_filter_mode_cannot_return(runner: Runner) -> None:
    reasoning = [Query("Q1", "reasoning on detention of a foreigner under the Foreigners (Internment) Order"),
                 Query("Q2", "ratio of the decision on a public servant who dishonestly misappropriated property"),
                 Query("Q3", "detention of a foreigner")]  # no role in its intent: not counted
    safety = filter_safety(runner.searcher, reasoning, {**QRELS, "Q3": {"C1": 1}})
    assert safety["relevant"] == 2 and safety["queries"] == 2
    assert safety["per_query"]["Q1"]["roles"] == ["ratio", "analysis"]
    assert 0 <= safety["unreachable"] <= safety["lexical"] <= 2
    assert safety["no_match"] <= safety["lexical"]
    assert set(safety["per_query"]) == {"Q1", "Q2"}
    counts = runner.searcher.client.search(index=runner.searcher.aliases["chunks"], body={
        "size": 0, "query": {"bool": {"filter": [{"term": {"judgment_id": "C1"}},
                                                 {"terms": {"role": ["ratio", "analysis"]}}]}}})
    has_reasoning = counts["hits"]["total"]["value"] > 0
    assert safety["per_query"]["Q1"]["unreachable"] == (0 if has_reasoning else 1)


def test_eval_command_writes_the_report(opensearch_settings, aliases, tmp_path) -> None:
    from ratio.cli import cli

    queries = tmp_path / "queries.txt"
    queries.write_text("".join(f"{q.qid}||{q.text}\n" for q in QUERIES) + "Q3||no judgments for this one\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{qid} Q0 {doc} {rel}\n" for qid, docs in QRELS.items() for doc, rel in docs.items()))
    prefix = aliases["chunks"].removesuffix("-chunks")
    args = ["--url", opensearch_settings.url, "--prefix", prefix, "eval", "run", "aila-precedents", "--queries",
            str(queries), "--qrels", str(qrels), "--config", "bm25", "--config", "hybrid", "--out",
            str(tmp_path / "report"), "--candidates", "200"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert (tmp_path / "report" / "per_query_ap.png").read_bytes()[:4] == b"\x89PNG"
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "| bm25 (baseline) |" in markdown and "| hybrid |" in markdown
    assert "skipped without relevance judgments: Q3" in markdown
    assert "Filter safety" in markdown and json.dumps(report)
    assert set(report["configurations"][0]["per_query"]) == {"Q1", "Q2"}
    base = args[:args.index("--config")]
    half = CliRunner().invoke(cli, [*base, "--half", "even", "--config", "bm25", "--config", "bm25", "--out",
                                    str(tmp_path / "h")])
    assert half.exit_code == 0, half.output
    even = json.loads((tmp_path / "h" / "report.json").read_text())
    assert set(even["configurations"][0]["per_query"]) == {"Q2"}  # the even half alone, scored alone
    statutes = CliRunner().invoke(cli, [*base, "--config", "bm25", "--config", "provisions", "--out",
                                        str(tmp_path / "x")])
    assert statutes.exit_code != 0 and "ranks judgments" in statutes.output


def test_labelled_rerankers_compare_blend_weights_in_one_report(opensearch_settings, aliases, tmp_path) -> None:
    """``hybrid_rerank:LABEL`` per ``--labelled-reranker``; weight 0 is the plain hybrid order."""
    from ratio.cli import cli

    queries = tmp_path / "queries.txt"
    queries.write_text("".join(f"{q.qid}||{q.text}\n" for q in QUERIES))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{qid} Q0 {doc} {rel}\n" for qid, docs in QRELS.items() for doc, rel in docs.items()))
    prefix = aliases["chunks"].removesuffix("-chunks")
    base = ["--url", opensearch_settings.url, "--prefix", prefix, "eval", "run", "aila-precedents", "--queries",
            str(queries), "--qrels", str(qrels), "--candidates", "200"]
    args = [*base, "--labelled-reranker", "off=bi-encoder@0", "--labelled-reranker", "half=bi-encoder@0.5",
            "--config", "hybrid", "--config", "hybrid_rerank:off", "--config", "hybrid_rerank:half",
            "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    by_name = {c["name"]: c for c in report["configurations"]}
    assert by_name["hybrid_rerank:off"]["per_query"] == by_name["hybrid"]["per_query"]
    assert "reranker weight 0.5" in (tmp_path / "r" / "report.md").read_text()
    for bad, why in (("nolabel", "LABEL=SPEC"), ("x=bi-encoder@2", "between 0 and 1"),
                     ("x=/no/such/folder", "not a model folder")):
        refused = CliRunner().invoke(cli, [*base, "--labelled-reranker", bad, "--config", "hybrid",
                                           "--out", str(tmp_path / "bad")])
        assert refused.exit_code != 0 and why in refused.output
    unknown = CliRunner().invoke(cli, [*base, "--config", "hybrid_rerank:none", "--out", str(tmp_path / "u")])
    assert unknown.exit_code != 0 and "names no reranker" in unknown.output
    # a baseline not among the --config ones is run too (it used to fail after every configuration had run)
    compared = CliRunner().invoke(cli, [*base, "--config", "summary_bm25", "--baseline", "fulltext_bm25", "--limit",
                                        "1", "--out", str(tmp_path / "b")])
    assert compared.exit_code == 0, compared.output
    names = [c["name"] for c in json.loads((tmp_path / "b" / "report.json").read_text())["configurations"]]
    assert names == ["fulltext_bm25", "summary_bm25"]



def test_provision_selection_is_scored_as_sets(client: OpenSearch, aliases, encoder) -> None:
    from lab.evaluate.provision_qa import markdown, run_method

    queries = [Query("Q1", "Whoever commits murder shall be punished with death or imprisonment for life"),
               Query("Q2", "a demand for dowry from the parents of the bride, directly or indirectly")]
    qrels = {"Q1": {"S2": 1}, "Q2": {"S124": 1, "S3": 1}}
    result = run_method("retrieval_top3", queries, qrels, llm=None, client=client, index=aliases["provisions"],
                        reranker=BiEncoderRescorer(encoder))
    assert all(len(chosen) == 3 for chosen in result.selected.values())
    assert result.selected["Q1"][0] == "S2" and "S124" in result.selected["Q2"]
    q1 = result.evaluation.per_query["Q1"]
    assert q1["SetP"] == pytest.approx(1 / 3) and q1["SetR"] == 1.0 and q1["SetF"] == pytest.approx(0.5)
    assert len(result.seconds) == 2 and "| retrieval_top3 |" in markdown([result], {"command": "test"})
    with pytest.raises(ValueError, match="needs an LLM"):
        run_method("parametric", queries, qrels, llm=None, client=client, index=aliases["provisions"], reranker=None)
