"""A bare Act in one file becomes one provision per section: split from real Acts (tests/fixtures/acts), a
malformed copy reported by line with its good sections kept, judgments left alone, and the provisions written
to the real node by the real IndexWriter and by ``ratio index``."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.encoders import STATIC_ENCODER
from backends.opensearch import IndexLayout, create_indices, install_pipelines
from indexer.document import Judgment, LoadError, Provision
from indexer.loaders import LoadOptions, html_to_text, load
from indexer.loaders.act import MAX_PROBLEMS, MAX_SECTIONS, SplitProblem, split_act
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from legal.citations import extract_citations
from ratio.cli import cli

ACTS = Path(__file__).resolve().parents[1] / "fixtures" / "acts"
DOWRY = ACTS / "dowry_prohibition_act.txt"
MALFORMED = ACTS / "dowry_prohibition_act_malformed.txt"
IPC = ACTS / "indian_penal_code.html"
SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"
XVI = "CHAPTER XVI — OF OFFENCES AFFECTING THE HUMAN BODY"
XXA = "CHAPTER XXA — OF CRUELTY BY HUSBAND OR RELATIVES OF HUSBAND"


def provisions(items: list) -> dict[str, Provision]:
    return {item.section: item for item in items if isinstance(item, Provision)}


def test_dowry_prohibition_act_splits_into_its_sections() -> None:
    items = list(load([DOWRY]))
    assert all(isinstance(item, Provision) for item in items)  # the arrangement of sections yields nothing
    found = provisions(items)
    assert list(found) == ["1", "2", "3", "4", "4A", "5"]
    assert {p.act for p in items} == {"Dowry Prohibition Act"}
    assert {p.chapter for p in items} == {None}  # the Act has no chapters
    assert {p.source for p in items} == {"bare-act"} and {p.source_path for p in items} == {str(DOWRY)}
    three = found["3"]
    assert (three.provision_id, three.citation, three.title) == (
        "dowry_prohibition_act:s3", "Dowry Prohibition Act s. 3", "Penalty for giving or taking dowry")
    assert three.text.startswith("(1) If any person, after the commencement of this Act, gives or takes")
    assert "\n(2) Nothing in sub-section (1) shall apply to" in three.text  # sub-sections stay in the body
    assert three.text.count("Provided") == 4  # and the provisos
    assert three.text.endswith("such presents are given.")  # up to the next heading, not into it
    assert found["2"].title == "Definition of “dowry”"
    assert "Explanation II.—The expression “valuable security”" in found["2"].text
    assert found["4A"].title == "Ban on advertisement" and found["4A"].citation == "Dowry Prohibition Act s. 4A"
    assert found["5"].text == "Any agreement for the giving or taking of dowry shall be void."
    assert "BE it enacted" not in found["1"].text and found["1"].text.startswith("(1) This Act may be called")


def test_each_citation_is_what_a_judgment_citing_the_section_links_to() -> None:
    """The citation is the string legal.citations makes of a reference to the section in a judgment."""
    for path, printed in ((DOWRY, "the Dowry Prohibition Act, 1961"), (IPC, "the Indian Penal Code")):
        for provision in provisions(list(load([path]))).values():
            cited = extract_citations(f"convicted under section {provision.section} of {printed}",
                                      kinds={"provision"})
            assert [c.normalized for c in cited] == [provision.citation], provision.provision_id


def test_indian_penal_code_html_has_chapters_and_lettered_sections() -> None:
    items = list(load([IPC]))
    found = provisions(items)
    assert len(items) == len(found) == 5
    assert list(found) == ["302", "303", "304A", "304B", "498A"]
    assert {p.act for p in items} == {"IPC"}
    assert [p.chapter for p in items] == [XVI, XVI, XVI, XVI, XXA]
    dowry_death = found["304B"]
    assert (dowry_death.provision_id, dowry_death.citation, dowry_death.title) == (
        "indian_penal_code:s304B", "IPC s. 304B", "Dowry death")
    assert dowry_death.text.startswith("(1) Where the death of a woman is caused by any burns")
    assert "\n\nExplanation.—For the purposes of this sub-section" in dowry_death.text
    assert dowry_death.text.endswith("which may extend to imprisonment for life.")
    assert "Of offences affecting life" not in found["302"].text  # a sub-heading, not the body of s. 302
    assert found["498A"].text.endswith("to meet such demand.") and "CHAPTER" not in found["304B"].text


def test_a_pdf_of_the_act_splits_the_same(tmp_path: Path, pdf_maker) -> None:
    """A PDF's text layer (here with ASCII ``.-`` for India Code's ``.—``, as many published copies have)."""
    ascii_lines = [line.replace("—", "-").replace("“", '"').replace("”", '"')
                   for line in DOWRY.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / "dowry.pdf"
    path.write_bytes(pdf_maker(ascii_lines))
    from_text = provisions(list(load([DOWRY])))
    from_pdf = provisions(list(load([path])))
    assert list(from_pdf) == list(from_text)
    assert from_pdf["2"].title == 'Definition of "dowry"' and from_pdf["3"].provision_id == "dowry:s3"
    assert from_pdf["4"].text == from_text["4"].text


def test_malformed_act_names_the_lines_and_keeps_the_good_sections() -> None:
    items = list(load([MALFORMED]))
    errors = [item for item in items if isinstance(item, LoadError)]
    assert [(e.item, e.reason) for e in errors] == [
        (str(MALFORMED), "line 34: section 9 comes before section 4A"),
        (str(MALFORMED), "line 41: section 5 has a heading but no text"),
    ]
    good = provisions(items)
    assert list(good) == ["1", "2", "3", "4A"]
    assert good["3"].text == provisions(list(load([DOWRY])))["3"].text  # nothing else lost
    assert "If any person demands" not in good["3"].text  # the misnumbered section is not folded into s. 3


@pytest.mark.parametrize(("text", "reason"), [
    ("THE EXAMPLE ACT, 2001\nACT NO. 1 OF 2001\n1. First.—One.\n2. Second.—Two.\n2. Again.—Three.\n",
     "line 5: section 2 appears again (first at line 4)"),
    ("THE EXAMPLE ACT, 2001\nACT NO. 1 OF 2001\n1. First.—One.\n9. Ninth.—Nine.\n5. Fifth.—Five.\n"
     "6. Sixth.—Six.\n7. Seventh.—Seven.\n10. Tenth.—Ten.\n", "line 4: section 9 comes before section 5"),
    ("THE EXAMPLE ACT, 2001\nACT NO. 1 OF 2001\n1. First.—One.\n2. Second.—Two.\n3. Third.—Three.\n"
     "2. Second.—Two again.\n", "line 6: section 2 appears again (first at line 4)"),
    ("THE EXAMPLE ACT, 2001\nARRANGEMENT OF SECTIONS\n1. First.\n2. Second.\n",
     "line 2: an arrangement of sections but no sections after it"),
])
def test_splitting_failures_are_reported_by_line(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "act.txt"
    path.write_text(text, encoding="utf-8")
    errors = [item for item in load([path]) if isinstance(item, LoadError)]
    assert [(e.item, e.reason) for e in errors] == [(str(path), reason)]


def test_constitution_articles_omitted_sections_and_amendment_marks() -> None:
    """Articles cite as ``Constitution art. N``; India Code's amendment marks and footnotes are not text; an
    omitted section keeps its note; a schedule ends the sections."""
    split = split_act(
        "THE CONSTITUTION OF INDIA\nPART III\nFUNDAMENTAL RIGHTS\n"
        "21. Protection of life and personal liberty.—No person shall be deprived of his life or personal liberty "
        "except according to procedure established by law.\n"
        "1[21A. Right to education.—The State shall provide free and compulsory education to all children of the "
        "age of six to fourteen years in such manner as the State may, by law, determine.]\n"
        "1. Ins. by the Constitution (Eighty-sixth Amendment) Act, 2002, s. 2 (w.e.f. 1-4-2010).\n"
        "22. [Omitted.]\n"
        "THE FIRST SCHEDULE\n1. Andhra Pradesh.\n")
    assert split is not None and (split.act, split.unit) == ("Constitution", "art.")
    assert [(s.number, s.title, s.chapter) for s in split.sections] == [
        ("21", "Protection of life and personal liberty", "PART III — FUNDAMENTAL RIGHTS"),
        ("21A", "Right to education", "PART III — FUNDAMENTAL RIGHTS"),
        ("22", None, "PART III — FUNDAMENTAL RIGHTS")]
    assert split.sections[1].text.endswith("by law, determine.")  # the mark and its footnote are gone
    assert split.sections[2].text == "[Omitted.]" and split.problems == ()
    assert split.citation("21") == "Constitution art. 21"


def test_headings_with_section_words_and_wrapped_lines() -> None:
    split = split_act(
        "THE EXAMPLE ACT, 2001\nACT NO. 1 OF 2001\nCHAPTER I - PRELIMINARY\nSection 1. Short title\n"
        "This Act may be called the Example Act.\n4. [Old heading.] Omitted by Act 2 of 2002, s. 3.\n"
        "5. A heading the PDF broke\nacross two lines.—The body.\n12\n")
    assert split is not None
    assert [(s.number, s.title, s.text, s.chapter) for s in split.sections] == [
        ("1", "Short title", "This Act may be called the Example Act.", "CHAPTER I — PRELIMINARY"),
        ("4", "Old heading", "[Old heading.] Omitted by Act 2 of 2002, s. 3.", "CHAPTER I — PRELIMINARY"),
        ("5", "A heading the PDF broke across two lines", "The body.", "CHAPTER I — PRELIMINARY")]


def test_judgments_stay_judgments(data_dir: Path) -> None:
    """Judgments that number their paragraphs and name Acts in their first lines are not Acts."""
    paths = [*sorted((SAMPLES / "judgments").glob("*.txt")),
             data_dir / "fire2017-irled-precedent" / "Prior_Cases" / "prior_case_1139.txt.gz",  # "Constitution
             data_dir / "fire2017-irled-precedent" / "Prior_Cases" / "prior_case_0209.txt.gz",  # of India, 1950."
             data_dir / "aila-2019" / "Object_casedocs" / "C100.txt"]
    items = list(load(paths))
    assert len(items) == len(paths) and all(isinstance(item, Judgment) for item in items)


def test_aila_statutes_keep_their_format() -> None:
    items = list(load([SAMPLES / "statutes"]))
    assert len(items) == 18 and all(isinstance(i, Provision) and i.source == "aila-2019-statutes" for i in items)


def test_ids_follow_the_id_prefix_and_the_source_option() -> None:
    found = provisions(list(load([DOWRY], LoadOptions(id_prefix="acts", source="india-code"))))
    assert found["4A"].provision_id == "acts:dowry_prohibition_act:s4A" and found["4A"].source == "india-code"


def test_html_doctype_is_not_text() -> None:
    text, title = html_to_text(IPC.read_bytes())
    assert text.startswith("THE INDIAN PENAL CODE") and title and title.startswith("The Indian Penal Code")


# ---------------------------------------------------------------- on the real node


@pytest.fixture
def act_aliases(client: OpenSearch, static_encoder):
    """Throwaway indices (their own prefix, deleted afterwards) and a fast pipeline to write into them."""
    layout = IndexLayout(f"ratio-test-acts-{uuid.uuid4().hex[:8]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=256, encoder=STATIC_ENCODER))
    install_pipelines(client)
    aliases = layout.aliases()
    yield aliases, Pipeline(RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER))
    client.indices.delete(index=f"{layout.prefix}-*")


def test_index_writer_stores_one_provision_per_section(client: OpenSearch, act_aliases) -> None:
    aliases, pipeline = act_aliases
    report = IndexWriter(client, aliases, pipeline).run(load([ACTS, SAMPLES / "judgments" / "C1.txt"]))
    malformed = [reason for item, reason in report.failed if item == str(MALFORMED)]
    assert malformed == ["line 34: section 9 comes before section 4A", "line 41: section 5 has a heading but no text"]
    assert len(report.failed) == 2 and report.judgments_indexed == 1  # the run went on past the malformed file
    # 6 + 5 sections, and the malformed copy's 4 good ones under their own file's ids
    assert report.provisions_indexed == 15
    hits = client.search(index=aliases["provisions"], body={
        "size": 20, "query": {"term": {"act": "Dowry Prohibition Act"}},
        "_source": ["act", "section", "citation", "title", "chapter", "source"]})["hits"]["hits"]
    stored = {hit["_id"]: hit["_source"] for hit in hits}
    assert stored["dowry_prohibition_act:s4A"] == {
        "act": "Dowry Prohibition Act", "section": "4A", "citation": "Dowry Prohibition Act s. 4A",
        "title": "Ban on advertisement", "chapter": None, "source": "bare-act"}
    assert sorted(i for i in stored if i.startswith("dowry_prohibition_act:")) == [
        "dowry_prohibition_act:s1", "dowry_prohibition_act:s2", "dowry_prohibition_act:s3",
        "dowry_prohibition_act:s4", "dowry_prohibition_act:s4A", "dowry_prohibition_act:s5"]
    dowry_death = client.get(index=aliases["provisions"], id="indian_penal_code:s304B")["_source"]
    assert (dowry_death["citation"], dowry_death["chapter"]) == ("IPC s. 304B", XVI)
    again = IndexWriter(client, aliases, pipeline).run(load([DOWRY]))
    assert again.provisions_indexed == 0 and again.provisions_unchanged == 6  # a re-run changes nothing


def test_ratio_index_reports_the_malformed_act(opensearch_settings, client: OpenSearch, layout: IndexLayout,
                                                static_encoder) -> None:
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", layout.prefix, "index",
                                      str(DOWRY), str(MALFORMED), "--encoder", STATIC_ENCODER, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output  # some items failed, not all: the run succeeds
    report = json.loads(result.stdout)
    assert report["provisions_indexed"] == 10
    assert [(f["item"], f["reason"]) for f in report["failed"]] == [
        (str(MALFORMED), "line 34: section 9 comes before section 4A"),
        (str(MALFORMED), "line 41: section 5 has a heading but no text")]
    assert report["provisions_mapping"]["given"] == 10  # the Act said which section each is: given, not mapped
    client.indices.refresh(index=layout.alias("provisions"))
    assert client.count(index=layout.alias("provisions"),
                        body={"query": {"term": {"citation": "Dowry Prohibition Act s. 3"}}})["count"] == 2
    stored = client.get(index=layout.alias("provisions"), id="dowry_prohibition_act:s4A")["_source"]
    assert stored["mapping"]["status"] == "given" and stored["citation"] == "Dowry Prohibition Act s. 4A"


def test_a_hostile_act_is_split_within_bounds() -> None:
    """200,000 headings of one number: the first 10,000 are read, 50 problems listed, the rest counted."""
    split = split_act("THE X ACT, 2000\nACT NO. 1 OF 2000\n" + "1. Title.—Body.\n" * 200_000)
    assert split is not None and [s.number for s in split.sections] == ["1"]
    assert len(split.problems) == MAX_PROBLEMS + 2
    assert split.problems[MAX_PROBLEMS].reason == "and 9949 more problems from here on, not listed one by one"
    assert split.problems[-1] == SplitProblem(MAX_SECTIONS + 3, "more than 10000 sections: the rest is not split")
