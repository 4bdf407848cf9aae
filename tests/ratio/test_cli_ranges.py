"""Nonsense numbers are refused by click before anything runs (issue 16, row 13): the message names the option."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ratio.cli import cli
from search.query.options import MAX_PROVISIONS, MAX_RERANK, MAX_SIZE


@pytest.mark.parametrize(("command", "option", "value"), [
    (["search", "murder"], "--size", "0"),
    (["search", "murder"], "--size", str(MAX_SIZE + 1)),
    (["search", "murder"], "--page", "0"),
    (["search", "murder"], "--rerank-top", str(MAX_RERANK + 1)),
    (["search", "murder"], "--explain-top", "-1"),
    (["search", "murder"], "--provisions", str(MAX_PROVISIONS + 1)),
    (["index", "."], "--max-file-mb", "-1"),
    (["index", "."], "--batch-size", "0"),
    (["index", "."], "--window", "0"),
    (["index", "."], "--overlap", "-1"),
    (["index", "."], "--retry-seconds", "-1"),
    (["index", "."], "--ray-workers", "0"),
    (["index", "."], "--block-size", "0"),
])
def test_out_of_range_numbers_are_refused(command: list[str], option: str, value: str) -> None:
    # nothing listens on port 9: a command that got past its options would fail differently
    result = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", *command, option, value])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.output
