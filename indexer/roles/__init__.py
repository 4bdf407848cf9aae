"""Rhetorical-role labelling of judgment sentences.

The role table (``roles.json``) and its API are light and imported eagerly; the labeller pulls in torch, so
``RoleLabeller`` and friends are resolved on first access instead of at ``import indexer.roles``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from indexer.roles.roles import Role, RoleMappingError, RoleSet, SourceLabel, load_role_set

if TYPE_CHECKING:
    from indexer.roles.labeller import RoleLabeller, RolePrediction, shipped_head_path

__all__ = [
    "Role",
    "RoleLabeller",
    "RoleMappingError",
    "RolePrediction",
    "RoleSet",
    "SourceLabel",
    "load_role_set",
    "shipped_head_path",
]

_LAZY = {"RoleLabeller", "RolePrediction", "shipped_head_path"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from indexer.roles import labeller

        return getattr(labeller, name)
    raise AttributeError(f"module 'indexer.roles' has no attribute {name!r}")
