"""The documentation and the CLI cannot drift: every ``ratio ...`` command line written in README.md, docs/,
docker/README.md (in code blocks and in inline code) and the Makefile names an existing command with options
it knows, and every command appears in README.md.

Command lines are read as a shell would split them (quotes, comments, ``\\`` continuations, pipes and ``&&``,
``VAR=value`` prefixes, a ``$`` prompt), with the usual synopsis marks allowed: ``[optional]`` parts,
``a|b`` alternatives and a trailing ``...``. They are then split by click's own parser (``cli_tree.resolve``).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from ratio.cli import cli
from tests.ratio.cli_tree import command_paths, resolve

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "docker" / "README.md"]
MAKEFILE = REPO / "Makefile"
SEPARATORS = {"|", "||", "&&", ";"}
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def _snippets(text: str) -> list[tuple[int, str]]:
    """Shell lines of the code blocks (continuations joined) and inline code spans, with their line numbers."""
    found: list[tuple[int, str]] = []
    fence: str | None = None
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else (stripped[3:].strip() or "text")
            continue
        if fence is None:
            found += [(number, span) for span in INLINE.findall(line)]
        elif fence in ("bash", "sh", "shell", "console", "text"):
            if not pending:
                start = number
            if stripped.endswith("\\"):
                pending += stripped[:-1] + " "
                continue
            found.append((start, pending + stripped))
            pending = ""
    return found


def _commands(snippet: str) -> list[list[str]]:
    """The argument lists after ``ratio`` of each simple command in ``snippet`` that runs ratio."""
    if not re.search(r"(^|[\s/|&;$])ratio(\s|$)", snippet):
        return []
    tokens = []
    for token in shlex.split(snippet, comments=True):  # "stop; ratio start": the ";" ends a command
        tokens += [token[:-1], ";"] if token.endswith(";") and len(token) > 1 else [token]
    commands, current, depth = [], [], 0
    for token in tokens:
        if token in SEPARATORS and depth == 0:
            commands.append(current)
            current = []
            continue
        depth += token.count("[") - token.count("]")
        token = token.strip("[]")
        if token and token != "|":  # "|" inside brackets separates alternatives
            current.append(token)
    commands.append(current)
    found = []
    for words in commands:
        while words and (words[0] == "$" or ASSIGNMENT.match(words[0])):
            words = words[1:]
        if not words or words[0].rsplit("/", 1)[-1] != "ratio":
            continue
        args = words[1:]
        while args and args[-1] == "...":  # "ratio opensearch ...": the rest is left out
            args = args[:-1]
        if args:  # a lone `ratio` (or `~/.cache/ratio`) in prose is the name or a folder, not a command line
            found.append(args)
    return found


def _documented() -> list[tuple[str, list[str]]]:
    lines = []
    for document in DOCUMENTS:
        for number, snippet in _snippets(document.read_text(encoding="utf-8")):
            lines += [(f"{document.relative_to(REPO)}:{number}", args) for args in _commands(snippet)]
    for number, line in enumerate(MAKEFILE.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("\t"):  # a recipe line
            lines += [(f"Makefile:{number}", args) for args in _commands(line.strip())]
    return lines


DOCUMENTED = _documented()


def _path(args: list[str]) -> tuple[str, ...]:
    """The command path of a documented line. Prose may name an option without its value
    ("`ratio eval run --labelled-reranker`"): a trailing option that wants a value is given one."""
    try:
        return resolve(cli, args)
    except click.BadOptionUsage:
        if not (args and args[-1].startswith("-")):
            raise
        return resolve(cli, [*args, "VALUE"])


def test_the_documents_are_read() -> None:
    """The reader finds command lines in blocks, in prose, behind prompts, pipes and environment variables."""
    assert len(DOCUMENTED) > 80
    assert ["cite-check", "-"] in [args for _, args in DOCUMENTED]  # pbpaste | ratio cite-check -
    assert _commands("RATIO_LLM=local ratio ask 'x' --llm-model M [--json] && ratio status  # note") == [
        ["ask", "x", "--llm-model", "M", "--json"], ["status"]]
    assert _commands("ratio indices create [--engine lucene|faiss] [--encoder ID | --dimension N]") == [
        ["indices", "create", "--engine", "lucene|faiss", "--encoder", "ID", "--dimension", "N"]]
    assert _commands("ratio opensearch cluster stop; ratio status") == [["opensearch", "cluster", "stop"], ["status"]]
    assert _commands("`ratio-reranker` is a model, ratio.Client a class, ~/.cache/ratio a folder") == []
    assert ["indices", "create"] in [args for where, args in DOCUMENTED if where.startswith("Makefile:")]


@pytest.mark.parametrize(("where", "args"), DOCUMENTED, ids=[where for where, _ in DOCUMENTED])
def test_documented_command_lines_exist(where: str, args: list[str]) -> None:
    try:
        _path(args)
    except click.UsageError as exc:
        pytest.fail(f"{where}: 'ratio {' '.join(args)}': {exc.format_message()}")


def test_every_command_is_in_the_readme() -> None:
    """README.md's command list names every command, so a new command cannot go undocumented."""
    readme = {_path(args) for where, args in DOCUMENTED if where.startswith("README.md:")}
    named = {path[:n] for path in readme for n in range(1, len(path) + 1)}
    missing = sorted(" ".join(path) for path, _ in command_paths(cli) if path not in named)
    assert not missing, f"README.md never shows these commands: {missing}"
