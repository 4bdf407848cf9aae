"""Citation lookup against the real node: the sample corpus, a small corpus of our own, the CLI and the Client.

The 18 AILA sample judgments carry no reporter citations of their own and the sample statutes no Act or
section, so reporter citations that are found, two judgments with the same parties, and labelled provisions
come from a small corpus written here through the real indexer (``own``).
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import IndexLayout, create_indices
from indexer.citations import enrich
from indexer.document import Judgment, Provision
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from ratio.cli import cli
from search.graph.citecheck import CitationReport, EmptyTextError, TextTooLongError, check_citations

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"

SAMPLE_BRIEF = """\
The High Court relied on State of U.P. v. Anil Singh for the weight of minor contradictions.
The defence cites Anil v. State of U.P. for the opposite view, and (2001) 1 SCC 652.
It also cites Ramesh Chandra v. State of Goa, (2019) 17 SCC 777, on the same point.
The appellant was convicted under Section 302 IPC.
"""

OWN_BRIEF = """\
In Ramesh Kumar v. State of Punjab the Court set the test. Lakshmi Devi vs Union of India, AIR 1985 SC 900,
followed (1990) 2 SCC 100 and (1977) 3 SCC 3. The respondent's reliance on (2018) 14 SCC 901 and on
Bharat Singh v. State of Haryana is misplaced. The charge was under Section 302 IPC read with Section 34 IPC,
and under s. 999 IPC; s. 302(2) IPC does not exist as such. Article 21 of the Constitution applies, and
Section 27 of the Evidence Act. Again: AIR 1985 SC 900.
"""


def _judgment(jid: str, title: str, year: int, citations: tuple[str, ...], body: str) -> Judgment:
    left, right = title.split(" v ")
    text = (f"{title}\nSupreme Court of India\n\n{body} The appeal is dismissed. "
            "We have heard learned counsel for the parties at length.")
    return enrich(Judgment(judgment_id=jid, text=text, source="test", title=title, parties=(left, right),
                           court="Supreme Court of India", decision_date=dt.date(year, 3, 1), citations=citations))


OWN_JUDGMENTS = [
    _judgment("T1", "Ramesh Kumar v State of Punjab", 1990, ("(1990) 2 SCC 100",),
              "The appellant was convicted of murder on circumstantial evidence."),
    _judgment("T2", "Ramesh Kumar v State of Punjab", 2001, ("(2001) 5 SCC 200",),
              "The appellant, a different Ramesh Kumar, challenged his dismissal from service."),
    _judgment("T3", "Lakshmi Devi v Union of India", 1985, ("AIR 1985 SC 900", "1985 Indlaw SC 12"),
              "Relying on (1990) 2 SCC 100 and on Bharat Singh v. State of Haryana, the petitioner argued "
              "that Section 302 IPC did not apply."),
    _judgment("T4", "Mohan Lal v State of Rajasthan", 1977, ("(1977) 3 SCC 3",), "A first copy of the report."),
    _judgment("T5", "Mohan Lal v State of Rajasthan", 1977, ("(1977) 3 SCC 3",), "A second copy, from elsewhere."),
]
OWN_PROVISIONS = [
    Provision("P302", "Whoever commits murder shall be punished with death or imprisonment for life.", "test",
              title="Punishment for murder", act="Indian Penal Code, 1860", section="302", citation="IPC s. 302"),
    Provision("P34", "When a criminal act is done by several persons in furtherance of the common intention of all.",
              "test", title="Acts done by several persons in furtherance of common intention",
              act="Indian Penal Code, 1860", section="34"),  # no citation: found by Act and section
    Provision("A21", "No person shall be deprived of his life or personal liberty except according to law.",
              "test", title="Protection of life and personal liberty", act="Constitution of India", section="21",
              citation="Constitution art. 21"),
]


@pytest.fixture(scope="module")
def own(client: OpenSearch, encoder, tmp_path_factory) -> Iterator[dict[str, str]]:
    """A corpus of five judgments and three labelled provisions, indexed through the real writer."""
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    aliases = layout.aliases()
    labeller = RoleLabeller.load(encoder, cache_dir=tmp_path_factory.mktemp("cite-embeddings"))
    report = IndexWriter(client, aliases, Pipeline(labeller)).run([*OWN_JUDGMENTS, *OWN_PROVISIONS])
    assert report.failed == [] and report.judgments_indexed == 5 and report.provisions_indexed == 3
    yield aliases
    client.indices.delete(index=f"{layout.prefix}-*")


def _by_text(report: CitationReport) -> dict[str, object]:
    return {check.canonical: check for check in report.checks}


def _ids(check) -> list[str]:
    return sorted(m.judgment_id or m.provision_id for m in check.matches)


def _sample_citers(field: str, canonical: str) -> list[str]:
    """The sample judgments whose extracted ``field`` holds ``canonical``, as the indexer sees them."""
    return sorted(j.judgment_id for j in load([str(SAMPLES / "judgments")]) if canonical in getattr(j, field))


def test_sample_corpus(client: OpenSearch, aliases: dict[str, str]) -> None:
    assert _sample_citers("cited_judgments", "State of U.P v. Anil Singh") == ["C152", "C26"]
    assert _sample_citers("cited_judgments", "(2001) 1 SCC 652") == ["C152"]
    citing_302 = len(_sample_citers("cited_provisions", "IPC s. 302"))
    report = check_citations(client, aliases, SAMPLE_BRIEF)
    checks = _by_text(report)
    assert list(checks) == ["State of U.P v. Anil Singh", "Anil v. State of U.P", "(2001) 1 SCC 652",
                            "Ramesh Chandra v. State of Goa", "(2019) 17 SCC 777", "IPC s. 302"]

    held = checks["State of U.P v. Anil Singh"]
    assert (held.status, _ids(held), held.matches[0].link) == ("found", ["C99"], "/judgments/C99")
    assert held.matches[0].title == "State Of U.P. v Anil Singh" and held.matches[0].match == "parties"
    assert SAMPLE_BRIEF[held.start:held.end] == held.text == "State of U.P. v. Anil Singh"
    assert held.cited_by == 2
    assert held.reason == "one judgment in the corpus has these parties; cited by 2 judgments in it"

    vague = checks["Anil v. State of U.P"]
    assert vague.status == "ambiguous" and _ids(vague) == ["C5", "C99"]  # Anil Kumar v. U.P. and U.P. v. Anil Singh
    assert vague.reason.startswith("2 judgments in the corpus have parties that match these in part")

    cited_only = checks["(2001) 1 SCC 652"]
    assert (cited_only.status, cited_only.matches, cited_only.cited_by) == ("unknown", (), 1)
    assert cited_only.reason == "no judgment in the corpus carries this citation; cited by 1 judgment in it"

    for invented in ("Ramesh Chandra v. State of Goa", "(2019) 17 SCC 777"):
        assert (checks[invented].status, checks[invented].cited_by) == ("unknown", 0)
        assert "cited by" not in checks[invented].reason

    murder = checks["IPC s. 302"]
    assert murder.status == "unknown" and murder.cited_by == citing_302 >= 4
    assert murder.reason.startswith("the corpus's 18 provisions are not labelled with an Act and section")
    assert (report.found, report.ambiguous, report.unknown, report.ok) == (1, 1, 4, False)


def test_own_corpus(client: OpenSearch, own: dict[str, str]) -> None:
    report = check_citations(client, own, OWN_BRIEF)
    checks = _by_text(report)
    expected = {  # canonical: (status, corpus ids, how matched)
        "Ramesh Kumar v. State of Punjab": ("ambiguous", ["T1", "T2"], "parties"),
        "Lakshmi Devi v. Union of India": ("found", ["T3"], "parties"),
        "AIR 1985 SC 900": ("found", ["T3"], "citation"),
        "(1990) 2 SCC 100": ("found", ["T1"], "citation"),
        "(1977) 3 SCC 3": ("ambiguous", ["T4", "T5"], "citation"),
        "(2018) 14 SCC 901": ("unknown", [], None),
        "Bharat Singh v. State of Haryana": ("unknown", [], None),
        "IPC s. 302": ("found", ["P302"], "citation"),
        "IPC s. 34": ("found", ["P34"], "act and section"),
        "IPC s. 999": ("unknown", [], None),
        "IPC s. 302(2)": ("found", ["P302"], "section (sub-section cited)"),
        "Constitution art. 21": ("found", ["A21"], "citation"),
        "Evidence Act s. 27": ("unknown", [], None),
    }
    assert {c: (k.status, _ids(k), k.matches[0].match if k.matches else None) for c, k in checks.items()} == expected
    assert checks["IPC s. 999"].reason == "the corpus holds 2 provisions of IPC but not s. 999"
    assert checks["Evidence Act s. 27"].reason == "the corpus holds no provision of Evidence Act"
    assert checks["IPC s. 302(2)"].reason.startswith("the corpus holds IPC s. 302, of which this is a part")
    assert checks["IPC s. 302"].matches[0].link == "/provisions/P302"
    assert checks["IPC s. 302"].cited_by == 1  # T3 cites it
    assert "cited by 1 judgment in it" in checks["Bharat Singh v. State of Haryana"].reason
    assert checks["(1990) 2 SCC 100"].cited_by == 1 and checks["(2018) 14 SCC 901"].cited_by == 0
    air = checks["AIR 1985 SC 900"]
    assert len(air.occurrences) == 2 and all(OWN_BRIEF[s:e] == "AIR 1985 SC 900" for s, e in air.occurrences)
    assert (report.found, report.ambiguous, report.unknown) == (7, 2, 4)
    assert [c.start for c in report.checks] == sorted(c.start for c in report.checks)
    assert json.loads(json.dumps(report.as_dict()))["checks"][0]["canonical"] == "Ramesh Kumar v. State of Punjab"


def test_no_citations_is_an_empty_report_and_bad_input_an_error(client: OpenSearch, own: dict[str, str]) -> None:
    report = check_citations(client, own, "The appellant argues that the delay was explained.")
    assert (report.checks, report.ok) == ((), True)
    with pytest.raises(EmptyTextError):
        check_citations(client, own, " \n")
    with pytest.raises(TextTooLongError, match="at most 2 are checked"):
        check_citations(client, own, OWN_BRIEF, max_citations=2)
    assert check_citations(client, own, b"AIR 1985 SC 900").checks[0].status == "found"  # bytes are decoded


def _cli(client_url: str, own: dict[str, str], *args: str, data: bytes | None = None):
    prefix = own["judgments"].removesuffix("-judgments")
    return CliRunner().invoke(cli, ["--url", client_url, "--prefix", prefix, "cite-check", *args], input=data,
                              catch_exceptions=False)


def test_cli_exit_codes_table_json_and_stdin(opensearch_settings, own: dict[str, str], tmp_path: Path) -> None:
    brief = tmp_path / "brief.txt"
    brief.write_text(OWN_BRIEF, encoding="utf-8")
    table = _cli(opensearch_settings.url, own, str(brief))
    assert table.exit_code == 1, table.output
    assert "13 citations: 7 found, 2 ambiguous, 4 unknown" in table.output
    assert "/judgments/T3" in table.output and "ambiguous" in table.output

    as_json = _cli(opensearch_settings.url, own, "-", "--json", data=OWN_BRIEF.encode())
    assert as_json.exit_code == 1
    data = json.loads(as_json.output)
    assert (data["found"], data["ambiguous"], data["unknown"], data["ok"]) == (7, 2, 4, False)

    good = _cli(opensearch_settings.url, own, "-", data=b"Lakshmi Devi v. Union of India, AIR 1985 SC 900; s. 34 IPC.")
    assert good.exit_code == 0, good.output
    assert "3 citations: 3 found, 0 ambiguous, 0 unknown" in good.output

    nothing = _cli(opensearch_settings.url, own, "-", data=b"No authorities are cited here.")
    assert (nothing.exit_code, nothing.output.strip()) == (0, "no citations found in the text")


def test_cli_refuses_bad_input_naming_it(opensearch_settings, own: dict[str, str], tmp_path: Path) -> None:
    binary = tmp_path / "brief.pdf"
    binary.write_bytes(b"%PDF-1.7\x00\x00\x01")
    result = _cli(opensearch_settings.url, own, str(binary))
    assert result.exit_code == 2
    assert f"{binary}: this looks like a binary file (it contains NUL bytes)" in result.output
    empty = _cli(opensearch_settings.url, own, "-", data=b"")
    assert empty.exit_code == 2 and "stdin: the text is empty" in empty.output
    latin = _cli(opensearch_settings.url, own, "-", data="Café v. State".encode("cp1252"))
    assert latin.exit_code == 2 and "stdin: the text is not valid UTF-8" in latin.output
    missing = _cli(opensearch_settings.url, own, str(tmp_path / "nope.txt"))
    assert missing.exit_code == 2 and "nope.txt: cannot read it" in missing.output


def test_client_checks_citations(opensearch_settings, own: dict[str, str]) -> None:
    from ratio import Client

    client = Client(opensearch_settings.url, prefix=own["judgments"].removesuffix("-judgments"))
    report = client.check_citations("As held in AIR 1985 SC 900 and (2018) 14 SCC 901.")
    assert [(c.canonical, c.status) for c in report.checks] == [("AIR 1985 SC 900", "found"),
                                                              ("(2018) 14 SCC 901", "unknown")]
