"""The tuned facts encoder as the ranker reads it (``ratio train facts-encoder``, ``search.ranking.tuned``): its
vectors written into a corpus's indices, the ranker's ``tuned`` features equal to the cosines the encoder gives,
a judgment without facts missing them, the tuning seeded (the same pairs give the same weights), and training
queries taking the encoder of the half that never saw their judgment's pairs.

The corpus is six sample judgments indexed into indices of their own (the session's sample corpus stays without
tuned vectors, so no other test's ranking depends on this one). The sample judgments cite none of each other, so
the command refuses to tune on them, saying why; the vectors come from ``--fill-only`` with two real MiniLM
encoders (untuned: what is checked is that the index, the requests and the features agree with the encoder)."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from backends.opensearch.indices import IndexLayout
from lab.training.facts_encoder import (
    FactsCorpus,
    corpus_facts,
    facts_text,
    half_of_query,
    halves_of,
    pairs_of,
    tune,
)
from ratio.cli import cli
from search.ranking.tuned import SERVING

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "aila-2019" / "judgments"


@pytest.fixture(scope="module")
def corpus(client, encoder, embedding_cache, tmp_path_factory) -> dict[str, str]:
    """Six sample judgments in indices of their own."""
    import mappings
    from backends.opensearch import create_indices
    from indexer.loaders import load
    from indexer.pipeline import Pipeline
    from indexer.roles.labeller import RoleLabeller
    from indexer.writer import IndexWriter

    folder = tmp_path_factory.mktemp("six")
    names = sorted(p.stem for p in SAMPLES.glob("*.txt"))[:6]
    for name in names:
        shutil.copy(SAMPLES / f"{name}.txt", folder / f"{name}.txt")
    layout = IndexLayout(f"ratio-test-facts-{uuid.uuid4().hex[:8]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    labeller = RoleLabeller.load(encoder, cache_dir=embedding_cache)
    report = IndexWriter(client, layout.aliases(), Pipeline(labeller)).run(load([str(folder)]))
    assert report.failed == [] and report.judgments_indexed == 6
    yield layout.aliases()
    client.indices.delete(index=f"{layout.prefix}-*")


@pytest.fixture(scope="module")
def minilm256():
    """MiniLM reading 256 tokens a text, as the tuned encoders do (its own copy: the session's stays as it is)."""
    from backends.encoders import load_encoder

    model = load_encoder()
    model.max_seq_length = 256
    return model


@pytest.fixture(scope="module")
def filled(client, corpus, minilm256, opensearch_settings, shared_data, tmp_path_factory) -> Path:
    """The corpus filled with two real MiniLM encoders as halves ``a`` and ``b`` (``--fill-only``)."""
    out = tmp_path_factory.mktemp("facts-encoder")
    for half in ("a", "b"):
        minilm256.save(str(out / half), create_model_card=False)
    (out / "facts-encoder.json").write_text(json.dumps({"half_of": {}}), encoding="utf-8")
    prefix = corpus["judgments"].removesuffix("-judgments")
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", prefix, "train", "facts-encoder",
                                      "--data", str(shared_data), "--out", str(out), "--fill-only"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)[prefix]
    assert report["failed"] == 0 and report["judgments"] >= 4 and report["written"] == report["chunks"] + report[
        "judgments"]
    from backends.opensearch.indices import deleted_documents

    assert "deleted_merged_chunks" in report  # each update's old version, merged away: BM25 is as before
    assert deleted_documents(client, corpus["chunks"]) == 0 and deleted_documents(client, corpus["judgments"]) == 0
    return out


def test_without_citation_pairs_the_command_says_why(corpus, opensearch_settings, shared_data, tmp_path) -> None:
    prefix = corpus["judgments"].removesuffix("-judgments")
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", prefix, "train", "facts-encoder",
                                      "--data", str(shared_data), "--out", str(tmp_path / "enc")])
    assert result.exit_code == 1 and "no citation pairs" in result.output
    assert not (tmp_path / "enc" / "a").exists()


def test_the_tuned_features_are_the_encoders_cosines(client, corpus, filled, encoder, minilm256) -> None:
    """A query that is one judgment's facts text: that judgment's facts-text feature is 1 (the same text), and
    every candidate's three features are the cosines the encoder gives for its facts text, best facts chunk and
    mean facts chunk; a candidate without facts chunks has none."""
    from ratio.encoders import tuned_encoder, tuned_encoders
    from search.execute import Searcher

    tuned = tuned_encoder(client, corpus)
    assert tuned is not None
    encoders, half_of = tuned_encoders(client, corpus)
    assert sorted(encoders) == ["a", "b"] and half_of == {}
    searcher = Searcher(client, corpus, encoder, tuned=tuned)
    facts = corpus_facts(client, corpus["judgments"].removesuffix("-judgments"))
    source = sorted(facts.chunks)[0]
    text = facts.facts(source)
    query = searcher.tuned_query(text)
    assert query is not None and query.half == SERVING
    ranker = searcher.ranker
    assert ranker is not None
    _, candidates, matrix, _ = ranker.matrix(text, tuned=query)
    assert source in candidates.ids
    q = np.asarray(query.vector)
    columns = {name: matrix.column(name) for name in ("tuned_facts_text", "tuned_facts_best", "tuned_facts_mean")}
    checked = 0
    for row, judgment in enumerate(matrix.ids):
        if judgment not in facts.chunks:
            assert all(np.isnan(c[row]) for c in columns.values())
            continue
        chunks = minilm256.encode([t for _, t in facts.chunks[judgment]], normalize_embeddings=True)
        whole = minilm256.encode([facts.facts(judgment)], normalize_embeddings=True)[0]
        mean = chunks.sum(axis=0) / np.linalg.norm(chunks.sum(axis=0))
        assert columns["tuned_facts_text"][row] == pytest.approx(float(whole @ q), abs=2e-3)
        assert columns["tuned_facts_best"][row] == pytest.approx(float(np.max(chunks @ q)), abs=2e-3)
        assert columns["tuned_facts_mean"][row] == pytest.approx(float(mean @ q), abs=2e-3)
        checked += 1
    assert checked >= 2
    assert columns["tuned_facts_text"][matrix.ids.index(source)] == pytest.approx(1.0, abs=2e-3)


