"""Queries that name a provision (issue 26): the search box reads each form, and every list of provisions for a
query (the box, ``GET /api/v1/provisions``, ``ratio provisions``, the evaluation: all through
:func:`search.provisions.retrieve.find_provisions`) puts the named provision first, on a real node with the real
encoder."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.encoders import DEFAULT_ENCODER
from backends.opensearch import IndexLayout, create_indices
from indexer.document import Provision
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from search.provisions.named import (
    Named,
    NamedProvisions,
    named_first,
    named_order,
    named_provisions,
    named_provisions_body,
)
from search.provisions.retrieve import find_provisions
from search.query.understand import QueryKind, understand
from search.retrieval.matching import meaning_floor

GOLDEN = Path(__file__).with_name("golden")

# (query, kind, canonical citations, bare sections)
UNDERSTOOD = [
    ("section 304B IPC", QueryKind.PROVISION, ("IPC s. 304B",), ()),
    ("s. 304-B IPC", QueryKind.PROVISION, ("IPC s. 304B",), ()),
    ("304B IPC", QueryKind.PROVISION, ("IPC s. 304B",), ()),
    ("sec 302 ipc", QueryKind.PROVISION, ("IPC s. 302",), ()),
    ("438 CrPC", QueryKind.PROVISION, ("CrPC s. 438",), ()),
    ("section 438 crpc", QueryKind.PROVISION, ("CrPC s. 438",), ()),
    ("Article 21", QueryKind.PROVISION, ("Constitution art. 21",), ()),
    ("article 21", QueryKind.PROVISION, ("Constitution art. 21",), ()),
    ("302/34 IPC", QueryKind.PROVISION, ("IPC s. 302", "IPC s. 34"), ()),
    ("Section 304-B of the Indian Penal Code", QueryKind.PROVISION, ("IPC s. 304B",), ()),
    ("s.304-B", QueryKind.PROVISION, (), ("304B",)),
    ("section 304b", QueryKind.PROVISION, (), ("304B",)),
    ("dowry death under 304B IPC", QueryKind.TOPIC, ("IPC s. 304B",), ()),
    ("limitation section 5 condonation", QueryKind.TOPIC, (), ()),  # a bare section is read only alone
    ("Order 21 Rule 97 CPC", QueryKind.TOPIC, (), ()),
]


@pytest.mark.parametrize(("query", "kind", "provisions", "sections"), UNDERSTOOD)
def test_the_search_box_reads_each_form(query: str, kind: QueryKind, provisions: tuple, sections: tuple) -> None:
    understood = understand(query)
    assert (understood.kind, understood.provisions, understood.sections) == (kind, provisions, sections)


def test_what_a_query_names() -> None:
    assert named_provisions("Section 304B(1) IPC").keys == ("IPC s. 304B(1)", "IPC s. 304B")
    assert named_provisions("s.304-B") == NamedProvisions((), ("304B",))
    assert named_provisions("limitation section 5 condonation") == NamedProvisions()
    assert not named_provisions(" ".join(["the husband demanded dowry under section 304B IPC"] * 5))  # pasted


def _golden(name: str, body: dict) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("RATIO_UPDATE_GOLDEN") == "1":
        path.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8")) == body


@pytest.mark.parametrize(("name", "query"), [("named_provisions_citation", "Section 304B(1) IPC"),
                                             ("named_provisions_section", "s.304-B"),
                                             ("named_provisions_none", "dowry death")])
def test_named_provisions_body(name: str, query: str) -> None:
    _golden(name, named_provisions_body(named_provisions(query), ["provision_id", "citation"]))


def test_named_order() -> None:
    named = named_provisions("Section 304B(1) IPC and s. 302 IPC")
    sources = {"a": {"citation": "IPC s. 302"}, "b": {"citation": "IPC s. 304B(2)"},
               "c": {"citation": "IPC s. 304B"}, "d": {"citation": "IPC s. 304B(1)"}}
    assert named_order(named, sources) == ["d", "c", "a", "b"]


# ---------------------------------------------------------------- on the node

def _provision(pid: str, title: str, text: str, act: str | None = None, section: str | None = None,
               citation: str | None = None) -> Provision:
    return Provision(pid, text, "test", title=title, act=act, section=section, citation=citation)


PROVISIONS = [
    _provision("P304B", "Dowry death", "Where the death of a woman is caused by any burns or bodily injury or occurs "
               "otherwise than under normal circumstances within seven years of her marriage and it is shown that "
               "soon before her death she was subjected to cruelty or harassment by her husband.",
               "Indian Penal Code, 1860", "304B", "IPC s. 304B"),
    _provision("P498A", "Husband or relative of husband of a woman subjecting her to cruelty",
               "Whoever, being the husband or the relative of the husband of a woman, subjects such woman to cruelty "
               "shall be punished with imprisonment.", "Indian Penal Code, 1860", "498A", "IPC s. 498A"),
    _provision("P302", "Punishment for murder", "Whoever commits murder shall be punished with death or "
               "imprisonment for life, and shall also be liable to fine.", "Indian Penal Code, 1860", "302",
               "IPC s. 302"),
    _provision("P34", "Acts done by several persons in furtherance of common intention",
               "When a criminal act is done by several persons in furtherance of the common intention of all, each "
               "of such persons is liable for that act.", "Indian Penal Code, 1860", "34", "IPC s. 34"),
    _provision("C438", "Direction for grant of bail to person apprehending arrest",
               "When any person has reason to believe that he may be arrested on an accusation of having committed "
               "a non-bailable offence, he may apply to the High Court or the Court of Session.",
               "Code of Criminal Procedure, 1973", "438", "CrPC s. 438"),
    _provision("A21", "Protection of life and personal liberty",
               "No person shall be deprived of his life or personal liberty except according to procedure "
               "established by law.", "Constitution of India", "21", "Constitution art. 21"),
    # decoys: their words are the query's words, so the ranked list alone puts them first
    _provision("E113B", "Presumption as to dowry death under section 304B IPC",
               "When the question is whether a person has committed the dowry death of a woman under section 304B "
               "of the Indian Penal Code (IPC), and it is shown that soon before her death such woman has been "
               "subjected to cruelty, the Court shall presume that such person had caused the dowry death; section "
               "304B IPC, 304-B IPC.", "Indian Evidence Act, 1872", "113B", "Evidence Act s. 113B"),
    _provision("S1", "Section 304B IPC 438 CrPC Article 21", "Section 304B IPC, s. 304-B, 438 CrPC, section 438 of "
               "the CrPC, Article 21 of the Constitution: a statute whose Act and section nobody mapped."),
    _provision("C439", "Special powers of High Court regarding bail under section 438 CrPC",
               "A High Court may direct that any person accused of an offence and in custody be released on bail; "
               "see also section 438 CrPC (438 Cr.P.C.) on anticipatory bail.", "Code of Criminal Procedure, 1973",
               "439", "CrPC s. 439"),
    _provision("A22", "Protection against arrest and detention in certain cases, Article 21",
               "No person who is arrested shall be detained in custody without being informed of the grounds; "
               "read with Article 21 and Article 21 of the Constitution.", "Constitution of India", "22",
               "Constitution art. 22"),
]


@pytest.fixture(scope="module")
def provisions_layout(client: OpenSearch, encoder, tmp_path_factory) -> Iterator[IndexLayout]:
    """Ten provisions with their Act, section and citation (and one without), through the real writer."""
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    aliases = layout.aliases()
    labeller = RoleLabeller.load(encoder, cache_dir=tmp_path_factory.mktemp("provision-query-embeddings"))
    report = IndexWriter(client, aliases, Pipeline(labeller)).run(PROVISIONS)
    assert report.failed == [] and report.provisions_indexed == len(PROVISIONS)
    client.indices.refresh(index=aliases["provisions"])
    yield layout
    client.indices.delete(index=f"{layout.prefix}-*", ignore_unavailable=True)


FIRST = [
    ("section 304B IPC", ["P304B"]),
    ("s.304-B", ["P304B"]),
    ("304B IPC", ["P304B"]),
    ("Section 304-B of the Indian Penal Code", ["P304B"]),
    ("Article 21", ["A21"]),
    ("438 CrPC", ["C438"]),
    ("section 438 crpc", ["C438"]),
    ("Section 304B(1) IPC", ["P304B"]),
    ("302/34 IPC", ["P302", "P34"]),
]


@pytest.mark.parametrize(("query", "first"), FIRST)
def test_each_form_lists_its_provision_first(client: OpenSearch, provisions_layout: IndexLayout, encoder,
                                             query: str, first: list[str]) -> None:
    """Through :func:`search.provisions.retrieve.find_provisions` with the product's floor, as the box, the API, ``ratio
    provisions`` and the evaluation's ``provisions`` configuration call it."""
    found = find_provisions(client, provisions_layout.alias("provisions"), encoder, [query], size=5,
                            floor=meaning_floor(DEFAULT_ENCODER))
    assert [hit.provision_id for hit in found[:len(first)]] == first
    assert all(hit.named for hit in found[:len(first)]) and not any(hit.named for hit in found[len(first):])
    assert len(found) > len(first)  # the rest follow, as ranked


