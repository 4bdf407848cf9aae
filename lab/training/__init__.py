"""Training Ratio's own models: mine query-passage groups, train a cross-encoder or a bi-encoder, write a card.

``pairs`` mines groups from training qrels and from the indexed judgments (with BM25 hard negatives) and holds
out a validation split; ``train`` runs the CPU-sized training loops and measures before and after; ``card``
writes the model card. Imports of torch and sentence-transformers happen inside the functions that train.
"""

from lab.training.card import write_card
from lab.training.pairs import (
    PairSet,
    Passage,
    TrainingGroup,
    mine_qrels_groups,
    mine_self_groups,
    split,
    training_queries,
)
from lab.training.train import TrainOptions, TrainResult, rank_metrics, train_embedder, train_reranker

__all__ = ["PairSet", "Passage", "TrainOptions", "TrainResult", "TrainingGroup", "mine_qrels_groups",
           "mine_self_groups", "rank_metrics", "split", "train_embedder", "train_reranker", "training_queries",
           "write_card"]
