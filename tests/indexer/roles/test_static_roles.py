"""The fast indexer's static encoder and the role head shipped for it, on real sentences."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from backends.encoders import STATIC_ENCODER, ModelError, encoder_dimension, is_static
from backends.static import WEIGHTS, static_entry, static_model_dir
from indexer.roles.embeddings import EmbeddingCache
from indexer.roles.labeller import RoleLabeller, shipped_head_path
from lab.roles.data import load_opennyai
from lab.roles.evaluate import evaluate_opennyai
from ratio import settings

# Measured on the first 6 OpenNyAI dev judgments (582 sentences) with the shipped static head: micro-F1 0.734
# (0.793 on all of dev, docs/roles.md). The floor
# leaves a margin for other CPUs and library versions, and sits far above chance (13 labels).
SLICE = 6
MICRO_F1_FLOOR = 0.70


@pytest.fixture(scope="module")
def labeller(static_encoder) -> RoleLabeller:
    return RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER)


def test_static_encoder_is_known_and_verified_on_disk(static_encoder) -> None:
    """The weights on disk are the ones accepted, and were accepted as the recorded model: by its sha256, or,
    on a CPU that rounds the last bits otherwise (a CI run on an AMD EPYC did), by its fingerprint."""
    assert is_static(STATIC_ENCODER) and encoder_dimension(STATIC_ENCODER) == 256
    folder = static_model_dir(STATIC_ENCODER, settings.home_dir() / "models")
    from backends.files import sha256_of
    from backends.static import _accepted

    entry, record = static_entry(STATIC_ENCODER), json.loads((folder / "ratio.json").read_text())
    digest = sha256_of(folder / WEIGHTS)
    assert digest == record["sha256"] and record["recorded_sha256"] == entry["sha256"]
    assert record["accepted_by"] == ("sha256" if digest == entry["sha256"] else "fingerprint")
    embedding = np.asarray(static_encoder.model.embedding, dtype=np.float32)
    assert _accepted(entry, digest, embedding) == record["accepted_by"]
    assert record["distil_from"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_static_encoder_encodes_unit_vectors_that_keep_meaning(static_encoder) -> None:
    vectors = static_encoder.encode([
        "The appellant was convicted under Section 302 of the Indian Penal Code.",
        "The accused was found guilty of murder under Section 302 IPC.",
        "The assessee claimed a deduction for depreciation in the assessment year.",
    ])
    assert vectors.shape == (3, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.1
    single = static_encoder.encode("The appeal is dismissed.")
    assert single.shape == (256,)
    assert static_encoder.encode([]).shape == (0, 256)


def test_a_changed_model_file_is_not_used(static_encoder, tmp_path: Path, monkeypatch) -> None:
    """A tampered copy fails its check; with no packaged MiniLM to distil from, the error says what to install."""
    source = static_model_dir(STATIC_ENCODER, settings.home_dir() / "models")
    folder = tmp_path / STATIC_ENCODER.replace("/", "__")
    folder.mkdir()
    for item in source.iterdir():
        if item.is_file() and not item.name.endswith(".sha256"):
            (folder / item.name).write_bytes(item.read_bytes())
    with (folder / WEIGHTS).open("r+b") as handle:
        handle.seek(-8, 2)
        handle.write(b"\x00" * 8)
    import backends.static

    monkeypatch.setattr(backends.static, "packaged_model_path", lambda name: None)
    with pytest.raises(ModelError, match="pip install"):
        static_model_dir(STATIC_ENCODER, tmp_path)


def test_the_fingerprint_tells_float_noise_from_other_vectors(static_encoder) -> None:
    """Weights that differ only in their last bits pass in place of the sha256; a flipped PCA axis does not."""
    from backends.static import _accepted

    entry = static_entry(STATIC_ENCODER)
    embedding = np.asarray(static_encoder.model.embedding, dtype=np.float32)
    assert _accepted(entry, entry["sha256"], embedding) == "sha256"
    noisy = embedding * (1 + 1e-4 * np.random.default_rng(0).standard_normal(embedding.shape))
    assert _accepted(entry, "other", noisy) == "fingerprint"
    flipped = embedding.copy()
    flipped[:, 3] *= -1
    assert _accepted(entry, "other", flipped) is None


def test_the_static_head_is_chosen_by_encoder_id(labeller: RoleLabeller) -> None:
    assert labeller.artifact.encoder_id == STATIC_ENCODER
    assert labeller.artifact.head.embedding_dim == 256
    assert shipped_head_path().name == "model"  # the MiniLM head stays the default without an encoder id


def test_static_head_labels_known_sentences(labeller: RoleLabeller) -> None:
    sentences = [
        "IN THE SUPREME COURT OF INDIA",
        "CRIMINAL APPELLATE JURISDICTION",
        "Criminal Appeal No. 1234 of 2009",
        "The deceased was last seen with the appellant on the evening of 12th March, 2005.",
        "The body was found the next morning near the canal and an FIR was lodged at the police station.",
        "The post-mortem report showed that death was caused by strangulation.",
        "Learned counsel for the appellant submitted that the chain of circumstances is not complete.",
        "We have considered the submissions and perused the record.",
        "In our view, the circumstances proved do not exclude every hypothesis except the guilt of the accused.",
        "The appeal is accordingly allowed and the conviction is set aside.",
    ]
    roles = labeller.label(sentences)
    assert roles[0] == "preamble"
    assert labeller.role_set.coarse(roles[4]) == "facts"
    assert labeller.role_set.coarse(roles[-1]) == "rulings"
    assert labeller.role_set.coarse(roles[-2]) == "reasoning"


def test_static_head_f1_on_a_slice_of_opennyai_dev(labeller: RoleLabeller, static_encoder, opennyai_dir: Path,
                                                   tmp_path: Path) -> None:
    dev = load_opennyai(opennyai_dir / "dev.json")[:SLICE]
    scores = evaluate_opennyai(labeller, dev, EmbeddingCache(tmp_path, STATIC_ENCODER))
    assert scores.micro_f1 >= MICRO_F1_FLOOR, scores.markdown()


def test_batched_head_equals_one_judgment_at_a_time(labeller: RoleLabeller, opennyai_dir: Path) -> None:
    dev = load_opennyai(opennyai_dir / "dev.json")[:4]
    texts = [list(judgment.sentences) for judgment in dev] + [[]]
    vectors = labeller.embed_many(texts)
    together = labeller.probabilities_many(vectors, texts)
    for judgment_texts, judgment_vectors, probabilities in zip(texts, vectors, together, strict=True):
        alone = labeller.probabilities_from_vectors(judgment_vectors, judgment_texts)
        assert probabilities.shape == alone.shape
        assert np.allclose(probabilities, alone, atol=1e-5)
