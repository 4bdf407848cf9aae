"""The role head: a small sequence model over a judgment's sentence vectors, and its on-disk artifact.

A role depends on where a sentence stands in the judgment and on its neighbours (a citation inside the
arguments is a submission, after "we are of the view" it is precedent relied on), so the head reads the
whole judgment: a projection of [sentence vector; cheap features] feeds a bidirectional GRU, and each
sentence's label is read from the GRU state concatenated with its own projection. The encoder is frozen
and not part of the artifact; the artifact is a directory holding ``config.json`` (labels, feature cues,
encoder id, sizes, training record) and ``weights.safetensors`` (one or more ensemble members, fp16).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import nn

ARTIFACT_FORMAT = "ratio-role-head"
ARTIFACT_VERSION = 1
CONFIG_NAME = "config.json"
WEIGHTS_NAME = "weights.safetensors"


@dataclass(frozen=True)
class HeadConfig:
    """Sizes of one head; every ensemble member shares them."""

    embedding_dim: int
    feature_dim: int
    num_labels: int
    projection: int = 256
    hidden: int = 128
    layers: int = 1
    dropout: float = 0.3


class RoleHead(nn.Module):
    """Projection → BiGRU over the judgment → per-sentence logits."""

    def __init__(self, config: HeadConfig) -> None:
        super().__init__()
        self.config = config
        self.input_dropout = nn.Dropout(config.dropout)
        self.project = nn.Sequential(
            nn.Linear(config.embedding_dim + config.feature_dim, config.projection),
            nn.GELU(),
            nn.Dropout(config.dropout),
        )
        self.rnn = nn.GRU(
            config.projection,
            config.hidden,
            num_layers=config.layers,
            batch_first=True,
            bidirectional=True,
            dropout=config.dropout if config.layers > 1 else 0.0,
        )
        self.output = nn.Sequential(
            nn.Dropout(config.dropout),
            nn.Linear(2 * config.hidden + config.projection, config.num_labels),
        )

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Map (batch, time, embedding+features) and true lengths to (batch, time, labels) logits."""
        projected = self.project(self.input_dropout(inputs))
        packed = nn.utils.rnn.pack_padded_sequence(projected, lengths.cpu(), batch_first=True, enforce_sorted=False)
        states, _ = self.rnn(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=inputs.shape[1])
        return self.output(torch.cat([states, projected], dim=-1))


@dataclass(frozen=True)
class HeadArtifact:
    """Everything needed to run a trained head, given the encoder named by ``encoder_id``."""

    labels: tuple[str, ...]
    scheme: str  # "canonical", or a source name such as "law-ai" for heads trained in that label set
    encoder_id: str
    head: HeadConfig
    features: dict
    members: tuple[RoleHead, ...]
    training: dict = field(default_factory=dict)

    def save(self, directory: Path) -> Path:
        """Write ``config.json`` and ``weights.safetensors`` into ``directory`` (created if needed)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        config = {
            "format": ARTIFACT_FORMAT,
            "version": ARTIFACT_VERSION,
            "scheme": self.scheme,
            "labels": list(self.labels),
            "encoder_id": self.encoder_id,
            "head": asdict(self.head),
            "members": len(self.members),
            "features": self.features,
            "training": self.training,
        }
        tensors = {
            f"member{index}.{name}": value.detach().to(torch.float16).contiguous()
            for index, member in enumerate(self.members)
            for name, value in member.state_dict().items()
        }
        save_file(tensors, str(directory / WEIGHTS_NAME))
        (directory / CONFIG_NAME).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return directory

    @classmethod
    def load(cls, directory: Path) -> HeadArtifact:
        """Read an artifact directory written by ``save``; members come back in eval mode, fp32."""
        directory = Path(directory)
        config_path = directory / CONFIG_NAME
        if not config_path.exists():
            raise FileNotFoundError(f"no role head at {directory} (missing {CONFIG_NAME})")
        config = json.loads(config_path.read_text(encoding="utf-8"))
        if config.get("format") != ARTIFACT_FORMAT or config.get("version") != ARTIFACT_VERSION:
            raise ValueError(f"{config_path} is not a {ARTIFACT_FORMAT} v{ARTIFACT_VERSION} config")
        head = HeadConfig(**config["head"])
        tensors = load_file(str(directory / WEIGHTS_NAME))
        members = []
        for index in range(int(config["members"])):
            prefix = f"member{index}."
            state = {k[len(prefix) :]: v.float() for k, v in tensors.items() if k.startswith(prefix)}
            member = RoleHead(head)
            member.load_state_dict(state)
            member.eval()
            members.append(member)
        return cls(
            labels=tuple(config["labels"]),
            scheme=config["scheme"],
            encoder_id=config["encoder_id"],
            head=head,
            features=config["features"],
            members=tuple(members),
            training=config.get("training", {}),
        )

    @classmethod
    def merge(cls, artifacts: list[HeadArtifact]) -> HeadArtifact:
        """Join heads trained in separate runs (same labels, features and sizes) into one ensemble."""
        first = artifacts[0]
        for other in artifacts[1:]:
            same = (other.labels, other.scheme, other.encoder_id, other.head, other.features)
            if same != (first.labels, first.scheme, first.encoder_id, first.head, first.features):
                raise ValueError("only heads with the same labels, encoder, sizes and features can be merged")
        training = dict(first.training)
        training["members"] = [record for artifact in artifacts for record in artifact.training.get("members", [])]
        training["merged_from"] = len(artifacts)
        members = tuple(member for artifact in artifacts for member in artifact.members)
        return cls(first.labels, first.scheme, first.encoder_id, first.head, first.features, members, training)

    @torch.no_grad()
    def probabilities_batch(self, inputs: list[np.ndarray], max_steps: int = 16384) -> list[np.ndarray]:
        """Member-averaged probabilities for several judgments' (time, embedding+features) inputs.

        Judgments are sorted by length and run in padded batches (at most ``max_steps`` padded time steps
        per batch); packing keeps padding out of the GRU, so each judgment gets what it would alone.
        """
        order = sorted(range(len(inputs)), key=lambda i: inputs[i].shape[0])
        out: list[np.ndarray] = [np.zeros((0, len(self.labels)), dtype=np.float32)] * len(inputs)
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and inputs[order[end]].shape[0] * (end - start + 1) <= max_steps:
                end += 1
            group = order[start:end]
            longest = inputs[group[-1]].shape[0]
            batch = torch.zeros((len(group), longest, inputs[group[0]].shape[1]))
            for row, index in enumerate(group):
                batch[row, : inputs[index].shape[0]] = torch.from_numpy(inputs[index])
            lengths = torch.tensor([inputs[index].shape[0] for index in group])
            total = torch.zeros((len(group), longest, len(self.labels)))
            for member in self.members:
                member.eval()
                total += torch.softmax(member(batch, lengths), dim=-1)
            total /= len(self.members)
            for row, index in enumerate(group):
                out[index] = total[row, : inputs[index].shape[0]].numpy()
            start = end
        return out

    @torch.no_grad()
    def probabilities(self, inputs: torch.Tensor) -> torch.Tensor:
        """Average the members' softmax over one judgment's (time, embedding+features) inputs."""
        if inputs.shape[0] == 0:
            return torch.zeros((0, len(self.labels)))
        batch = inputs.unsqueeze(0)
        lengths = torch.tensor([inputs.shape[0]])
        total = torch.zeros((inputs.shape[0], len(self.labels)))
        for member in self.members:
            member.eval()
            total += torch.softmax(member(batch, lengths)[0], dim=-1)
        return total / len(self.members)
