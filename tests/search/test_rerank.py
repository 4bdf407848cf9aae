"""Reranking: any sentence-transformers CrossEncoder, or the bi-encoder rescorer by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.encoders import DEFAULT_ENCODER, load_encoder, packaged_model_path
from search.retrieval.records import ChunkHit
from search.retrieval.rerank import BiEncoderRescorer, CrossEncoderReranker, blend, rerank

PASSAGES = [
    "The tenant was evicted for non-payment of rent under the Rent Control Act.",
    "The accused poured kerosene on his wife and set her on fire; she died of burns.",
    "The assessee claimed a deduction for depreciation under the Income Tax Act.",
]


def chunks(texts):
    return [ChunkHit(f"J{i}:0", 1.0 - i / 10, {"text": t, "judgment_id": f"J{i}"}) for i, t in enumerate(texts)]


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> CrossEncoderReranker:
    """A real, randomly initialised 2-layer BERT cross-encoder with MiniLM's vocabulary, built here."""
    import torch
    from sentence_transformers import CrossEncoder
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    torch.manual_seed(0)
    folder: Path = tmp_path_factory.mktemp("tiny-cross-encoder")
    tokenizer = BertTokenizerFast(vocab_file=str(packaged_model_path(DEFAULT_ENCODER)
                                                 / "vocab.txt"))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return CrossEncoderReranker(CrossEncoder(str(folder), device="cpu"))


def test_cross_encoder_scores_order_the_top_n(tiny_cross_encoder: CrossEncoderReranker) -> None:
    query = "dowry death by burning"
    scores = tiny_cross_encoder.score(query, PASSAGES)
    assert len(scores) == 3 and len(set(scores)) == 3
    reranked, ms = rerank(query, chunks(PASSAGES), tiny_cross_encoder, top_n=3)
    assert [c.text for c in reranked] == [PASSAGES[i] for i in sorted(range(3), key=lambda i: -scores[i])]
    assert [c.score for c in reranked] == sorted(scores, reverse=True)
    assert ms >= 0


def test_chunks_below_top_n_keep_their_fused_order(tiny_cross_encoder: CrossEncoderReranker) -> None:
    original = chunks([*PASSAGES, "An unrelated passage about contracts.", "Another about land acquisition."])
    reranked, _ = rerank("dowry death", original, tiny_cross_encoder, top_n=2)
    assert reranked[2:] == original[2:]
    assert {c.chunk_id for c in reranked[:2]} == {c.chunk_id for c in original[:2]}
    with pytest.raises(ValueError):
        rerank("x", original, tiny_cross_encoder, top_n=0)


def test_bi_encoder_rescorer_puts_the_relevant_passage_first() -> None:
    rescorer = BiEncoderRescorer(load_encoder())
    reranked, _ = rerank("a woman burnt to death by her husband over dowry", chunks(PASSAGES), rescorer)
    assert reranked[0].text == PASSAGES[1]
    assert rescorer.score("anything", []) == []


def test_blending_keeps_the_fused_order_where_the_reranker_is_unsure() -> None:
    """Weight 0 is the fused order, weight 1 the reranker's; between, both count after min-max scaling."""
    rescorer = BiEncoderRescorer(load_encoder())
    query = "a woman burnt to death by her husband over dowry"
    original = chunks(PASSAGES)  # fused scores 1.0, 0.9, 0.8: the dowry passage is second
    assert rerank(query, original, rescorer, weight=0.0)[0] == [c.rescored(s) for c, s in
                                                                 zip(original, [1.0, 0.5, 0.0], strict=True)]
    replaced, _ = rerank(query, original, rescorer, weight=1.0)
    assert replaced[0].text == PASSAGES[1]
    half, _ = rerank(query, original, rescorer, weight=0.5)
    assert all(0.0 <= score <= 1.0 for score in (c.score for c in half))
    assert half[0].text == PASSAGES[1]  # its cosine lead is far larger than its fused deficit
    assert blend([3.0, 3.0], [0.2, 0.1], 0.5) == [1.0, 0.5]  # a constant reranker leaves the fused order
    with pytest.raises(ValueError, match="between 0 and 1"):
        blend([1.0], [1.0], 1.5)


def test_cached_reranker_scores_each_pair_once() -> None:
    from lab.evaluate.systems import CachedReranker

    calls: list[list[str]] = []

    class Counting(BiEncoderRescorer):
        def score(self, query, passages):
            calls.append(list(passages))
            return super().score(query, passages)

    cached = CachedReranker(Counting(load_encoder()))
    first = cached.score("dowry death", PASSAGES)
    again = cached.score("dowry death", [PASSAGES[2], PASSAGES[0], "A new passage on bail."])
    assert again[:2] == [first[2], first[0]]
    assert calls == [PASSAGES, ["A new passage on bail."]]


def test_focus_reads_the_window_of_a_long_query_that_the_passage_is_about() -> None:
    from search.retrieval.rerank import focus

    filler = " ".join(f"word{i}" for i in range(300))
    query = f"{filler} the husband poured kerosene over his wife demanding dowry {filler}"
    window = focus(query, PASSAGES[1], words=40)
    assert len(window.split()) == 40 and "kerosene" in window and "dowry" in window
    assert focus("a short query", PASSAGES[1], words=40) == "a short query"
    assert focus(query, "nothing shared at all", words=40) == " ".join(query.split()[:40])  # ties: the first


def test_cross_encoder_reads_long_queries_through_focus(tiny_cross_encoder: CrossEncoderReranker) -> None:
    from search.retrieval.rerank import focus

    query = " ".join(["preamble"] * 200) + " dowry death by burning " + " ".join(["costs"] * 200)
    focused = tiny_cross_encoder.score(query, PASSAGES)
    by_hand = [tiny_cross_encoder.model.predict([(focus(query, p), p)])[0] for p in PASSAGES]
    assert focused == pytest.approx([float(s) for s in by_hand], abs=1e-5)