def test_without_the_named_rule_a_decoy_comes_first(client: OpenSearch, provisions_layout: IndexLayout,
                                                    encoder) -> None:
    """The decoys are real competition: the same ranking with the query read as words only puts another first."""
    index = provisions_layout.alias("provisions")
    named = find_provisions(client, index, encoder, ["section 304B IPC"], size=3)
    words = find_provisions(client, index, encoder, ["section IPC 304B"], size=3)  # not a citation: nothing named
    assert named[0].provision_id == "P304B" and named[0].named
    assert words[0].provision_id != "P304B" and not any(hit.named for hit in words)


def test_named_provisions_pass_the_meaning_floor_and_gibberish_stays_empty(client: OpenSearch,
                                                                           provisions_layout: IndexLayout,
                                                                           encoder) -> None:
    index = provisions_layout.alias("provisions")
    assert find_provisions(client, index, encoder, ["s.304-B"], size=3, floor=0.99)[0].provision_id == "P304B"
    assert find_provisions(client, index, encoder, ["xyzzyqwerty"], size=3, floor=0.42) == ()


def test_named_first_keeps_the_rest_in_order() -> None:
    named = Named(("b",), {"b": (0,)}, {"b": {}})
    assert named_first([("a", 0.9), ("b", 0.2), ("c", 0.1)], named) == [("b", 1.0), ("a", 0.9), ("c", 0.1)]
    assert named_first([("a", 3.0)], Named()) == [("a", 3.0)]


@pytest.mark.parametrize(("query", "first"), FIRST)
def test_the_provisions_box_lists_each_form_first(client: OpenSearch, provisions_layout: IndexLayout, encoder,
                                                  query: str, first: list[str]) -> None:
    """Through :meth:`search.execute.Searcher.provisions_for`: what the page's box, ``GET /api/v1/provisions``,
    ``ratio provisions`` and ``ratio eval run aila-statutes``'s ``default`` return."""
    from search.execute import Searcher

    aliases = provisions_layout.aliases()
    found = Searcher(client, aliases, encoder).provisions_for(query, 5)
    assert [hit.provision_id for hit in found[:len(first)]] == first
    assert all(hit.named for hit in found[:len(first)]) and not any(hit.named for hit in found[len(first):])
