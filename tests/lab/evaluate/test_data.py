"""Reading queries and qrels from real files in every accepted shape, and the errors for bad ones."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from lab.evaluate import EvalDataError, Query, judged, qid_sort_key, read_qrels, read_queries

# shared/data/aila-2019/README.md: the 20 queries whose judgments are held back
AILA_HELD_OUT = [f"AILA_Q{n}" for n in (2, 5, 9, 10, 12, 14, 15, 17, 19, 27, 28, 35, 39, 42, 43, 44, 46, 47, 48, 49)]


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


# ---------------------------------------------------------------- query formats


def test_aila_lines_keep_file_order_and_skip_empty_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "Query_doc.txt",
                 "AILA_Q10||The appellant was appointed in 1961.\r\n\r\nAILA_Q2|| Bail under s. 437 || CrPC \r\n")
    assert read_queries(path) == [Query("AILA_Q10", "The appellant was appointed in 1961."),
                                  Query("AILA_Q2", "Bail under s. 437 || CrPC")]  # only the first || separates


def test_tsv_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "queries.tsv", "q1\tdowry death\n\nq2\tanticipatory bail\twith a tab inside\n")
    assert read_queries(path) == [Query("q1", "dowry death"), Query("q2", "anticipatory bail\twith a tab inside")]


def test_json_lines_with_either_key_pair(tmp_path: Path) -> None:
    lines = [json.dumps({"qid": "q1", "text": "cheque bounce"}), "", json.dumps({"id": 7, "query": "s. 138 NI Act"})]
    path = write(tmp_path / "queries.jsonl", "\n".join(lines) + "\n")
    assert read_queries(path) == [Query("q1", "cheque bounce"), Query("7", "s. 138 NI Act")]


def test_a_gzip_file_is_told_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    path = tmp_path / "queries.tsv"
    path.write_bytes(gzip.compress(b"q1\tdowry death\n"))
    assert read_queries(path) == [Query("q1", "dowry death")]


def test_text_that_is_not_utf8_is_read_as_cp1252(tmp_path: Path) -> None:
    path = write(tmp_path / "queries.tsv", "q1\tSection 302 – murder, café’s owner\n", encoding="cp1252")
    assert b"\x96" in path.read_bytes()  # the en dash really is a cp1252 byte, invalid as UTF-8
    assert read_queries(path) == [Query("q1", "Section 302 – murder, café’s owner")]


def test_a_utf8_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = write(tmp_path / "queries.tsv", "\ufeffq1\tcafé\n")
    assert read_queries(path) == [Query("q1", "café")]


def test_a_folder_holds_one_query_per_file_in_qid_order(tmp_path: Path) -> None:
    folder = tmp_path / "Current_Cases"
    folder.mkdir()
    (folder / "case_10.txt.gz").write_bytes(gzip.compress(b"1\\. Leave granted.\n\fThe appeal...\n"))
    write(folder / "case_2.txt", "  Facts of the second case.\n")
    write(folder / "case_3", "Récépissé", encoding="cp1252")
    write(folder / ".DS_Store", "not a query")
    assert read_queries(folder) == [Query("case_2", "Facts of the second case."),
                                    Query("case_3", "Récépissé"),
                                    Query("case_10", "1\\. Leave granted.\n\fThe appeal...")]


# ---------------------------------------------------------------- query errors


@pytest.mark.parametrize(("text", "line", "reason"), [
    ("AILA_Q1||facts\nAILA_Q2 facts\n", 2, "expected 'qid||text' as on the first line, found no '||' separator"),
    ("AILA_Q1||facts\nAILA_Q2||  \n", 2, "query 'AILA_Q2' has no text"),
    ("q1\tfacts\n\nq2 facts\n", 3, "expected 'qid<TAB>text' as on the first line, found no '\\t' separator"),
    ("q1\tfacts\nq 2\tfacts\n", 2, "expected 'qid<TAB>text' as on the first line, the query id 'q 2' is empty or has "
                                    "spaces"),
    ('{"qid": "q1", "text": "a"}\n{"qid": "q2", "text": \n', 2, "not valid JSON (Expecting value at column 23)"),
    ('{"qid": "q1", "text": "a"}\n["q2", "b"]\n', 2, "expected a JSON object with 'qid' and 'text'"),
    ('{"qid": "q1", "text": "a"}\n{"text": "b"}\n', 2, "the JSON object has no 'qid' (or 'id') string"),
    ('{"qid": "q1", "text": ""}\n', 1, "query 'q1' has no 'text' (or 'query') string"),
    ("q1\tfacts\nq2\tmore\nq1\tagain\n", 3, "query 'q1' appears twice (first at line 1)"),
    ("\njust some words\n", 2, "unknown query format: expected 'qid||text', 'qid<TAB>text' or JSON lines with 'qid' "
                               "and 'text'"),
])
def test_a_malformed_query_line_names_file_line_and_reason(tmp_path: Path, text: str, line: int, reason: str) -> None:
    path = write(tmp_path / "queries.txt", text)
    with pytest.raises(EvalDataError) as caught:
        read_queries(path)
    assert str(caught.value) == f"{path}:{line}: {reason}"
    assert (caught.value.path, caught.value.line, caught.value.reason) == (path, line, reason)
    assert isinstance(caught.value, ValueError)


def test_query_file_and_folder_errors(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.tsv", "\n  \n")
    with pytest.raises(EvalDataError, match=r"empty\.tsv: holds no queries$"):
        read_queries(empty)
    with pytest.raises(EvalDataError, match=r"nowhere\.tsv: no such file or folder$"):
        read_queries(tmp_path / "nowhere.tsv")
    folder = tmp_path / "cases"
    folder.mkdir()
    with pytest.raises(EvalDataError, match=r"cases: holds no query files$"):
        read_queries(folder)
    write(folder / "c1.txt", "facts")
    (folder / "c1.txt.gz").write_bytes(gzip.compress(b"the same case again"))
    with pytest.raises(EvalDataError) as caught:
        read_queries(folder)
    assert str(caught.value) == f"{folder / 'c1.txt.gz'}: query 'c1' appears twice (first at c1.txt)"
    (folder / "c1.txt.gz").unlink()
    write(folder / "c2.txt", " \n")
    with pytest.raises(EvalDataError, match=r"c2\.txt: is empty: a query file holds one query's text$"):
        read_queries(folder)


def test_broken_gzip_and_undecodable_bytes_are_errors(tmp_path: Path) -> None:
    broken = tmp_path / "q.tsv.gz"
    broken.write_bytes(gzip.compress(b"q1\tfacts\n")[:-6])
    with pytest.raises(EvalDataError, match=r"q\.tsv\.gz: is not a valid gzip file"):
        read_queries(broken)
    undecodable = tmp_path / "q.tsv"
    undecodable.write_bytes(b"q1\tfacts \x81\n")  # 0x81 is invalid in UTF-8 and undefined in cp1252
    with pytest.raises(EvalDataError, match=r"q\.tsv: is neither UTF-8 nor cp1252 text \(byte 9\)$"):
        read_queries(undecodable)


# ---------------------------------------------------------------- qrels


def test_trec_qrels_in_both_benchmark_shapes(tmp_path: Path) -> None:
    aila = write(tmp_path / "aila.txt", "AILA_Q1 Q0 C168 0\r\nAILA_Q1 Q0 C14 1\r\n\r\nAILA_Q3\tQ0\tC1 2\r\n")
    assert read_qrels(aila) == {"AILA_Q1": {"C168": 0, "C14": 1}, "AILA_Q3": {"C1": 2}}
    irled = tmp_path / "irled.txt.gz"
    irled.write_bytes(gzip.compress(b"current_case_0051 0 prior_case_1593 1\ncurrent_case_0051 0 prior_case_0895 -1\n"))
    assert read_qrels(irled) == {"current_case_0051": {"prior_case_1593": 1, "prior_case_0895": -1}}


def test_the_same_judgment_twice_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path / "qrels.txt", "q1 0 d1 1\nq1 0 d1 1\n")
    assert read_qrels(path) == {"q1": {"d1": 1}}


@pytest.mark.parametrize(("text", "line", "reason"), [
    ("q1 0 d1 1\nq1 0 d2\n", 2, "expected 4 fields 'qid iter docid rel', found 3"),
    ("q1 0 d1 1 extra\n", 1, "expected 4 fields 'qid iter docid rel', found 5"),
    ("q1 0 d1 1\n\nq1 0 d2 yes\n", 3, "the relevance 'yes' is not an integer"),
    ("q1 0 d1 0.5\n", 1, "the relevance '0.5' is not an integer"),
    ("q1 0 d1 1\nq1 Q0 d1 0\n", 2, "q1 d1 is judged twice, as 1 and as 0"),
])
def test_a_malformed_qrels_line_names_file_line_and_reason(tmp_path: Path, text: str, line: int, reason: str) -> None:
    path = write(tmp_path / "qrels.txt", text)
    with pytest.raises(EvalDataError) as caught:
        read_qrels(path)
    assert str(caught.value) == f"{path}:{line}: {reason}"


def test_qrels_file_errors(tmp_path: Path) -> None:
    with pytest.raises(EvalDataError, match=r"qrels\.txt: holds no judgments$"):
        read_qrels(write(tmp_path / "qrels.txt", "\n\n"))
    with pytest.raises(EvalDataError, match=r"missing\.txt: no such file$"):
        read_qrels(tmp_path / "missing.txt")


# ---------------------------------------------------------------- judged


def test_judged_keeps_queries_with_a_relevant_judgment_and_counts_the_rest() -> None:
    queries = [Query("q3", "c"), Query("q1", "a"), Query("q2", "b"), Query("q4", "d")]
    qrels = {"q1": {"d1": 0, "d2": 1}, "q2": {"d1": 0, "d2": 0}, "q4": {"d9": 2}, "q9": {"d1": 1}}
    kept, skipped = judged(queries, qrels)
    assert kept == [Query("q1", "a"), Query("q4", "d")]  # the input order, not the qrels order
    assert skipped == ["q3", "q2"]  # q3: not judged at all; q2: judged, none relevant


def test_qid_sort_key_orders_numbers_as_numbers() -> None:
    qids = ["AILA_Q10", "AILA_Q2", "AILA_Q1", "b", "a10", "a9"]
    assert sorted(qids, key=qid_sort_key) == ["AILA_Q1", "AILA_Q2", "AILA_Q10", "a9", "a10", "b"]


# ---------------------------------------------------------------- the shared benchmark files


def test_real_aila_queries_keep_30_judged_and_skip_the_20_held_out(shared_data: Path) -> None:
    aila = shared_data / "aila-2019"
    queries = read_queries(aila / "Query_doc.txt")
    assert len(queries) == 50
    assert [q.qid for q in queries[:3]] == ["AILA_Q1", "AILA_Q2", "AILA_Q3"]
    assert queries[0].text.startswith("The appellant on February 9, 1961 was appointed")
    kept, skipped = judged(queries, read_qrels(aila / "relevance_judgments_priorcases.txt"))
    assert (len(kept), len(skipped)) == (30, 20)
    assert sorted(skipped, key=qid_sort_key) == AILA_HELD_OUT


def test_real_irled_folder_of_gzip_queries(shared_data: Path) -> None:
    irled = shared_data / "fire2017-irled-precedent"
    queries = read_queries(irled / "Current_Cases")
    assert len(queries) == 200
    assert queries[0].qid == "current_case_0001"
    assert queries[0].text.startswith("**Judgement**")
    kept, skipped = judged(queries, read_qrels(irled / "irled-qrel.txt"))
    assert (len(kept), len(skipped)) == (120, 80)
