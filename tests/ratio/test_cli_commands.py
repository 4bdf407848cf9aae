"""The ``ratio`` command tree: every command answers ``--help``, the ``train`` group holds every trainer, the
shared options take their choices from the enums, and renamed options keep their old spelling as a hidden alias."""

from __future__ import annotations

from importlib.metadata import version

import click
import pytest
from click.testing import CliRunner

from ratio.cli import cli
from search.answer import MODES
from search.query.request import EXPANSIONS, RoleMode
from search.retrieval.fusion import FusionMethod
from tests.ratio.cli_tree import command_paths, resolve

PATHS = [path for path, _ in command_paths(cli)]


def test_the_tree_is_walked() -> None:
    """The walk reaches the nested commands (so a test over PATHS covers a new command by itself)."""
    assert {("opensearch", "start"), ("indices", "upgrade"), ("eval", "provision-qa"), ("alerts", "check"),
            ("train", "roles"), ("train", "reranker"), ("train", "embedder")} <= set(PATHS)


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_every_command_answers_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: ratio {' '.join(path)} ")


def test_root_help_and_version() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0 and "Commands:" in result.output
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"ratio {version('ratio')}\n"


def test_one_train_group_holds_every_trainer() -> None:
    result = CliRunner().invoke(cli, ["train", "--help"])
    assert result.exit_code == 0
    assert all(name in result.output for name in ("roles", "reranker", "embedder"))
    result = CliRunner().invoke(cli, ["train", "roles", "--help"])
    assert result.exit_code == 0 and "--opennyai-train" in result.output and "--law-ai" in result.output


def _options(path: tuple[str, ...]) -> dict[str, click.Option]:
    command: click.Command | None = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.get_command(click.Context(command), name)  # the root group loads its commands lazily
    assert command is not None
    return {opt: param for param in command.params if isinstance(param, click.Option) for opt in param.opts}


def _choices(path: tuple[str, ...], option: str) -> tuple[str, ...]:
    param_type = _options(path)[option].type
    assert isinstance(param_type, click.Choice)
    return tuple(param_type.choices)


def test_choices_come_from_the_enums() -> None:
    roles = tuple(mode.value for mode in RoleMode)
    assert _choices(("search",), "--mode") == roles
    assert _choices(("alerts", "save"), "--mode") == roles
    assert set(_choices(("bench", "search"), "--mode")) == set(roles) - {RoleMode.FILTER.value}
    assert _choices(("search",), "--fusion") == tuple(method.value for method in FusionMethod)
    assert _choices(("search",), "--expand") == tuple(EXPANSIONS)
    assert _choices(("ask",), "--mode") == tuple(MODES)


def test_shared_options_keep_one_spelling_and_envvar() -> None:
    """Every command with an encoder, reranker or LLM option spells it the same, with the same envvar.

    The role-head commands are the exception: their ``--encoder`` names the head's sentence encoder (taken
    from ``--role-head`` when not given), so ``RATIO_ENCODER``, set for indexing and search, must not reach it."""
    envvars = {"--encoder": "RATIO_ENCODER", "--reranker": "RATIO_RERANKER", "--rerank-weight": "RATIO_RERANK_WEIGHT",
               "--llm": "RATIO_LLM", "--llm-url": "RATIO_LLM_URL", "--api-key": "RATIO_API_KEY"}
    head_encoders = {("eval", "roles"), ("train", "roles")}
    seen = dict.fromkeys(envvars, 0)
    for path in PATHS:
        for opt, param in _options(path).items():
            if opt == "--encoder" and path in head_encoders:
                assert param.envvar is None, f"ratio {' '.join(path)} {opt}"
            elif opt in envvars:
                seen[opt] += 1
                assert param.envvar == envvars[opt], f"ratio {' '.join(path)} {opt}"
    assert all(count >= 2 for count in seen.values()), seen


@pytest.mark.parametrize(("args", "path"), [
    (["train", "roles", "--output", "/tmp/head", "--law-ai", "."], ("train", "roles")),
    (["eval", "roles", "--head", ".", "--out", "/tmp/report"], ("eval", "roles")),
])
def test_old_spellings_still_parse_but_are_hidden(args: list[str], path: tuple[str, ...]) -> None:
    assert resolve(cli, args) == path
    old = args[len(path)]
    assert old not in CliRunner().invoke(cli, [*path, "--help"]).output


def test_an_option_and_its_alias_together_are_refused(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["train", "roles", "--out", str(tmp_path / "a"), "--output", str(tmp_path / "b"),
                                      "--law-ai", str(tmp_path)])
    assert result.exit_code == 2 and "--output is another name for --out" in result.output
    result = CliRunner().invoke(cli, ["train", "roles", "--law-ai", str(tmp_path)])
    assert result.exit_code == 2 and "Missing option '--out'" in result.output


def test_train_roles_needs_data_or_heads(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["train", "roles", "--out", str(tmp_path / "head")])
    assert result.exit_code == 2 and "--opennyai-train and/or --law-ai" in result.output


def test_resolve_refuses_unknown_commands_and_options() -> None:
    assert resolve(cli, ["--prefix", "x", "search", "q", "--mode", "boost", "--json"]) == ("search",)
    with pytest.raises(click.UsageError, match="no command"):
        resolve(cli, ["train", "ranker-that-does-not-exist"])
    with pytest.raises(click.NoSuchOption):
        resolve(cli, ["search", "q", "--no-such-option"])
