"""A brief as the query: ``POST /api/v1/search/document`` (JSON text and uploads), ``RemoteClient`` and
``ratio search --document``, against the real node and the sample corpus.

The ranking must be the document path's own (``Client.search_by_document``) whichever way the brief comes, the
brief's own judgment must stay out when excluded, every unreadable brief must get a 4xx that names the problem,
and each hit's matched parts must be what the ranking saw (the words listed are in the sentences listed).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from ratio.remote import RemoteClient, RemoteError
from ratio.results import BriefPage
from search.brief import BriefHit
from search.query.errors import QueryError
from tests.indexer.conftest import make_pdf

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "aila-2019"
ROUTE = "/api/v1/search/document"


def _brief_lines() -> list[str]:
    """AILA's first query (a fact pattern of ~960 words), as lines a one-page PDF can hold; quotes dropped, so
    the PDF's text layer reads back exactly as the lines joined."""
    first = (SAMPLES / "Query_doc.txt").read_text().splitlines()[0].split("||", 1)[1]
    words = re.sub(r"['\"`]", "", first).split()
    return [" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]


LINES = _brief_lines()
BRIEF = "\n".join(LINES)


def _ids(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [hit["judgment_id"] for hit in response.json()["hits"]]


def test_text_and_uploads_rank_as_the_client_does(api: TestClient, ratio_client) -> None:
    expected = ratio_client.rank_document(BRIEF, size=5)
    assert len(expected) == 5
    by_json = api.post(ROUTE, json={"text": BRIEF, "size": 5})
    assert _ids(by_json) == expected
    pdf = make_pdf(LINES)
    by_pdf = api.post(ROUTE, files={"file": ("brief.pdf", pdf, "application/pdf")}, data={"size": "5"})
    assert _ids(by_pdf) == expected
    by_txt = api.post(ROUTE, files={"file": ("brief.txt", BRIEF.encode(), "text/plain")}, data={"size": "5"})
    assert _ids(by_txt) == expected
    assert (by_json.json()["source"], by_pdf.json()["source"], by_txt.json()["source"]) == ("text", "pdf", "txt")
    page = by_json.json()
    assert page["ranking"].startswith("ranker:") and 900 < page["brief"]["words"] <= len(BRIEF.split())
    # the client's own hits for the brief are the same judgments
    assert [h.judgment_id for h in ratio_client.search_by_document(BRIEF, size=5).hits] == expected


def test_matched_parts_are_what_the_ranking_saw(api: TestClient) -> None:
    page = api.post(ROUTE, json={"text": BRIEF, "size": 5}).json()
    parts = [part for hit in page["hits"] for part in hit["matched"]]
    assert parts, "no hit says which part of the brief it matched"
    sentence_parts = [p for p in parts if p["kind"] in ("facts", "issues", "passages")]
    assert sentence_parts
    for part in sentence_parts:
        assert part["items"] and part["words"]
        held = {w.lower() for item in part["items"] for w in re.findall(r"\w+", item)}
        assert set(part["words"]) <= held, part  # every word named is in a sentence of the brief shown
        assert all(item.replace(" …", "") in " ".join(BRIEF.split()) for item in part["items"])
    for part in parts:
        if part["kind"] == "provisions":
            assert set(part["items"]) <= set(page["brief"]["provisions"])
        assert part["contribution"] is None or isinstance(part["contribution"], float)
    # the hit's highlighted passages hold the words its parts name
    for hit in page["hits"]:
        marked = {w.lower() for p in hit["passages"] for h in p["highlights"]
                  for m in re.findall(r"<mark>(.*?)</mark>", h) for w in re.findall(r"\w+", m)}
        for part in hit["matched"]:
            assert set(part["words"]) <= marked


def test_a_judgment_as_its_own_brief_and_excluded(api: TestClient, ratio_client) -> None:
    text = ratio_client.record("C1").text
    assert _ids(api.post(ROUTE, json={"text": text, "size": 5}))[0] == "C1"
    without = api.post(ROUTE, json={"text": text, "size": 10, "exclude": "C1"})
    assert "C1" not in _ids(without) and len(_ids(without)) >= 5
    assert without.json()["excluded"] == "C1"
    assert "C1" not in [h.judgment_id for h in ratio_client.search_by_document(text, size=10, exclude="C1").hits]


def test_filters_hold_for_every_hit(api: TestClient) -> None:
    dated = api.post(ROUTE, json={"text": BRIEF, "size": 10, "date_to": "1985"}).json()
    assert dated["hits"] and all(h["decision_date"] <= "1985-12-31" for h in dated["hits"])
    nowhere = api.post(ROUTE, json={"text": BRIEF, "court": ["High Court of Nowhere"]}).json()
    assert nowhere["hits"] == [] and nowhere["judgments_found"] == 0
    bad = api.post(ROUTE, json={"text": BRIEF, "date_from": "2010", "date_to": "2001"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_query"


def _blank_pdf() -> bytes:
    from io import BytesIO

    from pypdf import PdfWriter

    writer, out = PdfWriter(), BytesIO()
    writer.add_blank_page(612, 792)
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize(("name", "data", "status", "code", "says"), [
    ("empty.txt", b"", 400, "empty_brief", "empty"),
    ("spaces.txt", b"  \n\t ", 400, "empty_brief", "empty"),
    ("binary.txt", b"facts of the case\x00\x01\x02", 415, "not_text", "NUL byte"),
    ("latin1.txt", "the accused’s appeal".encode("cp1252"), 415, "not_text", "UTF-8"),
    ("huge.txt", b"appeal " * 200_000, 413, "brief_too_large", "1,000,000"),
    ("corrupt.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog", 422, "unreadable_pdf", "corrupt PDF"),
    ("scan.pdf", None, 422, "unreadable_pdf", "no text layer"),
    ("brief.docx", b"PK\x03\x04 a word file", 415, "unsupported_type", "word-processor"),
])
def test_unreadable_briefs_get_a_named_4xx(api: TestClient, name: str, data: bytes | None, status: int, code: str,
                                           says: str) -> None:
    response = api.post(ROUTE, files={"file": (name, _blank_pdf() if data is None else data, "application/pdf")})
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and says in error["message"]


def test_bad_json_bodies_are_rejected(api: TestClient) -> None:
    assert api.post(ROUTE, json={"text": "   "}).json()["error"]["code"] == "empty_brief"
    invalid = api.post(ROUTE, json={"text": "murder", "size": 0})
    assert invalid.status_code == 422 and invalid.json()["error"]["detail"][0]["field"] == "size"
    assert api.post(ROUTE, json={"text": "murder", "colour": "red"}).status_code == 422
    assert api.post(ROUTE, json={"size": 3}).status_code == 422  # no text
    assert api.post(ROUTE, json=["murder"]).status_code == 422
    wrong = api.post(ROUTE, content=b"murder", headers={"content-type": "text/plain"})
    assert wrong.status_code == 415 and wrong.json()["error"]["code"] == "unsupported_media_type"
    extra = api.post(ROUTE, files={"file": ("b.txt", b"murder", "text/plain")}, data={"colour": "red"})
    assert extra.status_code == 422


def test_the_route_is_in_the_spec_with_both_bodies(api: TestClient) -> None:
    operation = api.get("/api/v1/openapi.json").json()["paths"][ROUTE]["post"]
    assert set(operation["requestBody"]["content"]) == {"application/json", "multipart/form-data"}
    assert {"413", "415", "422"} <= set(operation["responses"])


def test_remote_client_equals_the_api(live_server: str, api: TestClient, ratio_client) -> None:
    remote = RemoteClient(live_server)
    page = remote.search_by_document(BRIEF, size=4, exclude="C99")
    assert isinstance(page, BriefPage) and isinstance(page.hits[0], BriefHit)
    direct = BriefPage.model_validate(api.post(ROUTE, json={"text": BRIEF, "size": 4, "exclude": "C99"}).json())
    assert page.model_dump(exclude={"took_ms"}) == direct.model_dump(exclude={"took_ms"})
    assert "C99" not in [h.judgment_id for h in page.hits]
    # one object model: the local client answers the same page
    local = ratio_client.search_by_document(BRIEF, 4, exclude="C99")
    assert isinstance(local, BriefPage)
    assert local.model_dump(exclude={"took_ms"}) == remote.search_by_document(BRIEF, 4, exclude="C99").model_dump(
        exclude={"took_ms"})


def test_remote_client_uploads_a_file(live_server: str, tmp_path: Path, ratio_client) -> None:
    remote = RemoteClient(live_server)
    path = tmp_path / "brief.pdf"
    path.write_bytes(make_pdf(LINES))
    page = remote.search_by_document(path, size=5)
    assert page.source == "pdf"
    assert [h.judgment_id for h in page.hits] == ratio_client.rank_document(BRIEF, 5)
    with pytest.raises(QueryError, match="empty"):
        remote.search_by_document("   ")
    empty = tmp_path / "scan.pdf"
    empty.write_bytes(_blank_pdf())
    with pytest.raises(QueryError) as unreadable:  # a 422 is the user's to fix: a QueryError, as locally
        remote.search_by_document(empty)
    assert (unreadable.value.status, unreadable.value.code) == (422, "unreadable_pdf")
    binary_file = tmp_path / "brief.txt"
    binary_file.write_bytes(b"facts of the case\x00\x01")
    with pytest.raises(RemoteError) as binary:
        remote.search_by_document(binary_file)
    assert (binary.value.status, binary.value.code) == (415, "not_text")


def test_cli_search_document(opensearch_settings, aliases: dict[str, str], ratio_client, tmp_path: Path) -> None:
    from ratio.cli import cli

    prefix = aliases["judgments"].removesuffix("-judgments")
    path = tmp_path / "brief.txt"
    path.write_text(BRIEF)

    def run(*args: str):
        return CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", prefix, "search", *args],
                                  catch_exceptions=False, env={"COLUMNS": "200"})  # rich's table: no wrapping

    result = run("--document", str(path), "--size", "5", "--exclude", "C1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # stdout alone: a model's loading bar goes to stderr
    expected = ratio_client.rank_document(BRIEF, size=5, exclude="C1")
    assert [h["judgment_id"] for h in data["hits"]] == expected
    assert data["excluded"] == "C1" and any(h["matched"] for h in data["hits"])
    table = run("--document", str(path), "--size", "3")
    assert table.exit_code == 0 and "parts of the brief that matched" in table.output
    assert f"[{ratio_client.rank_document(BRIEF, 1)[0]}]" in table.output
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(_blank_pdf())
    unreadable = run("--document", str(pdf))
    assert unreadable.exit_code == 1 and "no text layer" in unreadable.output
    both = run("murder", "--document", str(path))
    assert both.exit_code == 2 and "not both" in both.output
    assert run("--document", str(path), "--judge", "Sikri").exit_code == 2
    assert "give a QUERY" in run().output
