"""The ranker's query side without a node: term selection, citation contexts, the query's year."""

from __future__ import annotations

import math

import pytest

from search.ranking.query import CITATION_MASK, Corpus, TermStat, citation_contexts, latest_year, select_terms

CORPUS = Corpus(doc_count=1000, sum_ttf=1_000_000)
TERMS = (TermStat("dowry", 3, 10, 40), TermStat("court", 5, 990, 500_000), TermStat("death", 2, 100, 400),
         TermStat("unseen", 4, 0, 0))


def test_kl_selection_prefers_terms_frequent_in_the_query_and_rare_in_the_corpus() -> None:
    chosen = select_terms(TERMS, CORPUS, 3, "kl")
    assert [t for t, _ in chosen] == ["dowry", "death"]  # 'court' is commoner in the corpus; 'unseen' absent
    length = 14
    assert chosen[0][1] == pytest.approx(3 / length * math.log((3 / length) / (41 / 1_000_001)))


def test_idf_selection_keeps_k_and_orders_by_tf_idf() -> None:
    chosen = select_terms(TERMS, CORPUS, 2, "idf")
    assert [t for t, _ in chosen] == ["dowry", "death"]
    assert select_terms(TERMS, CORPUS, 1, "idf")[0][0] == "dowry"
    with pytest.raises(ValueError, match="kl"):
        select_terms(TERMS, CORPUS, 1, "bm42")


def test_contexts_around_masks_merge_neighbours_and_drop_the_masks() -> None:
    text = ("The appellant was dismissed from service without an inquiry. This Court has consistently held that "
            f"recovery of excess payment cannot be made from an employee [Vide {CITATION_MASK}, {CITATION_MASK} and "
            f"{CITATION_MASK}] when he was not at fault. Later on the facts differ. In {CITATION_MASK} the Court "
            "allowed recovery of the excess pension paid to a retired officer after notice.")
    contexts = citation_contexts(text, before=12, after=4)
    assert len(contexts) == 2  # the three adjacent masks share one context
    assert all(CITATION_MASK not in c and "[" not in c for c in contexts)
    assert contexts[0] == "that recovery of excess payment cannot be made from an employee Vide when he was not"
    assert contexts[1].endswith("facts differ. In the Court allowed recovery")


def test_a_text_without_citations_has_no_contexts() -> None:
    assert citation_contexts("The accused poured kerosene and set her on fire.") == ()


def test_the_latest_year_mentioned_is_the_query_s_year() -> None:
    assert latest_year("Decided on 4.2.2008, an appeal from 1999 about the 1956 Act; Rs.1,95,000 paid") == 2008
    assert latest_year("no years, only 12345 and 2,000 rupees") is None
