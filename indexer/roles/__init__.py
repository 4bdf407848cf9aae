"""Rhetorical-role labelling of judgment sentences: the labeller the write path runs (its training and evaluation
are the lab's: :mod:`lab.roles`).

The role table it labels with (``legal/roles.json``: roles, labels, coarse groups, source mappings) is
:mod:`legal.roles`, shared with search. The labeller pulls in torch, so ``RoleLabeller`` and friends are
resolved on first access instead of at ``import indexer.roles``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from indexer.roles.labeller import RoleLabeller, RolePrediction, shipped_head_path

__all__ = ["RoleLabeller", "RolePrediction", "shipped_head_path"]

_LAZY = {"RoleLabeller", "RolePrediction", "shipped_head_path"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from indexer.roles import labeller

        return getattr(labeller, name)
    raise AttributeError(f"module 'indexer.roles' has no attribute {name!r}")
