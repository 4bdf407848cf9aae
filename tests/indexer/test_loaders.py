"""Loaders on the real corpora, on built PDF/HTML/JSONL files, and on bad input that must not stop a batch."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from pathlib import Path

import pytest

from indexer.document import Judgment, LoadError, Provision, judgment_id_for
from indexer.loaders import LoadOptions, html_to_text, load


def only(items: list) -> object:
    assert len(items) == 1, items
    return items[0]


def test_aila_case_file_keeps_text_and_reads_header(data_dir: Path) -> None:
    path = data_dir / "aila-2019" / "Object_casedocs" / "C1.txt"
    judgment = only(list(load([path])))
    assert isinstance(judgment, Judgment)
    assert judgment.judgment_id == "C1"
    assert judgment.source == "aila-2019"
    assert judgment.text == path.read_text(encoding="utf-8")
    assert judgment.title == "Masud Khan v State Of Uttar Pradesh"
    assert judgment.decision_date == dt.date(1973, 9, 26)
    assert judgment.case_number == "Writ Petition No. 117 of 1973"
    assert "AIR 1956 SC 415" in judgment.cited_judgments
    assert judgment.warnings == ()


def test_id_prefix_and_source_override(data_dir: Path) -> None:
    path = data_dir / "aila-2019" / "Object_casedocs" / "C1.txt"
    judgment = only(list(load([path], LoadOptions(id_prefix="aila", source="aila-test"))))
    assert judgment.judgment_id == "aila:C1"
    assert judgment.source == "aila-test"


@pytest.mark.parametrize(
    ("path", "record_id", "prefix", "expected"),
    [
        ("a/C123.txt", None, None, "C123"),
        ("x/prior_case_0001.txt.gz", None, None, "prior_case_0001"),
        ("x/prior_case_0001.txt.gz", None, "irled", "irled:prior_case_0001"),
        ("x/file.jsonl", 4180, None, "4180"),
        (None, "SC 2019/12", "in", "in:SC_2019_12"),
        ("x/2019.SC.12.html", None, None, "2019.SC.12"),
        ("x/判决一.txt", None, None, "判决一"),
        ("x/निर्णय 1.txt", None, None, "निर्णय_1"),
        ("x/e\u0301tude.txt", None, None, "\u00e9tude"),  # NFD (as macOS writes names) gives the NFC id
        ("x/a b.txt", None, None, "a_b"),
        ("x/a__b?!.txt", None, None, "a__b_"),
    ],
)
def test_judgment_id_rule(path: str | None, record_id: object, prefix: str | None, expected: str) -> None:
    assert judgment_id_for(path, record_id, prefix) == expected


def test_aila_statute_becomes_provision(data_dir: Path) -> None:
    provision = only(list(load([data_dir / "aila-2019" / "Object_statutes" / "S1.txt"])))
    assert isinstance(provision, Provision)
    assert provision.provision_id == "S1"
    assert provision.title == "Power of High Courts to issue certain writs"
    assert provision.text.startswith("(1) Notwithstanding anything in Article 32")
    # the text mentions Article 32 but is Article 226: a citation not at the opening is not its label
    assert (provision.act, provision.section, provision.citation) == (None, None, None)


def test_statute_title_that_names_its_section_is_labelled(tmp_path: Path) -> None:
    path = tmp_path / "S302.txt"
    path.write_text("Title: Section 302 IPC: Punishment for murder\nDesc: Whoever commits murder shall be punished.\n")
    provision = only(list(load([path])))
    assert isinstance(provision, Provision)
    assert (provision.act, provision.section, provision.citation) == ("IPC", "302", "IPC s. 302")


def test_directory_is_walked_and_streams(data_dir: Path) -> None:
    items = load([data_dir / "aila-2019" / "Object_statutes"])
    assert not isinstance(items, list)  # a generator: nothing is read before it is asked for
    loaded = list(items)
    assert len(loaded) == 197
    assert all(isinstance(p, Provision) for p in loaded)


def test_glob(data_dir: Path) -> None:
    loaded = list(load([str(data_dir / "aila-2019" / "Object_casedocs" / "C1?.txt")]))
    assert sorted(j.judgment_id for j in loaded) == [f"C{i}" for i in range(10, 20)]


def test_irled_gzip_prior_case(data_dir: Path) -> None:
    judgment = only(list(load([data_dir / "fire2017-irled-precedent" / "Prior_Cases" / "prior_case_0001.txt.gz"])))
    assert judgment.judgment_id == "prior_case_0001"
    assert judgment.source == "fire2017-irled"
    assert judgment.decision_date == dt.date(1995, 10, 11)
    assert "(1995) 6 SCC 315" in judgment.citations
    assert "(1995) 6 SCC 315" not in judgment.cited_judgments  # its own citation, not a cited case
    assert "Income Tax Act, 1961 s. 64(1)(iv)" in judgment.cited_provisions


def test_irled_current_case_has_no_header(data_dir: Path) -> None:
    judgment = only(list(load([data_dir / "fire2017-irled-precedent" / "Current_Cases" / "current_case_0002.txt.gz"])))
    assert judgment.source == "text"
    assert "[?CITATION?]" in judgment.text
    assert judgment.decision_date is None


def test_opennyai_label_studio_json(data_dir: Path) -> None:
    loaded = list(load([data_dir / "opennyai-rhetorical-roles" / "dev.json"]))
    assert len(loaded) == 30
    assert all(isinstance(j, Judgment) and j.source == "opennyai" for j in loaded)
    assert len({j.judgment_id for j in loaded}) == 30
    first = loaded[0]
    assert first.judgment_id == "4180"
    assert first.extra["group"] == "Tax"
    assert first.decision_date == dt.date(1961, 5, 5)


def test_jsonl_good_and_bad_lines(tmp_path: Path, data_dir: Path) -> None:
    text = (data_dir / "aila-2019" / "Object_casedocs" / "C1.txt").read_text(encoding="utf-8")
    lines = [
        json.dumps(
            {
                "id": "j1",
                "text": text,
                "title": "Masud Khan v. State of U.P.",
                "date": "1973-09-26",
                "judges": ["A. Alagiriswami"],
                "bench_size": 2,
            }
        ),
        '{"id": "j2", "text": "broken',
        json.dumps({"text": "no id here"}),
        json.dumps({"id": "j4", "text": "A judgment.", "date": "sometime"}),
        "",
        json.dumps({"id": 5, "text": "Decided under Section 302 IPC.", "court": "High Court of Karnataka"}),
    ]
    path = tmp_path / "batch.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = list(load([path]))
    assert [type(x).__name__ for x in loaded] == ["Judgment", "LoadError", "LoadError", "LoadError", "Judgment"]
    good = loaded[0]
    assert good.judgment_id == "j1"
    assert good.title == "Masud Khan v. State of U.P."  # the record's own field wins over the header
    assert good.judges == ("A. Alagiriswami",)
    assert good.extra["bench_size"] == 2
    assert loaded[1].item.endswith("#line 2") and "line 2" in loaded[1].reason
    assert "id" in loaded[2].reason
    assert "date" in loaded[3].reason
    assert loaded[4].judgment_id == "5" and loaded[4].cited_provisions == ("IPC s. 302",)


def test_pdf_text_layer(tmp_path: Path, pdf_maker) -> None:
    path = tmp_path / "masud.pdf"
    path.write_bytes(
        pdf_maker(["Masud Khan v State Of Uttar Pradesh", "Detained under Section 3 of the Foreigners Act, 1946."])
    )
    judgment = only(list(load([path])))
    assert isinstance(judgment, Judgment)
    assert judgment.source == "pdf"
    assert "Masud Khan v State Of Uttar Pradesh" in judgment.text
    assert judgment.cited_provisions == ("Foreigners Act, 1946 s. 3",)
    assert judgment.extra["pages"] == 1


HTML = """<!DOCTYPE html><html><head><title>Masud Khan v State Of Uttar Pradesh</title>
<style>p { color: red }</style><script>var x = "not text";</script></head>
<body><h1>Masud Khan v State Of Uttar Pradesh</h1>
<p>1. Petitioner Masud Khan prays for his release on the ground that he, an <b>Indian citizen</b>
has been illegally arrested under Paragraph 5 of the Foreigners (Internment) Order, 1962.</p>
<p>2. He relied on <i>AIR 1956 SC 415</i>.<br>The petition fails.</p><!-- a comment --></body></html>"""


def test_html_visible_text(tmp_path: Path) -> None:
    text, title = html_to_text(HTML)
    assert title == "Masud Khan v State Of Uttar Pradesh"
    assert "not text" not in text and "color" not in text and "comment" not in text
    assert "an Indian citizen has been illegally arrested" in text  # inline tags do not break the line
    assert "AIR 1956 SC 415.\nThe petition fails." in text
    path = tmp_path / "masud.html"
    path.write_text(HTML, encoding="utf-8")
    judgment = only(list(load([path])))
    assert judgment.source == "html" and judgment.cited_judgments[-1] == "AIR 1956 SC 415"


def test_unknown_extension_named_explicitly_is_sniffed(tmp_path: Path) -> None:
    path = tmp_path / "judgment"
    path.write_text(HTML, encoding="utf-8")
    assert only(list(load([path]))).source == "html"


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "empty": (tmp_path / "empty.txt", b""),
        "blank": (tmp_path / "blank.txt", b"  \n\n \t"),
        "binary": (tmp_path / "binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20),
        "corrupt_pdf": (tmp_path / "corrupt.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R"),
        "fake_pdf": (tmp_path / "fake.pdf", b"this is not a pdf"),
        "bad_json": (tmp_path / "bad.json", b'[{"id": 1, "text": "x"},'),
        "bad_gzip": (tmp_path / "bad.txt.gz", b"\x1f\x8b\x08\x00garbage"),
        "controls": (tmp_path / "controls.txt", bytes(range(1, 9)) * 50),
    }
    for path, payload in files.values():
        path.write_bytes(payload)
    return {name: path for name, (path, _payload) in files.items()}


@pytest.mark.parametrize(
    ("name", "reason_part"),
    [
        ("empty", "empty file"),
        ("blank", "whitespace"),
        ("binary", "binary"),
        ("corrupt_pdf", "corrupt PDF"),
        ("fake_pdf", "not a PDF"),
        ("bad_json", "invalid JSON at line 1"),
        ("bad_gzip", "corrupt gzip"),
        ("controls", "binary"),
    ],
)
def test_bad_input_is_reported_by_name_and_reason(tmp_path: Path, name: str, reason_part: str) -> None:
    path = _bad_files(tmp_path)[name]
    error = only(list(load([path])))
    assert isinstance(error, LoadError)
    assert error.item == str(path)
    assert reason_part in error.reason


def test_bad_files_do_not_stop_the_batch(tmp_path: Path, data_dir: Path) -> None:
    bad = _bad_files(tmp_path)
    good = data_dir / "aila-2019" / "Object_casedocs" / "C1.txt"
    loaded = list(load([*bad.values(), tmp_path / "missing.txt", str(tmp_path / "*.none"), good]))
    assert [type(x).__name__ for x in loaded] == ["LoadError"] * (len(bad) + 2) + ["Judgment"]
    assert loaded[len(bad)].reason == "no such file or directory"
    assert loaded[len(bad) + 1].reason == "pattern matched no files"


def test_cp1252_falls_back_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "cp1252.txt"
    path.write_bytes(
        "The Hon\u2019ble Court held \u201cthe detention illegal\u201d \u2013 appeal allowed.".encode("cp1252")
    )
    judgment = only(list(load([path])))
    assert isinstance(judgment, Judgment)
    assert "Hon\u2019ble" in judgment.text
    assert judgment.warnings and "cp1252" in judgment.warnings[0]
    strict = only(list(load([path], LoadOptions(fallback_encoding=None))))
    assert isinstance(strict, LoadError) and "UTF-8" in strict.reason


def test_over_max_size_is_refused(tmp_path: Path, data_dir: Path) -> None:
    source = data_dir / "aila-2019" / "Object_casedocs" / "C1.txt"
    error = only(list(load([source], LoadOptions(max_bytes=1000))))
    assert isinstance(error, LoadError) and "over the limit of 1000 bytes" in error.reason
    packed = tmp_path / "C1.txt.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    limit = (packed.stat().st_size + source.stat().st_size) // 2  # the gzip fits, its content does not
    error = only(list(load([packed], LoadOptions(max_bytes=limit))))
    assert isinstance(error, LoadError) and "unpacks to over the limit" in error.reason


def test_single_record_json_without_id_takes_the_file_stem(data_dir: Path) -> None:
    folder = data_dir / "bva-vetclaims-rhetorical-roles" / "BVA_Decisions_JSON_Format"
    path = sorted(folder.glob("*.json.gz"))[0]
    judgment = only(list(load([path])))
    assert isinstance(judgment, Judgment)
    assert judgment.judgment_id == path.name.removesuffix(".json.gz")
    assert judgment.source == "json" and judgment.text.strip()


def test_folder_walk_skips_dataset_metadata_but_not_named_files(tmp_path: Path) -> None:
    from indexer.loaders import iter_files

    for name in ("README.md", "README.original.txt", "Query_doc.txt", "relevance_judgments_priorcases.txt",
                 "irled-qrel.txt", "C1.txt"):
        (tmp_path / name).write_text("Some text of a judgment.\n")
    walked = [found[0].name for found in iter_files([tmp_path])]
    assert walked == ["C1.txt"]
    named = [found[0].name for found in iter_files([tmp_path / "Query_doc.txt"])]
    assert named == ["Query_doc.txt"]


def test_a_record_id_over_the_byte_limit_fails_its_line_alone(tmp_path: Path) -> None:
    lines = [{"id": "a", "text": "The appeal is dismissed."}, {"id": "é" * 251, "text": "The appeal is allowed."},
             {"id": "b", "text": "The appeal is allowed."}]
    path = tmp_path / "ids.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    loaded = list(load([path]))
    assert [type(x).__name__ for x in loaded] == ["Judgment", "LoadError", "Judgment"]
    assert loaded[1].item == f"{path}#line 2" and "502 bytes" in loaded[1].reason
    assert loaded[0].item == f"{path}#line 1", "a record names its line in reports"


def test_an_id_prefix_is_checked(tmp_path: Path) -> None:
    for bad in ("", "a/b", "x" * 101, "has space"):
        with pytest.raises(ValueError, match="id prefix"):
            LoadOptions(id_prefix=bad)
    with pytest.raises(ValueError, match="size limit"):
        LoadOptions(max_bytes=0)
    assert LoadOptions(id_prefix="aila:2019").id_prefix == "aila:2019"
