"""The shipped head, with the real packaged MiniLM, labels a real judgment sensibly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from backends.encoders import DEFAULT_ENCODER
from indexer.roles.labeller import RoleLabeller, RolePrediction
from lab.roles.data import read_law_ai_file
from legal.roles import load_role_set

# Coarse-level accuracy of the shipped head on this Law-AI judgment was measured at 0.55 when the head was
# trained (docs/roles.md; Law-AI is out of domain for a head trained on OpenNyAI: no preamble, other
# annotators). The threshold leaves a margin below that but fails a broken or random head; the test also
# asks for more than the majority-group share (0.43 here).
JUDGMENT = "1996_B_72"
COARSE_THRESHOLD = 0.48


@pytest.fixture(scope="module")
def labeller(encoder) -> RoleLabeller:
    return RoleLabeller.load(encoder)


def test_shipped_head_loads_with_canonical_labels(labeller: RoleLabeller):
    assert labeller.labels == load_role_set().names
    assert labeller.artifact.scheme == "canonical"
    assert labeller.artifact.encoder_id == DEFAULT_ENCODER


def test_empty_judgment(labeller: RoleLabeller):
    assert labeller.label([]) == []
    assert labeller.predict([]) == []
    assert labeller.probabilities([]).shape == (0, len(labeller.labels))


def test_labels_a_real_judgment(labeller: RoleLabeller, law_ai_dir: Path):
    roles = load_role_set()
    judgment = read_law_ai_file(law_ai_dir / "text" / f"{JUDGMENT}.txt")
    predictions = labeller.predict(list(judgment.sentences))
    assert len(predictions) == len(judgment.sentences)
    assert all(isinstance(p, RolePrediction) and p.role in roles.names for p in predictions)
    gold = [roles.coarse(roles.to_canonical("law-ai", label)) for label in judgment.labels]
    predicted = [p.coarse for p in predictions]
    accuracy = float(np.mean([g == p for g, p in zip(gold, predicted, strict=True)]))
    majority = max(gold.count(group) for group in set(gold)) / len(gold)
    assert accuracy > majority, f"coarse accuracy {accuracy:.3f} is no better than the majority {majority:.3f}"
    assert accuracy >= COARSE_THRESHOLD, f"coarse accuracy {accuracy:.3f} below {COARSE_THRESHOLD}"
    # The last sentences of a Supreme Court judgment state its ruling.
    assert "rulings" in {p.coarse for p in predictions[-5:]}


def test_probabilities_are_distributions(labeller: RoleLabeller):
    sentences = [
        "Learned counsel for the appellant submitted that the High Court erred.",
        "Section 302 of the Indian Penal Code reads as follows:",
        "For these reasons, the appeal is dismissed.",
    ]
    probabilities = labeller.probabilities(sentences)
    assert probabilities.shape == (3, len(labeller.labels))
    assert np.allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)


class _WrongSizeEncoder:
    def encode(self, sentences: list[str]) -> np.ndarray:
        return np.zeros((len(sentences), 10), dtype=np.float32)


def test_wrong_encoder_is_refused():
    labeller = RoleLabeller.load(_WrongSizeEncoder())
    with pytest.raises(ValueError, match="384-d"):
        labeller.label(["The appeal is dismissed."])
