"""Hostile input on the write path's text stages: every rule finishes in time linear in its input, and says
what it found or why it refused.

Each pathological input runs first in a forked child with a generous limit (:func:`finishes`), so a rule that
turns quadratic again fails the test instead of hanging the suite; then here, for its result. The old
case-name rule took 114 s on a 20k-character capitalised run and never finished on 200k; the same inputs now
take well under a second. The limit is a backstop far above the expected time, not a timing assertion.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from indexer.document import Judgment, LoadError
from indexer.loaders import LoadOptions, load
from lab.hostile import citation_check_body, hostile_inputs, write_inputs
from legal.citations import extract_citations
from legal.sentences import MAX_SENTENCE_CHARS, split

_LIMIT_S = 120  # far above the second or so each input takes on a busy 2-core machine

_TAIL = ("Kesavananda Bharati v. State of Kerala", "(1973) 4 SCC 225", "IPC s. 302")


def _child(connection: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    function(*args)
    connection.send(True)
    connection.close()


def finishes(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, once it has finished within the limit in a forked child (a test failure if not)."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, function, args))
    child.start()
    send.close()
    if not receive.poll(_LIMIT_S):
        child.kill()
        child.join()
        pytest.fail(f"{getattr(function, '__name__', function)} ran past {_LIMIT_S} s: a rule is no longer linear")
    assert receive.recv() is True
    child.join()
    return function(*args)


def _load(path: Path) -> list[Judgment | LoadError]:
    return [item for item in load([path]) if isinstance(item, (Judgment, LoadError))]


INPUTS = hostile_inputs()


@pytest.mark.parametrize("hostile", INPUTS, ids=[i.name for i in INPUTS])
def test_hostile_file_loads_or_is_refused_with_its_reason(hostile, tmp_path: Path) -> None:
    [path] = write_inputs(tmp_path, [hostile])
    loaded = finishes(_load, path)
    assert len(loaded) == 1, loaded
    item = loaded[0]
    if hostile.expect == "error":
        assert isinstance(item, LoadError), item
        assert item.item.startswith(str(path)) and item.reason
        return
    assert isinstance(item, Judgment), item
    assert "\x00" not in item.text and "\x1b" not in item.text
    sentences = finishes(split, item.text)
    assert sentences and max(len(s.text) for s in sentences) <= MAX_SENTENCE_CHARS
    assert all(item.text[s.start:s.end] == s.text for s in sentences)
    if hostile.name not in {"citation-body", "huge-record"}:  # the others end with a real sentence
        found = {c.normalized for c in item.text_citations or ()}
        assert set(_TAIL) <= found, (hostile.name, sorted(found)[:10])
        assert "Kesavananda Bharati v. State of Kerala" in item.cited_judgments
        assert "IPC s. 302" in item.cited_provisions


@pytest.mark.parametrize("length", [5_000, 10_000, 20_000, 200_000])
def test_capitalised_run_of_the_probe(length: int) -> None:
    """The probe of issue 16: a capitalised run with no spaces, then a citation the run must not hide."""
    text = "A" * length + "\n\nSee Maneka Gandhi v. Union of India, AIR 1978 SC 597."
    found = finishes(extract_citations, text)
    assert [(c.kind, c.normalized) for c in found] == [
        ("case_name", "Maneka Gandhi v. Union of India"), ("judgment", "AIR 1978 SC 597")]


def test_one_megabyte_citation_check_body() -> None:
    body = citation_check_body(1_000_000)
    found = finishes(extract_citations, body)
    assert len(body) == 1_000_000 and found
    assert all(body[c.start:c.end] == c.text for c in found)
    assert {"judgment", "case_name", "provision"} <= {c.kind for c in found}


def test_case_name_starting_inside_a_token_keeps_its_span() -> None:
    """A case name may start at the first capital of a token (``xState``); the match reads the token from its
    start but the citation starts where the name does, as before."""
    text = "1.xState of Kerala v. Union of India"
    [citation] = extract_citations(text, kinds={"case_name"})
    assert (citation.start, citation.text) == (3, "State of Kerala v. Union of India")
    assert citation.normalized == "State of Kerala v. Union of India"


def test_long_section_lists_are_read_up_to_the_cap() -> None:
    listed = ", ".join(str(n) for n in range(1, 25))
    found = extract_citations(f"under Sections {listed} of the Indian Penal Code", kinds={"provision"})
    assert [c.normalized for c in found] == [f"IPC s. {n}" for n in range(1, 25)]
    hostile = "s. 1, " * 50_000  # no Act after the list: every 's.' starts a list, each read at most 24 items
    assert finishes(extract_citations, hostile, None, {"provision"}) == []


def test_over_long_sentence_is_cut_at_line_breaks(data_dir: Path) -> None:
    """A Law-AI file is one sentence per line without final stops: once one 24,857-character sentence, now
    pieces no longer than the limit, each ending at a line end."""
    path = data_dir / "law-ai-rhetorical-roles" / "text" / "2010_S_431.txt"
    text = path.read_text(encoding="utf-8")
    sentences = split(text)
    assert len(sentences) > 5
    assert all(len(s.text) <= MAX_SENTENCE_CHARS for s in sentences)
    assert all(s.end == len(text.rstrip()) or text[s.end] == "\n" for s in sentences)


def test_cut_prefers_semicolon_then_space() -> None:
    clause = "the appellant was in possession of the property and paid the rent regularly"  # 76 chars
    text = (clause + " ") * 20 + "; " + (clause + " ") * 20
    pieces = split(text, max_chars=2000)
    assert [p.text[-1] for p in pieces[:-1]] == [";"]
    words = "word " * 1000  # no line break or semicolon: cut at a space, never inside a word
    assert all(p.text.split(" ")[-1] == "word" for p in split(words, max_chars=300))
    assert all(len(p.text) <= 300 for p in split("x" * 1000, max_chars=300))


def test_control_characters_after_the_first_8_kb(tmp_path: Path) -> None:
    head = "The appellant was convicted under s. 302 IPC. " * 200  # 9,200 characters
    nul = tmp_path / "nul.txt"
    nul.write_bytes((head + "\x00 more text").encode())
    [refused] = load([nul])
    assert isinstance(refused, LoadError) and refused.item == str(nul)
    assert refused.reason == "binary file (a NUL byte at byte 9200), not text"
    ansi = tmp_path / "ansi.txt"
    ansi.write_bytes((head + "\x1b[1;31mred\x1b[0m and a bell\x07.").encode())
    [judgment] = load([ansi])
    assert isinstance(judgment, Judgment)
    assert judgment.text.endswith("red and a bell.")
    assert "removed 3 control characters or terminal escape sequences" in judgment.warnings
    record = tmp_path / "escaped.jsonl"  # a JSON string can carry an escape as \u001b; it is removed too
    record.write_text('{"id": "e1", "text": "Held \\u001b[2Jthat s. 302 IPC applies."}\n', encoding="utf-8")
    [from_json] = load([record])
    assert isinstance(from_json, Judgment) and from_json.text == "Held that s. 302 IPC applies."


def test_time_budget_of_loading_names_the_step(tmp_path: Path) -> None:
    path = tmp_path / "C1.txt"
    path.write_text("Masud Khan v. State of Uttar Pradesh\n\nThe appellant was convicted under s. 302 IPC.\n")
    [late] = load([path], LoadOptions(judgment_seconds=1e-9))
    assert isinstance(late, LoadError) and late.item == str(path)
    assert late.reason == "took more than 1e-09 s in citation extraction"
    [judgment] = load([path])
    assert isinstance(judgment, Judgment)
    with pytest.raises(ValueError, match="positive"):
        LoadOptions(judgment_seconds=0)


def test_a_number_json_cannot_convert_is_an_error_of_its_record(tmp_path: Path) -> None:
    """Found by the fuzzer: json refuses integers over 4,300 digits with a plain ValueError."""
    path = tmp_path / "big.jsonl"
    path.write_text('{"id": ' + "1" * 5000 + ', "text": "x"}\n{"id": "ok", "text": "Held."}\n', encoding="utf-8")
    bad, good = load([path])
    assert isinstance(bad, LoadError) and bad.item == f"{path}#line 1" and "4300 digits" in bad.reason
    assert isinstance(good, Judgment) and good.judgment_id == "ok"
    whole = tmp_path / "big.json"
    whole.write_text('{"id": ' + "1" * 5000 + ', "text": "x"}', encoding="utf-8")
    [refused] = load([whole])
    assert isinstance(refused, LoadError) and refused.reason.startswith("invalid JSON")