def test_a_model_that_reads_no_tuned_feature_costs_no_transformer_pass(client, corpus, filled, encoder) -> None:
    """The shipped model reads none of the tuned features (docs/evaluation.md: the model trained with them lost
    IRLeD's reported documents), so a search with the encoder at hand neither embeds the query again nor asks for
    them; a model that reads one gets the query's vector under the serving half."""
    from dataclasses import replace

    from ratio.encoders import tuned_encoder
    from search.execute import Searcher
    from search.query.request import SearchRequest

    searcher = Searcher(client, corpus, encoder, tuned=tuned_encoder(client, corpus))
    shipped = searcher.ranker.model  # type: ignore[union-attr]
    assert shipped is not None and not shipped.reads("tuned")
    assert searcher.tuned_query("the appellant was convicted", shipped) is None
    ranking, _ = searcher.ranking(SearchRequest.from_query("appellant accused evidence"))
    assert ranking is not None and ranking.judgments
    assert all(np.isnan(j.features["tuned_facts_text"]) for j in ranking.judgments)
    reading = replace(shipped, features=(*shipped.features, "tuned_facts_text"))
    assert reading.reads("tuned") and searcher.tuned_query("the appellant", reading).half == SERVING


def test_shown_chunks_leave_the_tuned_vectors_out(client, corpus, filled, encoder) -> None:
    """A page's passage requests do not read the tuned vectors (768 floats per facts chunk) back."""
    from search.query.request import SearchRequest
    from search.ranking import serve

    ids = [h["_id"] for h in client.search(index=corpus["judgments"], body={"size": 6})["hits"]["hits"]]
    vector = encoder.encode(["the appellant was convicted"], normalize_embeddings=True)[0].tolist()
    request = SearchRequest.from_query("appellant accused evidence")
    sources = []
    for body in serve.passage_requests(request, ids, vector):
        for hit in client.search(index=corpus["chunks"], body=body)["hits"]["hits"]:
            sources += [h["_source"] for h in hit.get("inner_hits", {}).get("passages", {}).get("hits", {}).get(
                "hits", [])] or [hit.get("_source") or {}]
    assert sources and all("text" in s for s in sources)
    assert not [key for s in sources for key in s if key.startswith("tuned_") or key == "vector"]


def test_pairs_halves_and_queries_cross_fit() -> None:
    """Pairs need facts on both sides and no guarded holder; the halves are seeded; a mined query takes its
    judgment's half, a labelled one the serving half."""
    words = " ".join(f"w{i}" for i in range(100))
    corpus = FactsCorpus("c", {"J1": (("J1:0", words),), "J2": (("J2:0", words),), "J3": (("J3:0", "short"),),
                               "J4": (("J4:0", words),)},
                         {"J1": ("J2", "J3"), "J2": ("J1",), "J4": ("J1",)})
    pairs = pairs_of([corpus], {})
    assert [(k, c == words) for k, _, c in pairs] == [("c:J1", True), ("c:J2", True), ("c:J4", True)]
    assert [k for k, _, _ in pairs_of([corpus], {"c": {"J4"}})] == ["c:J1", "c:J2"]
    halves = halves_of(pairs)
    assert halves == halves_of(pairs) and sorted(set(halves.values())) == ["a", "b"]
    assert half_of_query("c:facts:J4", halves) == halves["c:J4"]
    assert half_of_query("c:typed:title-3:J1", halves) == halves["c:J1"]
    assert half_of_query("AILA_Q3#2", halves) == SERVING
    assert facts_text(["See (2001) 3 SCC 12 for the facts."]) == "See for the facts."


def test_tuning_is_seeded(tmp_path: Path) -> None:
    """The same pairs and seed give the same weights, byte for byte."""
    texts = [" ".join(f"fact{i} word{j}" for j in range(40)) for i in range(8)]
    pairs = [(f"c:J{i}", texts[i], texts[(i + 1) % 8]) for i in range(8)]
    first = tune(pairs, tmp_path / "one", log=lambda _: None)
    tune(pairs, tmp_path / "two", log=lambda _: None)
    assert first["steps"] == 1
    weights = [(tmp_path / run / "model.safetensors").read_bytes() for run in ("one", "two")]
    assert weights[0] == weights[1]


def test_a_group_without_any_value_is_left_out_of_a_model() -> None:
    """Trained on indices the facts encoder never filled, the tuned group is missing everywhere: the model leaves
    it out (and so trains what it trained before the group existed); one value anywhere keeps it."""
    from lab.training.ranker import Dataset, absent_groups
    from search.ranking.groups import FEATURES

    tuned = [FEATURES.index(f) for f in FEATURES if f.startswith("tuned_")]
    values = np.zeros((3, len(FEATURES)), dtype=np.float32)
    values[:, tuned] = np.nan
    data = Dataset(["q1"], ["mined-facts"], [("C1", "C2", "C3")], [values], [np.array([1, 0, 0], dtype=np.int32)])
    assert absent_groups(data) == ("tuned",)
    values[1, tuned[0]] = 0.5
    assert absent_groups(data) == ()
