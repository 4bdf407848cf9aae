"""The provision forms of issue 26 on hostile input: long runs that look like the start of a citation and never
end in one finish (the rules stay linear) and find nothing."""

from __future__ import annotations

import time

import pytest

from legal.citations import extract_citations, extract_sections

RUNS = ["1, ", "1/", "1 and ", "304-B ", "Order 1 ", "Rule 1 ipc ", "s.304-B, ", "302/34/", "1-1-1-", "a1 "]


@pytest.mark.parametrize("unit", RUNS)
@pytest.mark.parametrize("copies", [2_000, 20_000])
def test_runs_without_an_act_finish_in_linear_time(unit: str, copies: int) -> None:
    text = unit * copies
    started = time.perf_counter()
    assert extract_citations(text, kinds={"provision"}) == []
    extract_sections(text)
    elapsed = time.perf_counter() - started
    assert elapsed < 0.0005 * copies * len(unit) + 1.0, f"{elapsed:.2f} s for {len(text)} characters"
