"""The corpus mapping of provisions to Act and section (indexer.provision_map), on the real node.

The sample corpus (samples/aila-2019: 18 judgments, 18 AILA statutes named by title alone) is indexed once for
the session and mapped as ``ratio index`` maps it; these tests read what the mapping wrote.
"""

from __future__ import annotations

import pytest

from indexer.provision_map import Evidence, Own, map_provisions, nearest_citation, runs, vote

pytestmark = pytest.mark.opensearch


def _provisions(client, aliases) -> dict[str, dict]:
    hits = client.search(index=aliases["provisions"], body={"size": 100, "_source": {"excludes": ["vector"]}})
    return {h["_id"]: h["_source"] for h in hits["hits"]["hits"]}


def test_every_sample_provision_has_a_mapping_status(client, aliases) -> None:
    provisions = _provisions(client, aliases)
    assert len(provisions) == 18
    assert {p["mapping"]["status"] for p in provisions.values()} <= {"mapped", "ambiguous", "unmapped", "given"}


def test_sample_provisions_mapped_from_the_judgments_quoting_them(client, aliases) -> None:
    """The 18 sample judgments rarely quote a provision twice, so the product's rule (two judgments) maps none of
    them; with one judgment enough, the sample's own quotes map their provisions, each with its Act, section,
    citation and the judgment and sentence that say so. C18 quotes s. 34 IPC ("Acts done by several persons in
    furtherance of common intention") beside its citation."""
    found = {m.provision_id: m for m in map_provisions(client, aliases, support=1).mappings}
    assert found["S6"].status == "mapped" and found["S6"].citation == "IPC s. 34"
    assert found["S6"].act == "IPC" and found["S6"].section == "34"
    assert [e.judgment_id for e in found["S6"].evidence] == ["C18"] and "34" in found["S6"].evidence[0].sentence
    for mapping in found.values():
        if mapping.status == "mapped":
            assert mapping.document()["citation"] == mapping.citation and mapping.evidence


def test_unmapped_provisions_say_so_and_keep_no_act(client, aliases) -> None:
    for p in _provisions(client, aliases).values():
        if p["mapping"]["status"] in ("ambiguous", "unmapped"):
            assert p.get("citation") is None and p.get("act") is None
            assert p["title"]  # the title is kept


def test_a_clear_majority_maps_and_a_split_vote_does_not() -> None:
    sure = [Evidence(f"J{i}", "IPC s. 304B", "s", "quote") for i in range(3)]
    sure.append(Evidence("J9", "IPC s. 498A", "s", "quote"))
    assert vote("P", sure, 4).status == "mapped"
    split = [Evidence("J1", "IPC s. 304B", "s", "quote"), Evidence("J2", "IPC s. 498A", "s", "quote")]
    assert vote("P", split, 2).status == "ambiguous"
    assert vote("P", [], 0).status == "unmapped"
    one = vote("P", [Evidence("J1", "IPC s. 302", "s", "quote")], 1)
    assert one.status == "ambiguous" and one.alternatives[0][0] == "IPC s. 302"  # one judgment is not enough


def test_act_spellings_vote_together_and_one_judgment_votes_once() -> None:
    votes = [Evidence("J1", "Land Acquisition Act, 1894 s. 4", "s", "quote"),
             Evidence("J2", "Land Acquisition Act s. 4", "s", "quote"),
             Evidence("J2", "Constitution art. 31", "s", "quote")]
    found = vote("P", votes, 3)
    assert found.status == "mapped" and found.act in ("Land Acquisition Act, 1894", "Land Acquisition Act")


def test_the_citation_before_a_quote_is_read_and_a_bare_section_needs_the_judgments_own_citation() -> None:
    text = 'Section 304B IPC reads as under: "(1) Where the death of a woman is caused by any burns"'
    start = text.index("(1)")
    assert nearest_citation(text, start, len(text), []).normalized == "IPC s. 304B"
    bare = 'Section 304B reads as under: "(1) Where the death of a woman is caused by any burns"'
    assert nearest_citation(bare, bare.index("(1)"), len(bare), ["IPC s. 304B", "IPC s. 498A"]) == "IPC s. 304B"
    assert nearest_citation(bare, bare.index("(1)"), len(bare), ["IPC s. 498A"]) is None


def test_runs_spread_over_the_text() -> None:
    text = " ".join(f"w{i}" for i in range(200))
    found = runs(text)
    assert 2 <= len(found) <= 12 and found[0].startswith("w0 ") and all(len(r.split()) == 8 for r in found)


def test_a_citation_inside_the_quoted_text_is_not_its_label() -> None:
    """Article 226 opens "Notwithstanding anything in Article 32": a judgment quoting it from its second run on
    has art. 32 just before the matched words, which is the quote's content, not the provision it quotes."""
    own = Own.of("(1) Notwithstanding anything in Article 32 every High Court shall have powers, throughout")
    text = ('Article 226 of the Constitution reads: "(1) Notwithstanding anything in Article 32 every High Court '
            'shall have powers, throughout the territories"')
    start = text.index("every High Court")
    assert nearest_citation(text, start, len(text), []).normalized == "Constitution art. 32"
    assert nearest_citation(text, start, len(text), [], own=own).normalized == "Constitution art. 226"
