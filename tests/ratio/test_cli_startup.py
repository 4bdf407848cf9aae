"""``ratio`` starts quickly: importing the command line, and every command module behind it, loads no model
or training library (a command imports those when it runs), and the lazy group's table of commands
(``ratio.cli.COMMANDS``, ``ratio.cli.TRAINERS``) says what the commands themselves say, so ``ratio --help`` lists
them as an eager group would without importing them."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import click
import pytest

import ratio.cli
from ratio.cli import COMMANDS, TRAINERS, cli
from ratio.cli.lazy import LazyCommand, LazyGroup
from tests.ratio.cli_tree import command_paths

HEAVY = ("torch", "transformers", "sentence_transformers", "lightgbm", "llama_cpp", "ray", "scipy", "matplotlib",
         "sklearn", "spacy", "fastapi", "uvicorn")
RATIO = Path(sys.executable).with_name("ratio")  # the console script of the environment running the tests


def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout


def _heavy_after(code: str, names: tuple[str, ...] = HEAVY) -> list[str]:
    """Which of ``names`` (the heavy libraries) a fresh interpreter holds after running ``code``."""
    out = _python(f"import json, sys\n{code}\nprint(json.dumps(sorted(m for m in {names!r} if m in sys.modules)))")
    return json.loads(out.splitlines()[-1])


def test_importing_the_command_line_loads_no_heavy_library() -> None:
    assert _heavy_after("import ratio.cli") == []


def test_loading_every_command_loads_no_heavy_library() -> None:
    """Every command's module imported (as ``ratio COMMAND --help`` does), no model or training library: each
    command imports those when it runs."""
    code = ("from ratio.cli import cli\nfrom tests.ratio.cli_tree import command_paths\n"
            "assert len(list(command_paths(cli))) > 40")
    assert _heavy_after(code) == []


def _run(args: list[str]) -> str:
    return f"from ratio.cli import cli\ntry:\n    cli({args!r}, prog_name='ratio')\nexcept SystemExit as exc:\n" \
           "    assert exc.code == 0, exc.code"


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["search", "--help"], ["index", "--help"]])
def test_help_and_version_load_no_heavy_library(args: list[str]) -> None:
    assert _heavy_after(_run(args)) == []


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["index", "--help"]])
def test_help_needs_no_client_library(args: list[str]) -> None:
    """Neither the OpenSearch client nor numpy: a command's --help ends in click's Exit, which the group lets
    through rather than asking the error translation (ratio.cli.errors), which imports the libraries it knows."""
    assert _heavy_after(_run(args), ("opensearchpy", "numpy", "search.ranking.model")) == []


@pytest.mark.parametrize("program", [[str(RATIO)], [sys.executable, "-m", "ratio.cli"]], ids=["script", "module"])
def test_version_and_help_as_programs(program: list[str]) -> None:
    done = subprocess.run([*program, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == f"ratio {version('ratio')}\n"
    done = subprocess.run([*program, "--help"], capture_output=True, text=True, check=True,
                          env={**os.environ, "COLUMNS": "80"})
    assert done.stdout.startswith("Usage: ratio [OPTIONS] COMMAND [ARGS]...\n")
    assert "--prefix TEXT" in done.stdout
    listed = done.stdout.split("\nCommands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in listed] == sorted([*COMMANDS, "train"])
    for name, row in ((line.split()[0], " ".join(line.split()[1:])) for line in listed):
        summary = COMMANDS[name].summary if name in COMMANDS else cli.get_command(click.Context(cli), name).help
        assert row and summary.startswith(row.removesuffix("...")), (name, row)


@pytest.mark.parametrize(("group", "table"), [((), COMMANDS), (("train",), TRAINERS)], ids=["ratio", "train"])
def test_the_tables_say_what_the_commands_say(group: tuple[str, ...], table: dict[str, LazyCommand]) -> None:
    """Each entry loads a command of that name whose one-line help is the entry's summary, shortened alike."""
    for name, entry in table.items():
        command = entry.load()
        assert command.name == name, f"{entry.target} is named {command.name!r}, listed as {name!r}"
        assert not command.hidden and not command.deprecated
        assert entry.summary == command.get_short_help_str(10**6), f"the summary of {' '.join((*group, name))}"
        for limit in (10, 30, 45, 60, 90):
            assert entry.short_help(limit) == command.get_short_help_str(limit)


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_a_lazy_group_lists_commands_as_a_loaded_one(width: int) -> None:
    lazy = LazyGroup("ratio", lazy=COMMANDS)
    loaded = click.Group("ratio", commands={name: entry.load() for name, entry in COMMANDS.items()})

    def listing(group: click.Group) -> str:
        formatter = click.HelpFormatter(width=width)
        group.format_commands(click.Context(group), formatter)
        return formatter.getvalue()

    assert listing(lazy) == listing(loaded)
    assert lazy.commands == {}  # listed without being imported


