"""Which file owns an id (indexer.identity): the pure rules the writer applies, on paths and claims."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from indexer.document import MAX_ID_BYTES, id_problem
from indexer.identity import RunIds, same_source, source_key


def test_source_key_is_absolute_and_normalised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert source_key("a/../b/C1.txt") == str(tmp_path / "b" / "C1.txt")
    assert source_key(None) is None


@pytest.mark.parametrize(("stored", "new", "same"), [
    ("/data/a/C1.txt", "/data/a/C1.txt", True),
    ("/data/a/C1.txt", "/data/a/./x/../C1.txt", True),
    ("/data/a/C1.txt", "/data/coll/C1.txt", False),
    ("samples/aila-2019/judgments/C1.txt", "/work/ratio/samples/aila-2019/judgments/C1.txt", True),  # older Ratio
    ("samples/aila-2019/judgments/C1.txt", "/work/ratio/coll/C1.txt", False),
    ("/data/a/C1.txt", None, False),
    (None, "/data/coll/C1.txt", True),  # stored without a path: nothing to protect
    ("", "/data/coll/C1.txt", True),
])
def test_same_source(stored: str | None, new: str | None, same: bool) -> None:
    assert same_source(stored, new) is same


def test_a_relative_path_of_this_directory_is_the_same_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert same_source(str(tmp_path / "C1.txt"), "C1.txt")
    assert same_source("C1.txt", os.path.join(str(tmp_path), "C1.txt"))


def test_run_ids_refuse_a_second_claim_naming_the_first() -> None:
    ids = RunIds()
    assert ids.claim("judgment", "X1", "a/X1.txt") is None
    assert ids.claim("provision", "X1", "s/X1.txt") is None, "judgments and provisions are apart"
    reason = ids.claim("judgment", "X1", "b/X1.txt")
    assert reason and "'X1'" in reason and "a/X1.txt" in reason
    assert "an earlier record of the same file" in (ids.claim("judgment", "X1", "a/X1.txt") or "")
    assert ids.claim("judgment", "X2", "b/X2.txt") is None


def test_id_problem() -> None:
    assert id_problem("C1") is None and id_problem("判" * (MAX_ID_BYTES // 3)) is None
    assert "empty" in (id_problem(" ") or "")
    assert f"over the limit of {MAX_ID_BYTES} bytes" in (id_problem("判" * 200) or "")
