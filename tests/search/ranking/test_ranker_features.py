"""The learned ranker's features on a hand-built three-judgment corpus, on the real node, checked by hand.

J1 (2001) applies IPC s. 302 and cites J2; J3 (2019, after the query's year) cites J2 too; J2 (1990) is the
cited one. Every judgment has a facts chunk and a reasoning chunk with known words and unit vectors along known
axes, so each feature's value can be worked out on paper.
"""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest
from opensearchpy import OpenSearch, helpers

import mappings
from backends.opensearch import IndexLayout, create_indices
from search.ranking.features import FEATURES, Features, FeatureSettings
from search.ranking.query import profile

DIM = 4
J2_CITATION = "(1990) 1 SCC 10"


def _axis(i: int) -> list[float]:
    return [1.0 if j == i else 0.0 for j in range(DIM)]


JUDGMENTS = {
    "J1": {"title": "Ram v State", "year": 2001, "text": "The accused poisoned the deceased wife over dowry. "
           "Section 302 of the Indian Penal Code applies. We follow the rule.", "cited_provisions": ["IPC s. 302"],
           "cited_judgments": [J2_CITATION], "citations": ["(2001) 2 SCC 20"], "n_sentences": 3, "vector": _axis(0)},
    "J2": {"title": "Old v Case", "year": 1990, "text": "A contract for the sale of land was breached by the seller.",
           "cited_provisions": [], "cited_judgments": [], "citations": [J2_CITATION], "n_sentences": 1,
           "vector": _axis(1)},
    "J3": {"title": "New v Matter", "year": 2019, "text": "The tenant refused to vacate the premises. The rent was "
           "unpaid.", "cited_provisions": [], "cited_judgments": [J2_CITATION], "citations": ["(2019) 3 SCC 30"],
           "n_sentences": 2, "vector": _axis(2)},
}
CHUNKS = [  # judgment, role, text, vector axis
    ("J1", "facts", "The accused poisoned the deceased wife over dowry.", 0),
    ("J1", "ratio", "Section 302 of the Indian Penal Code applies.", 3),
    ("J2", "facts", "A contract for the sale of land was breached by the seller.", 1),
    ("J3", "facts", "The tenant refused to vacate the premises.", 2),
    ("J3", "ratio", "The rent was unpaid.", 2),
]
QUERY = "In 2015 the husband poisoned his wife for dowry; he is charged under Section 302 of the Indian Penal Code."


@pytest.fixture(scope="module")
def corpus(client: OpenSearch):
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=DIM))
    aliases = layout.aliases()
    actions = [{"_index": aliases["judgments"], "_id": jid, "_source": {"judgment_id": jid, **doc}}
               for jid, doc in JUDGMENTS.items()]
    offsets: dict[str, int] = {}
    for n, (jid, role, text, axis) in enumerate(CHUNKS):
        start = offsets.get(jid, 0)
        offsets[jid] = start + len(text) + 1
        actions.append({"_index": aliases["chunks"], "_id": f"{jid}-{n}", "_source": {
            "judgment_id": jid, "role": role, "text": text, "char_start": start, "char_end": start + len(text),
            "vector": _axis(axis), "year": JUDGMENTS[jid]["year"]}})
    helpers.bulk(client, actions, refresh=True)
    yield client, aliases
    client.indices.delete(index=f"{layout.prefix}-*")


def test_features_of_three_judgments_match_the_hand_computed_values(corpus) -> None:
    client, aliases = corpus
    features = Features(client, aliases, FeatureSettings(depth=10, context_depth=5, max_candidates=10))
    query = profile(client, aliases["judgments"], QUERY)
    assert query.provisions == ("IPC s. 302",) and query.year == 2015
    candidates = features.candidates(query)
    assert set(candidates.ids) == {"J1"}  # only J1 shares a word the corpus knows with the query (or its provision)
    matrix = features.features(query, candidates, vector=_axis(0))
    row = dict(zip(FEATURES, matrix.values[0].tolist(), strict=True))
    assert row["q_provisions"] == 1 and row["q_contexts"] == len(query.contexts)
    assert row["q_terms"] == pytest.approx(math.log1p(query.length))
    # KL selection: in a corpus of ~25 tokens no query term is rarer in the corpus than in the 14-term query
    # (dowry: 1/14 in the query against 2/26 in the corpus), so the long reduction is empty and scores 0; the
    # tf-idf reduction keeps the words the corpus holds, and the best (only) candidate scales to 1.
    assert query.reduced(200, "kl") == ()
    assert {t for t, _ in query.reduced(50, "idf")} >= {"dowry", "wife", "section_302"}
    assert row["bm25_long"] == 0 and row["bm25_short"] > 0 and row["bm25_short_norm"] == pytest.approx(1.0)
    assert row["prov_shared"] == 1
    # IDF of the shared provision: one judgment of three cites it -> log(1 + 3 / (1 + 1))
    assert row["prov_shared_idf"] == pytest.approx(math.log(1 + 3 / 2), rel=1e-5)
    assert row["cites_shared"] == 0 and row["cited_by_query"] == 0
    assert row["year_gap"] == 2015 - 2001 and row["after_query"] == 0
    assert row["log_sentences"] == pytest.approx(math.log1p(3), rel=1e-5)
    assert row["cited_by"] == 0  # nobody in the corpus cites J1
    assert row["role_facts_norm"] == pytest.approx(1.0)  # its facts chunk matches; the only candidate
    assert row["role_arguments_norm"] == 0  # it has no arguments chunk
    assert row["role_reasoning_norm"] == pytest.approx(1.0)  # its ratio chunk names Section 302
    # vectors: the query lies along J1's judgment vector and its facts chunk (cosine 1); its ratio chunk is
    # orthogonal. OpenSearch's cosinesimil score maps cosine 1 to 1.0 and cosine 0 to 0.5.
    assert row["sim_judgment"] == pytest.approx(1.0, rel=1e-5) and row["sim_chunk"] == pytest.approx(1.0, rel=1e-5)
    assert row["sim_facts"] == pytest.approx(1.0, rel=1e-5) and row["sim_reasoning"] == pytest.approx(0.5, rel=1e-5)


def test_graph_features_count_citations_inside_the_corpus(corpus) -> None:
    client, aliases = corpus
    features = Features(client, aliases)
    graph = features.graph
    assert sorted(graph.cited_by.get("J2", ())) == ["J1", "J3"] and not graph.cited_by.get("J1")
    query = profile(client, aliases["judgments"], "The seller breached a contract for land; the tenant stayed on.")
    from search.ranking.features import Candidates

    matrix = features.features(query, Candidates(("J1", "J2", "J3"), {}), vector=None)
    cited_by = matrix.column("cited_by")
    assert cited_by.tolist() == pytest.approx([0.0, math.log1p(2), 0.0])
    # J1 and J3 both cite J2: each shares one cited judgment with the other leader
    coupled = matrix.column("coupled_top")
    assert coupled[0] == pytest.approx(math.log1p(1)) and coupled[2] == pytest.approx(math.log1p(1))
    assert np.isnan(matrix.column("sim_judgment")).all()  # no vector: semantic features are missing, not zero
    # the query is J1 itself (a mined query, or a corpus judgment read whole): its own citation of J2 must not
    # count, or training would learn "cited" from the very citation it masked
    own = features.features(query, Candidates(("J2", "J3"), {}), vector=None, exclude=("J1",))
    assert own.column("cited_by").tolist() == pytest.approx([math.log1p(1), 0.0])