def test_every_command_of_the_modules_is_in_the_tree() -> None:
    """A command defined in a module of ``ratio/cli/`` but left out of the tables would never run."""
    reachable = {id(command) for _, command in command_paths(cli)}
    for module in pkgutil.iter_modules(ratio.cli.__path__):
        if module.name in ("__main__", "__init__"):
            continue
        loaded = importlib.import_module(f"ratio.cli.{module.name}")
        for name, value in vars(loaded).items():
            if isinstance(value, click.Command) and getattr(value.callback, "__module__", None) == loaded.__name__:
                assert id(value) in reachable, f"ratio.cli.{module.name}.{name} is not reachable from ratio"


def _ranker_scores(alone: bool) -> dict:
    prelude = "from ratio.cli.common import import_lightgbm_alone\nimport_lightgbm_alone()\n" if alone else ""
    code = prelude + (
        "import json, sys\nimport numpy as np\nfrom search.ranking.features import FEATURES\n"
        "from search.ranking.model import RankerModel\n"
        "model = RankerModel.load()\nrows = np.random.default_rng(7).random((40, len(FEATURES))) * 5\n"
        "hidden = sorted(m for m in ('sklearn', 'pandas') if m in sys.modules)\n"
        "print(json.dumps({'scores': model.score(rows).tolist(), 'contributions': model.contributions(rows).tolist(),"
        " 'loaded': hidden}))")
    return json.loads(_python(code).splitlines()[-1])


def test_lightgbm_alone_scores_as_lightgbm_does() -> None:
    """``ratio search`` imports LightGBM without scikit-learn and pandas (ratio.cli.common.import_lightgbm_alone):
    the shipped ranker's scores and contributions are those of a LightGBM imported the usual way, and the two
    libraries stay importable afterwards."""
    alone, usual = _ranker_scores(alone=True), _ranker_scores(alone=False)
    assert alone["loaded"] == []
    assert alone["scores"] == usual["scores"] and alone["contributions"] == usual["contributions"]
    code = ("from ratio.cli.common import import_lightgbm_alone\nimport_lightgbm_alone()\n"
            "import importlib.util, lightgbm\n"
            "for name in ('sklearn', 'pandas'):\n"
            "    if importlib.util.find_spec(name) is not None:\n"
            "        __import__(name)\n"
            "print(lightgbm.Booster.__name__)")
    assert _python(code).strip() == "Booster"


def test_the_ranker_default_is_the_shipped_model() -> None:
    """``--ranker``'s default is spelled in ratio.cli.options (so --help need not import the ranker): it is the
    name search.ranking.model gives the shipped model."""
    from ratio.cli.options import DEFAULT_RANKER
    from search.ranking.model import DEFAULT_MODEL

    assert DEFAULT_RANKER == DEFAULT_MODEL
    command = cli.get_command(click.Context(cli), "search")
    assert command is not None
    assert {p.name: p.default for p in command.params}["ranker_model"] == DEFAULT_MODEL
