"""Training Ratio's reranker and bi-encoder on a tiny real index: mining, the split, a few steps, offline loading.

Four AILA sample judgments are indexed: C9 and C182 are relevant to training-half queries (AILA_Q1, AILA_Q4),
C1 and C152 to reported-half queries (AILA_Q3, AILA_Q6), so mining that reached for a reported query would
have something to find, and the tests would see it.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import uuid
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import mappings
from backends.encoders import load_encoder
from backends.opensearch import IndexLayout, create_indices
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from lab.evaluate import judged, read_qrels, read_queries
from lab.training import (
    TrainOptions,
    mine_qrels_groups,
    mine_self_groups,
    split,
    train_reranker,
    training_queries,
    write_card,
)
from lab.training.train import reranker_examples
from ratio.cli import cli
from search.retrieval.rerank import CrossEncoderReranker

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "aila-2019" / "judgments"
INDEXED = ("C9", "C182", "C1", "C152")
TINY = TrainOptions(steps=2, batch_size=4, max_length=128)


@pytest.fixture(scope="module")
def tiny(client, encoder, tmp_path_factory) -> dict[str, str]:
    """Aliases of a fresh index holding the four sample judgments (deleted afterwards)."""
    folder = tmp_path_factory.mktemp("judgments")
    for name in INDEXED:
        shutil.copy(SAMPLES / f"{name}.txt", folder / f"{name}.txt")
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    aliases = layout.aliases()
    labeller = RoleLabeller.load(encoder, cache_dir=tmp_path_factory.mktemp("embeddings"))
    report = IndexWriter(client, aliases, Pipeline(labeller)).run(load([str(folder)]))
    assert report.failed == [] and report.judgments_indexed == len(INDEXED)
    client.indices.refresh(index=f"{layout.prefix}-*")
    yield aliases
    client.indices.delete(index=f"{layout.prefix}-*")


@pytest.fixture(scope="module")
def aila(shared_data: Path):
    data = shared_data / "aila-2019"
    return read_queries(data / "Query_doc.txt"), read_qrels(data / "relevance_judgments_priorcases.txt")


def test_training_queries_are_the_tuning_half_only(aila) -> None:
    queries, qrels = aila
    kept, _ = judged(queries, qrels)
    chosen = [q.qid for q in training_queries(queries, qrels)]
    assert chosen[:4] == ["AILA_Q1", "AILA_Q4", "AILA_Q7", "AILA_Q11"]
    assert chosen == [q.qid for q in kept[0::2]]
    assert not set(chosen) & {q.qid for q in kept[1::2]}  # the half ratio eval reports
    with pytest.raises(ValueError):
        training_queries(queries, qrels, half="all")


def test_qrels_groups_never_use_a_reported_query(client, tiny, aila) -> None:
    queries, qrels = aila
    groups = mine_qrels_groups(client, tiny["chunks"], training_queries(queries, qrels), qrels, negatives=2)
    assert sorted(g.source for g in groups) == ["qrels:AILA_Q1:C9", "qrels:AILA_Q4:C182"]
    reported = {q.qid: q.text for q in judged(queries, qrels)[0][1::2]}
    for group in groups:
        assert not any(group.query.split()[:30] == text.split()[:30] for text in reported.values())
        qid, judgment = group.source.split(":")[1:]
        assert [p.judgment_id for p in group.positives] == [judgment]
        relevant = {doc for doc, rel in qrels[qid].items() if rel > 0}
        assert group.negatives and not {n.judgment_id for n in group.negatives} & relevant
    # The same call given every judged query would reach the reported ones: the filter above is what stops it.
    everything = mine_qrels_groups(client, tiny["chunks"], judged(queries, qrels)[0], qrels, negatives=2)
    assert {"qrels:AILA_Q3:C1", "qrels:AILA_Q6:C152"} <= {g.source for g in everything}


def test_self_groups_are_seeded_and_point_at_their_own_reasoning(client, tiny) -> None:
    first = mine_self_groups(client, tiny["chunks"], tiny["judgments"], 3, seed=5, negatives=2)
    again = mine_self_groups(client, tiny["chunks"], tiny["judgments"], 3, seed=5, negatives=2)
    assert first == again and 1 <= len(first) <= 3
    for group in first:
        own = group.source.removeprefix("self:")
        assert own in INDEXED
        assert all(p.judgment_id == own and p.role in ("ratio", "analysis") for p in group.positives)
        assert all(n.judgment_id != own for n in group.negatives)
    excluded = mine_self_groups(client, tiny["chunks"], tiny["judgments"], 4, seed=5, exclude=INDEXED[:3])
    assert {g.source for g in excluded} <= {f"self:{INDEXED[3]}"}


def test_split_holds_out_whole_queries(client, tiny, aila) -> None:
    queries, qrels = aila
    groups = mine_qrels_groups(client, tiny["chunks"], training_queries(queries, qrels), qrels, negatives=2)
    groups += mine_self_groups(client, tiny["chunks"], tiny["judgments"], 4, negatives=2)
    pairs = split(groups, 0.25, seed=3)
    assert pairs.validation and pairs.train
    assert not {g.query for g in pairs.train} & {g.query for g in pairs.validation}
    assert split(groups, 0.25, seed=3) == pairs
    assert len(pairs.train) + len(pairs.validation) == len(groups)


def test_trained_reranker_loads_offline_by_path_and_scores(client, tiny, aila, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    queries, qrels = aila
    groups = mine_qrels_groups(client, tiny["chunks"], training_queries(queries, qrels), qrels, negatives=2)
    groups += mine_self_groups(client, tiny["chunks"], tiny["judgments"], 4, negatives=2)
    pairs = split(groups, 0.25, seed=3)
    out = tmp_path / "reranker"
    steps: list[tuple[int, int, float]] = []
    result = train_reranker(pairs, out, TINY, progress=lambda *row: steps.append(row))
    assert [s[:2] for s in steps] == [(1, 2), (2, 2)] and all(math.isfinite(s[2]) for s in steps)
    assert result.examples == len(reranker_examples(pairs.train)) and result.steps == 2
    assert set(result.before) == set(result.after) == {"MRR", "nDCG@10", "P@1", "groups"}
    assert result.after["groups"] == len(pairs.validation)

    card = write_card(result, pairs, {"qrels": "AILA odd half"})
    text = card.read_text()
    assert "BCEWithLogitsLoss" in text and f"examples: {result.examples}; steps: 2; batch size: 4" in text
    assert f"| after training | {result.after['MRR']:.4f} |" in text
    for kind, metrics in result.by_kind["after"].items():
        assert f"| after training, {kind} queries only | {metrics['MRR']:.4f} |" in text
    record = json.loads((out / "training.json").read_text())
    assert record["steps"] == 2 and record["counts"]["train positives"] == sum(len(g.positives) for g in pairs.train)

    reranker = CrossEncoderReranker(str(out))
    assert reranker.model.num_labels == 1
    group = pairs.train[0]
    passages = [group.positives[0].text, group.negatives[0].text, "unrelated words about cricket"]
    scores = reranker.score(group.query, passages)
    assert len(scores) == 3 and all(math.isfinite(s) for s in scores) and len(set(scores)) == 3
    assert scores == pytest.approx(CrossEncoderReranker(str(out)).score(group.query, passages))


def test_cli_trains_an_embedder_usable_as_the_encoder(opensearch_settings, tiny, shared_data, encoder,
                                                      tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    prefix = tiny["chunks"].removesuffix("-chunks")
    out = tmp_path / "embedder"
    args = ["--url", opensearch_settings.url, "--prefix", prefix, "train", "embedder", "--pairs", "6",
            "--negatives", "2", "--steps", "2", "--batch-size", "4", "--max-length", "128", "--validation", "0.3",
            "--data", str(shared_data), "--out", str(out), "--threads", "1"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "after" in result.output and f"model: {out}" in result.output
    card = (out / "README.md").read_text()
    assert "MultipleNegativesRankingLoss" in card and "AILA_Q1, AILA_Q4" in card and "citation-context" in card
    assert not re.search(r"AILA_Q(3|6|8)\b", card)  # reported-half queries
    record = json.loads((out / "training.json").read_text())
    assert record["steps"] == 2 and record["counts"]["train groups (qrels)"] >= 1

    model = load_encoder(str(out))
    texts = ["Whether the conviction under section 302 IPC can be sustained", "The appeal is dismissed."]
    vectors = np.asarray(model.encode(texts, normalize_embeddings=True))
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-4)
    assert not np.allclose(vectors, np.asarray(encoder.encode(texts, normalize_embeddings=True)), atol=1e-4)

    again = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert again.exit_code != 0 and "not empty" in again.output
    missing = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "other"), "--corpus", "no-such-corpus"])
    assert missing.exit_code != 0 and "no index no-such-corpus-judgments" in missing.output


def test_attribution_scores_the_passage_the_answer_rests_on(small_gguf) -> None:
    from lab.training.attribution import AnswerLikelihood, attribute

    model = AnswerLikelihood(small_gguf, threads=1, context=1024)
    question = ("Whether the accused can be convicted under section 302 read with section 34 IPC without a "
                "separate charge under section 34?")
    passages = ["The Madurai Bench was not right in quashing the Government Order on relaxation of marks in the "
                "Teacher Eligibility Test.",
                "The absence of a specific charge under S. 34 I.P.C. caused no prejudice to the appellants, as the "
                "facts giving rise to constructive criminal liability were well known to them, so they are liable "
                "to be convicted u/s. 302 read with S. 34.",
                "The appellant was appointed as an officer in Grade III in the respondent Bank in 1961."]
    result = attribute(model, question, passages)
    assert result.answer
    assert result.scaled[1] == 1.0 and max(result.scaled[0], result.scaled[2]) < 0.5, result
    prompt = model.prompt(question, passages)
    # The prefix cache must not change a likelihood: the same call after another prompt gives the same value.
    first = model.loglikelihood(prompt, result.answer)
    model.loglikelihood(model.prompt(question, passages[:1]), result.answer)
    assert model.loglikelihood(prompt, result.answer) == pytest.approx(first, abs=1e-3)


def test_torch_scorer_batches_without_changing_a_likelihood_and_agrees_with_llama(small_gguf) -> None:
    """The batched torch scorer (the GPU path, run here on the CPU) gives the unbatched values, and the same
    attribution as llama.cpp within quantisation noise."""
    from lab.training.attribution import AnswerLikelihood, attribute
    from lab.training.attribution_torch import TorchAnswerLikelihood

    question = "Is a dying declaration enough to convict without corroboration?"
    passages = ["A dying declaration, if true and voluntary, can be the sole basis of a conviction.",
                "The tenant was evicted for non-payment of rent.",
                "The assessee claimed depreciation under the Income Tax Act."]
    torch_model = TorchAnswerLikelihood(small_gguf, device="cpu", batch_size=3)  # torch's threads: every core
    result = attribute(torch_model, question, passages, max_tokens=24)
    assert result.answer and len(result.influence) == 3
    prompts = [torch_model.prompt(question, passages[:k]) for k in (3, 2, 1)]
    batched = torch_model.loglikelihoods(prompts, result.answer)
    torch_model.batch_size = 1
    assert torch_model.loglikelihoods(prompts, result.answer) == pytest.approx(batched, abs=1e-3)
    llama = AnswerLikelihood(small_gguf, threads=1, context=1024)
    assert llama.loglikelihoods(prompts, result.answer) == pytest.approx(batched, rel=0.05)
    with pytest.raises(ValueError, match="batch_size"):
        TorchAnswerLikelihood(small_gguf, batch_size=0)


def test_cli_trains_an_attribution_reranker(opensearch_settings, tiny, shared_data, small_gguf, tmp_path) -> None:
    prefix = tiny["chunks"].removesuffix("-chunks")
    out = tmp_path / "attribution"
    args = ["--url", opensearch_settings.url, "--prefix", prefix, "train", "reranker", "--signal", "attribution",
            "--questions", "1", "--llm-model", str(small_gguf), "--benchmark", "none", "--pairs", "4",
            "--negatives", "2", "--steps", "1", "--batch-size", "4", "--max-length", "128", "--validation", "0.3",
            "--data", str(shared_data), "--out", str(out), "--threads", "1"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    record = json.loads((out / "training.json").read_text())
    assert record["loss"].startswith("MSE") and record["steps"] == 1 and record["examples"] == 3
    assert "leave-one-out" in record["sources"]["attribution"]
    scores = CrossEncoderReranker(str(out)).score("Whether the appeal lies?", ["The appeal is dismissed.", "Costs."])
    assert len(scores) == 2 and all(math.isfinite(s) for s in scores)


def test_measure_splits_validation_by_kind(client, tiny, aila, encoder) -> None:
    from lab.training.train import measure, rank_metrics
    from search.retrieval.rerank import BiEncoderRescorer

    queries, qrels = aila
    groups = mine_qrels_groups(client, tiny["chunks"], training_queries(queries, qrels), qrels, negatives=2)
    groups += mine_self_groups(client, tiny["chunks"], tiny["judgments"], 2, negatives=2)
    scorer = BiEncoderRescorer(encoder)
    overall, by_kind = measure(scorer, groups)
    assert overall == pytest.approx(rank_metrics(scorer, groups))
    assert set(by_kind) == {"qrels", "self"} and by_kind["qrels"]["groups"] == 2
    assert by_kind["qrels"] == pytest.approx(rank_metrics(scorer, [g for g in groups if g.kind == "qrels"]))
    assert 0 <= overall["MRR"] <= 1 and overall["groups"] == len(groups)


def test_citation_context_drops_the_citation_and_keeps_the_proposition() -> None:
    from lab.training.citations import citation_context
    from legal.citations import extract_citations

    text = ("The High Court erred. An order of acquittal may be reversed only for compelling reasons under s. 378 "
            "of the Code, as this Court held in State of U.P. v. Anil Singh, AIR 1988 SC 1998, and the appeal "
            "fails on that ground alone.")
    citations = extract_citations(text, kinds=("judgment", "case_name"))
    context = citation_context(text, citations[0], citations, before=30, after=8)
    assert "compelling reasons under s. 378" in context and "appeal fails" in context
    assert "Anil Singh" not in context and "1988" not in context and "AIR" not in context


def test_citation_groups_pair_a_citing_context_with_the_cited_judgments_reasoning(client, aliases) -> None:
    """Among the samples, C152 and C26 cite C99 (State of U.P. v. Anil Singh)."""
    from lab.training.citations import mine_citation_groups

    groups = mine_citation_groups(client, aliases["chunks"], aliases["judgments"], 10, seed=1, negatives=3)
    sources = {g.source for g in groups}
    assert {"citation:C152:C99", "citation:C26:C99"} <= sources
    for group in groups:
        _, citing, cited = group.source.split(":")
        assert [p.judgment_id for p in group.positives] == [cited]
        assert group.negatives and not {n.judgment_id for n in group.negatives} & {citing, cited}
        assert len(group.query.split()) >= 20 and "Anil Singh" not in group.query
    assert mine_citation_groups(client, aliases["chunks"], aliases["judgments"], 10, seed=1, negatives=3) == groups
    without = mine_citation_groups(client, aliases["chunks"], aliases["judgments"], 10, seed=1, exclude=["C99"])
    assert all("C99" not in g.source for g in without)


def test_training_qrels_take_each_benchmarks_tuning_half_from_its_own_index(shared_data) -> None:
    import click

    from lab.evaluate import judged
    from ratio.cli.mining import training_qrels

    found = training_qrels(shared_data, ("aila-precedents", "irled=irled-corpus", "none"), None, None, "ratio")
    assert [(prefix, len(queries)) for prefix, queries, _, _ in found] == [("ratio", 15), ("irled-corpus", 60)]
    irled_queries, irled_qrels = found[1][1], found[1][2]
    reported = judged(read_queries(shared_data / "fire2017-irled-precedent" / "Current_Cases"), irled_qrels)[0][1::2]
    assert not {q.qid for q in irled_queries} & {q.qid for q in reported}
    assert "FIRE 2017 IRLeD qrels in the irled-corpus index, training half only" in found[1][3]
    with pytest.raises(click.BadParameter, match="choose from"):
        training_qrels(shared_data, ("aila-statutes",), None, None, "ratio")
