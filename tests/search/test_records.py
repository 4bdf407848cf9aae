"""The read side's decoding: a stored judgment from any subset of its fields, chunk hits and their roll-up."""

from __future__ import annotations

import datetime as dt

import pytest

from search.retrieval.records import HIT_FIELDS, JUDGMENT_FIELDS, ChunkHit, StoredJudgment, roll_up

FULL = {
    "judgment_id": "SC-2017-1", "title": "A v. State of B", "court": "Supreme Court of India",
    "decision_date": "2017-03-09", "judges": ["Sikri", "Bhushan"], "case_number": "Crl.A. 12/2016",
    "citations": ["(2017) 10 SCC 1"], "cited_judgments": ["(1995) 2 SCC 1", "C v. D"],
    "cited_provisions": ["IPC s. 302"], "text": "The appeal is dismissed.",
    "summary": {"facts": "A quarrel.", "legal_issues": ["Is it murder?"], "reasoning": "It is.",
                "provenance": {"model": "x"}},
    "vector": [0.1, 0.2],
}


def test_every_field_is_decoded_and_provenance_is_hidden() -> None:
    stored = StoredJudgment.from_source(FULL)
    assert stored == StoredJudgment(
        judgment_id="SC-2017-1", title="A v. State of B", court="Supreme Court of India",
        decision_date=dt.date(2017, 3, 9), judges=("Sikri", "Bhushan"), case_number="Crl.A. 12/2016",
        citations=("(2017) 10 SCC 1",), cited_judgments=("(1995) 2 SCC 1", "C v. D"),
        cited_provisions=("IPC s. 302",), text="The appeal is dismissed.",
        summary={"facts": "A quarrel.", "legal_issues": ["Is it murder?"], "reasoning": "It is."})
    assert (stored.facts, stored.legal_issues, stored.reasoning) == ("A quarrel.", ("Is it murder?",), "It is.")
    assert stored.date_text == "2017-03-09"
    assert set(JUDGMENT_FIELDS) == set(FULL) - {"vector"}  # one list of what is read; the vector never is


def test_missing_fields_are_empty_and_the_id_may_come_from_the_document() -> None:
    stored = StoredJudgment.from_source({"title": None, "judges": None, "summary": None}, "X1")
    assert stored == StoredJudgment("X1")
    assert (stored.decision_date, stored.date_text, stored.judges, stored.text, stored.legal_issues) == (
        None, None, (), "", ())
    assert StoredJudgment.from_source({"judgment_id": "Y", "judges": "Solo"}, "ignored").judges == ("Solo",)
    with pytest.raises(ValueError, match="judgment_id"):
        StoredJudgment.from_source({"title": "no id"})


def test_a_date_with_a_time_is_read_as_its_day() -> None:
    assert StoredJudgment.from_source({"decision_date": "2001-12-31T00:00:00"}, "Z").decision_date == dt.date(
        2001, 12, 31)


def test_hit_fields_leave_out_the_text_and_read_the_summary_that_explanations_use() -> None:
    assert "text" not in HIT_FIELDS and "summary" not in HIT_FIELDS
    assert {"judgment_id", "title", "summary.legal_issues", "summary.facts", "summary.reasoning"} <= set(HIT_FIELDS)


def test_chunk_hits_roll_up_to_judgments_in_score_order() -> None:
    response = {"hits": {"hits": [
        {"_id": f"{j}:{n}", "_score": score, "_source": {"judgment_id": j, "role": "ratio", "text": f"t{n}"}}
        for j, n, score in [("A", 0, 3.0), ("B", 0, 2.5), ("A", 1, 2.0), ("A", 2, 1.0), ("A", 3, 0.5),
                            ("C", 0, None)]]}}
    hits = ChunkHit.from_response(response)
    assert hits[0] == ChunkHit("A:0", 3.0, {"judgment_id": "A", "role": "ratio", "text": "t0"})
    assert hits[-1].score == 0.0 and hits[0].rescored(9).score == 9.0 and hits[0].rescored(9).source is hits[0].source
    groups = roll_up(hits, passages=3)
    assert [(g.judgment_id, g.score, [c.chunk_id for c in g.chunks]) for g in groups] == [
        ("A", 3.0, ["A:0", "A:1", "A:2"]), ("B", 2.5, ["B:0"]), ("C", 0.0, ["C:0"])]


def test_a_weight_chooses_and_orders_the_shown_chunks_but_not_the_judgments() -> None:
    """The fusion path's passages prefer the court's reasoning (search.ranking.serve.passage_weight): a weighted
    chunk may come before a better-scoring one, or in from further down, while each judgment keeps its place and
    its best chunk's score."""
    def chunk(judgment: str, n: int, score: float, role: str) -> ChunkHit:
        return ChunkHit(f"{judgment}:{n}", score, {"judgment_id": judgment, "role": role})

    hits = [chunk("A", 0, 1.0, "statute"), chunk("B", 0, 0.9, "facts"), chunk("A", 1, 0.8, "argument_petitioner"),
            chunk("A", 2, 0.7, "facts"), chunk("A", 3, 0.6, "analysis"), chunk("B", 1, 0.3, "ratio")]
    weighted = roll_up(hits, passages=3, weight=lambda c: 2.0 if c.role in ("analysis", "ratio") else 1.0)
    assert [(g.judgment_id, g.score, [c.chunk_id for c in g.chunks]) for g in weighted] == [
        ("A", 1.0, ["A:3", "A:0", "A:1"]), ("B", 0.9, ["B:0", "B:1"])]
    assert [[c.chunk_id for c in g.chunks] for g in roll_up(hits, passages=3)] == [["A:0", "A:1", "A:2"],
                                                                                   ["B:0", "B:1"]]
