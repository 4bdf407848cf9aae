"""The learned ranker end to end on the real node: mining on real judgments, reproducible training, the shipped
model, and search through it (what the user asks for exactly holds for every hit; the fallback says why)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from opensearchpy import OpenSearch

from lab.evaluate.systems import Runner
from lab.training.ranker import Dataset, RankerParams, fit, save_model
from lab.training.ranker_build import CorpusSpec, build_dataset
from lab.training.ranker_data import mine_queries
from legal.citations import canonical_case_name, extract_citations
from search.graph.citation_graph import load_graph
from search.query.request import SearchRequest
from search.ranking.features import FEATURES
from search.ranking.model import RankerModel, default_typed_model_path
from search.ranking.query import CITATION_MASK
from tests.search.ranking.corpora import static_corpus

AILA = "aila-2019/Object_casedocs"
CITING, CITED, OTHER = "C1", "C949", "C51"  # C1 cites "Pritam Singh v State (Delhi Administration)" (C949)


@pytest.fixture(scope="module")
def real_corpus(client: OpenSearch, shared_data: Path, static_encoder, tmp_path_factory):
    """Three real AILA judgments, one citing another, indexed by the default (static) pipeline."""
    folder = tmp_path_factory.mktemp("aila3")
    for name in (CITING, CITED, OTHER):
        (folder / f"{name}.txt").write_bytes((shared_data / AILA / f"{name}.txt").read_bytes())
    with static_corpus(client, static_encoder, folder, 3) as aliases:
        yield aliases


def test_mined_queries_hide_the_citation_they_are_labelled_with(client: OpenSearch, real_corpus) -> None:
    graph = load_graph(client, real_corpus["judgments"], by_parties=False)  # as training builds it
    assert graph.cites.get(CITING) == (CITED,)
    mined = mine_queries(client, real_corpus, graph, "t", count=1, min_facts_words=20)
    document = next(q for q in mined if q.source == "mined-document")
    assert document.relevant == {CITED} and document.exclude == (CITING,)
    title = client.get(index=real_corpus["judgments"], id=CITED)["_source"]["title"]
    name = canonical_case_name(title)
    assert name and CITATION_MASK in document.text
    found = {c.normalized for c in extract_citations(document.text, kinds={"judgment", "case_name"})}
    assert name not in found and "Pritam Singh v" not in document.text  # the full citation is masked
    # the short form stays, as in FIRE IRLeD's own queries ("Pritam Singh's case [?CITATION?] (supra)")
    for query in mined:
        assert not ({c.normalized for c in extract_citations(query.text, kinds={"judgment", "case_name"})}
                    & {name})


def test_training_is_reproducible_by_seed(client: OpenSearch, real_corpus, static_encoder, tmp_path: Path) -> None:
    spec = CorpusSpec("t", real_corpus, static_encoder)
    dataset = build_dataset(client, [spec], mined_per_style=1, guarded=[], seed=3).dataset
    assert dataset.qids and all(v.shape[1] == len(FEATURES) for v in dataset.values)
    # a tiny corpus gives a handful of rows: repeat the queries so LightGBM has enough to split on
    big = Dataset()
    for _ in range(12):
        big.extend(dataset)
    params = RankerParams(trees=20, min_data_in_leaf=2, leaves=4, seed=5, early_stopping=5)
    first = fit(big, params, valid_share=0.0)
    second = fit(big, params, valid_share=0.0)
    assert first[0].model_to_string() == second[0].model_to_string()
    folder = save_model(tmp_path / "m", first[0], first[1], name="tiny", data={}, params=params, metrics=first[2])
    model = RankerModel.load(folder)
    assert model.features == first[1] and model.card["params"]["seed"] == 5
    dataset.save(tmp_path / "d.npz")
    again = Dataset.load(tmp_path / "d.npz")
    assert again.qids == dataset.qids and all(np.array_equal(a, b, equal_nan=True)
                                              for a, b in zip(again.values, dataset.values, strict=True))


def test_the_shipped_model_loads_offline() -> None:
    """In a fresh interpreter with the model hubs and the network off: the shipped model is in the package."""
    code = ("from search.ranking.model import RankerModel; m = RankerModel.load('default'); "
            "import numpy as np; from search.ranking.features import FEATURES; "
            "print(len(m.features), m.score(np.zeros((2, len(FEATURES)), dtype=np.float32)).shape)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "NO_PROXY": "*",
           "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                         cwd=Path(__file__).resolve().parents[3])
    assert out.returncode == 0, out.stderr
    count, shape = out.stdout.split(" ", 1)
    assert int(count) > 10 and shape.strip() == "(2,)"


# ---------------------------------------------------------------- search through the ranker (sample corpus)


def test_search_is_ranked_by_the_shipped_model(ratio_client) -> None:
    result = ratio_client.search("murder conviction appeal evidence", explain=True)
    assert result.ranking.startswith("ranker:") and result.ranking_note is None and result.hits
    scores = [hit.score for hit in result.hits]
    assert scores == sorted(scores, reverse=True)
    assert all(hit.passages for hit in result.hits)
    assert result.hits[0].explanation is not None and result.hits[0].explanation.evidence


def test_typed_queries_and_pasted_texts_are_ranked_by_their_own_models(ratio_client) -> None:
    """The shipped typed model ranks typed topic words and names, the main model a provision and a pasted text
    (search.ranking.model.TYPED_KINDS); the result names the model that ranked it."""
    main, typed = RankerModel.load().name, RankerModel.load(default_typed_model_path()).name
    assert main != typed
    topic = ratio_client.search("murder conviction appeal evidence")
    assert topic.ranking == f"ranker:{typed}" and topic.hits
    name = ratio_client.search("Masud Khan v State Of Uttar Pradesh")  # a sample's title
    assert name.ranking == f"ranker:{typed}" and name.hits[0].judgment_id == "C1"
    assert ratio_client.search("section 302 IPC").ranking == f"ranker:{main}"
    text = ratio_client.record(topic.hits[0].judgment_id).text
    pasted = ratio_client.search(" ".join(text.split()[:300]))
    assert pasted.ranking == f"ranker:{main}" and pasted.hits


def test_phrases_and_exclusions_hold_for_every_ranked_hit(ratio_client) -> None:
    """A quoted phrase and a -word constrain every candidate source, so every hit's text has the phrase and
    lacks the word (checked on the stored text)."""
    result = ratio_client.search('"high court" appeal -dowry', size=20)
    assert result.ranking.startswith("ranker:") and result.hits
    for hit in result.hits:
        text = ratio_client.record(hit.judgment_id).text.lower()
        assert "high court" in " ".join(text.split()) and "dowry" not in text


def test_no_match_is_an_answer(ratio_client) -> None:
    result = ratio_client.search('"zqxj unheard of phrase"')
    assert result.hits == [] and result.judgments_found == 0


def test_fallback_says_why(ratio_client) -> None:
    result = ratio_client.search("court:Supreme")  # filter-only: nothing to rank by, so every match newest first
    assert result.ranking == "sorted:newest" and "no words to rank by" in (result.ranking_note or "")
    asked = ratio_client.search("murder appeal", ranking="fusion")
    assert asked.ranking == "fusion" and asked.ranking_note == "fusion was asked for"


def test_eval_default_is_exactly_what_search_does(ratio_client) -> None:
    text = "The appellant was convicted of murder on circumstantial evidence; the appeal challenges the conviction."
    runner = Runner(ratio_client.searcher)
    ranked = runner.rank("default", text)
    page = ratio_client.search(text, size=10)
    assert ranked[:10] == [hit.judgment_id for hit in page.hits]
    document = ratio_client.search_by_document(text, size=5)
    assert [h.judgment_id for h in document.hits] == runner.rank("default_document", text)[:5]
    assert ratio_client.rank_document(text, size=5) == runner.rank("default_document", text)[:5]


def test_search_request_rejects_an_unknown_ranking() -> None:
    with pytest.raises(ValueError, match="ranker, fusion"):
        SearchRequest.from_query("murder", ranking="neural")


def test_a_judgment_holding_a_benchmark_query_is_never_a_query_label_or_candidate(
        client: OpenSearch, real_corpus, static_encoder) -> None:
    """A corpus judgment holding a guarded query (here C949 holds a 300-word stretch of itself, as C113 holds
    AILA_Q21) is kept out of mining, of every label and of every candidate list; C1's mined queries, labelled
    with C949 alone, are left without a label and dropped, and the record says so."""
    text = client.get(index=real_corpus["judgments"], id=CITED)["_source"]["text"]
    guarded = {"bench:Q1": " ".join(text.split()[100:400])}
    built = build_dataset(client, [CorpusSpec("t", real_corpus, static_encoder)], mined_per_style=1,
                          guarded=guarded, seed=3)
    assert built.holders == {"t": {CITED: "bench:Q1"}}
    assert built.unlabelled["mined-document"] == 1 and not built.dataset.qids
    assert all(CITED not in q.relevant and CITED in q.exclude for q in built.queries)
    manifest = built.manifest()
    assert {row["status"] for row in manifest["queries"] if row["source"] == "mined-document"} == {
        "every relevant judgment holds a benchmark query"}
    excluded = manifest["excluded"]
    assert excluded["judgments_holding_a_benchmark_query"] == {"t": {CITED: "bench:Q1"}}
    assert excluded["guarded_benchmark_queries"] == 1


def test_two_stages_rescore_the_first_stages_best(ratio_client) -> None:
    """With ``rescore`` N for the query's kind, the best N by the first stage's features get the rest and are ranked
    first; the others keep the first stage's order below them, their second-stage features missing. With N at
    least the candidates, the ranking is the one-stage ranking."""
    from dataclasses import replace

    from search.ranking.features import FeatureSettings
    from search.ranking.groups import FIRST_STAGE, SECOND_STAGE
    from search.ranking.rank import Ranker

    shipped = ratio_client.searcher.ranker
    assert shipped is not None
    text = "murder conviction appeal evidence"
    kind = shipped.rank(text).profile.understanding.kind.value
    ranker = Ranker(shipped.features.client, shipped.features.aliases, shipped.model,
                    settings=replace(FeatureSettings(), rescore=((kind, 3),)), graph=shipped.features.graph,
                    typed=shipped.typed)
    one = shipped.rank(text)
    two = ranker.rank(text)
    assert one.candidates == two.candidates > 3 and "second_stage" in two.times
    assert {j.judgment_id for j in one.judgments} == {j.judgment_id for j in two.judgments}
    scores = [j.score for j in two.judgments]
    assert scores == sorted(scores, reverse=True)
    # the first three are the first stage's best three
    query, candidates = ranker._profiled(text, None, (), (), {})
    first = ranker.features.features(query, candidates, groups=FIRST_STAGE)
    early = ranker.model_for(kind).score(first.values)
    best = {first.ids[i] for i in np.argsort(-early, kind="stable")[:3]}
    assert {j.judgment_id for j in two.judgments[:3]} == best
    later = [name for group in SECOND_STAGE for name in group.features]
    assert all(np.isnan(j.features[name]) for j in two.judgments[3:] for name in later)
    assert any(not np.isnan(j.features[name]) for j in two.judgments[:3] for name in later)
    rest = [j.judgment_id for j in two.judgments[3:]]
    assert rest == [first.ids[i] for i in np.argsort(-early, kind="stable")[3:]]
    wide = Ranker(shipped.features.client, shipped.features.aliases, shipped.model,
                  settings=replace(FeatureSettings(), rescore=((kind, one.candidates),)), graph=shipped.features.graph,
                  typed=shipped.typed)
    assert [j.judgment_id for j in wide.rank(text).judgments] == [j.judgment_id for j in one.judgments]
