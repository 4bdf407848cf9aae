"""How the product wires the write path's models: the role labeller for an encoder, and the pipeline recipe
that ``ratio index`` builds in its own process and each Ray actor builds in its own (``ratio index --ray``).

A recipe rather than a pipeline travels to the actors: models are loaded where they run (on the actor's GPU
when it has one), and nothing large is pickled. The recipe's settings (the LLM's among them) are read by the
driver, so every actor runs with what the command line said.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from backends.encoders import is_static
from indexer.budget import DEFAULT_JUDGMENT_SECONDS
from indexer.pipeline import ChunkOptions, Pipeline
from indexer.roles.labeller import RoleLabeller
from ratio import settings
from ratio.encoders import open_encoder
from ratio.llm import open_llm


def open_labeller(encoder_name: str, head: str | Path | None) -> RoleLabeller:
    """The encoder and the role head trained on its vectors (raises ``backends.encoders.ModelError``). A static
    encoder gets no embedding cache: it encodes faster than a cache file is read."""
    encoder = open_encoder(encoder_name)
    cache_dir = None if is_static(encoder_name) else settings.cache_dir() / "embeddings"
    if is_static(encoder_name):
        import torch

        # torch then only runs the small role head, next to the bulk thread and often the node itself: one
        # thread ran it 4.6x faster than two on the shared 2-core machine (docs/benchmarks.md).
        torch.set_num_threads(1)
    return RoleLabeller.load(encoder, path=Path(head) if head else None, cache_dir=cache_dir,
                             encoder_id=encoder_name)


@dataclass(frozen=True)
class PipelineRecipe:
    """Everything needed to build the indexing pipeline anywhere: call it to get one."""

    encoder: str
    role_head: str | None = None
    chunks: ChunkOptions = field(default_factory=ChunkOptions)
    llm: settings.LLMSettings | None = None  # refines summaries when set (``--refine-summaries``)
    judgment_seconds: float | None = DEFAULT_JUDGMENT_SECONDS  # the time budget of one judgment (indexer.budget)

    def __call__(self) -> Pipeline:
        return Pipeline(open_labeller(self.encoder, self.role_head), self.chunks,
                        open_llm(self.llm) if self.llm is not None else None, self.judgment_seconds)
