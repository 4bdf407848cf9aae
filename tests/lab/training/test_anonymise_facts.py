"""The anonymised facts queries: real AILA judgments with their people's names replaced as AILA's own queries write
them (``P1``, ``P2``), the State and the courts kept; and, on the real node, every mined ``facts`` query paired with
its ``facts-anon`` twin (same judgment, same labels, same exclusion)."""

from __future__ import annotations

import re
from pathlib import Path

from opensearchpy import OpenSearch

from lab.training.anonymise import ANON_SOURCE, anonymise, person_names
from lab.training.ranker_data import MINED_STYLES, mine_queries
from search.graph.citation_graph import load_graph
from tests.search.ranking.corpora import static_corpus

AILA = "aila-2019/Object_casedocs"
CITING, CITED = "C437", "C134"  # Sunder Singh v State of Uttaranchal cites C134 (both in the AILA corpus)


def _judgment(shared_data: Path, name: str) -> str:
    return (shared_data / AILA / f"{name}.txt").read_text(encoding="utf-8", errors="replace")


def test_each_person_gets_one_number_in_order_of_first_appearance(shared_data: Path) -> None:
    text = _judgment(shared_data, CITING)
    names = person_names(text, title="Sunder Singh v State of Uttaranchal")  # the index's title of C437
    assert "Sunder Singh" in names and not any("Uttaranchal" in n or "Court" in n for n in names)
    start = text.index("In this ghastly incident")
    passage = text[start:text.index("sustained grievous burn injuries", start)]
    assert anonymise(passage, names) == (
        "In this ghastly incident, P1, his wife P2, his elder son P3 (aged about 28 years), another son P4 (aged "
        "about 19 years), daughter P5 (aged about 16 years) lost their lives while wife of P3, namely, P6 (PW-1) ")
    whole = anonymise(text, names)
    for name in ("Sunder Singh", "Balwant Singh", "Vimla Devi", "Pratap Singh", "Nandi Devi"):
        assert name in text and name not in whole
    assert "Sessions Judge" in whole and "High Court" in whole and "Indian Penal Code" in whole
    assert whole == anonymise(text, person_names(text, title="Sunder Singh v State of Uttaranchal"))  # determined


def test_the_state_stays_and_a_first_name_alone_is_the_same_person(shared_data: Path) -> None:
    punjab = _judgment(shared_data, "C1879")  # State of Punjab v Bahadur Singh and Others
    names = person_names(punjab, ["State of Punjab", "Bahadur Singh and Others"])
    assert "Bahadur Singh" in names and not any("Punjab" in n for n in names)
    assert anonymise(punjab, names).count("State of Punjab") == punjab.count("State of Punjab") > 0
    c5 = _judgment(shared_data, "C5")  # "one Manoj Kumar (P.W.2) ... embraced Manoj"
    out = anonymise(c5, person_names(c5, ["Anil Kumar", "State of U.P"]))
    first = re.search(r"one (P\d+) \(P\.W\.2\)", out)
    assert first and f"embraced {first.group(1)} " in out and "Manoj" not in out
    assert anonymise("no names here", []) == "no names here"


def test_mined_facts_queries_come_with_their_anonymised_twins(client: OpenSearch, shared_data: Path,
                                                             static_encoder, tmp_path: Path) -> None:
    for name in (CITING, CITED):
        (tmp_path / f"{name}.txt").write_bytes((shared_data / AILA / f"{name}.txt").read_bytes())
    with static_corpus(client, static_encoder, tmp_path, 2) as aliases:
        graph = load_graph(client, aliases["judgments"], by_parties=False)
        assert graph.cites.get(CITING) == (CITED,)
        mined = mine_queries(client, aliases, graph, "t", count=3, min_facts_words=20)
    assert MINED_STYLES == ("document", "facts", "facts-anon") and ANON_SOURCE == "mined-facts-anon"
    facts = {q.qid.split(":")[-1]: q for q in mined if q.source == "mined-facts"}
    anon = {q.qid.split(":")[-1]: q for q in mined if q.source == ANON_SOURCE}
    assert set(facts) == set(anon) == {CITING}
    plain, twin = facts[CITING], anon[CITING]
    assert twin.qid == f"t:facts-anon:{CITING}" and twin.corpus == "t"
    assert (twin.relevant, twin.exclude) == (plain.relevant, plain.exclude) == (frozenset({CITED}), (CITING,))
    assert "Balwant Singh" in plain.text and "Balwant Singh" not in twin.text and "P1" in twin.text
    assert len(twin.text.split()) < len(plain.text.split())  # "Balwant Singh" -> "P3": the same text otherwise
