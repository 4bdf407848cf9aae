"""The role table: canonical rhetorical roles, their display labels, coarse groups, named role sets and the
mapping from the source datasets' labels, read from ``roles.json``.

The table is data so that the docs, the labeller, the summariser, search filters and explanations all read
one table. A source label *covers* one or more canonical roles: OpenNyAI's labels cover exactly one each,
Law-AI's coarser labels may cover several (its "Argument" has no petitioner/respondent split). Every role
belongs to one coarse group, and every source label covers roles of a single group, so filtering by coarse
group works the same on judgments labelled from either dataset. A named set (``"sets"``) is a choice of
roles that some stage reads and no coarse group expresses (the roles whose sentences may frame an issue).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

__all__ = ["Role", "RoleMappingError", "RoleSet", "SourceLabel", "load_role_set", "parse_role_set", "role_label"]


class RoleMappingError(ValueError):
    """The role table is inconsistent, or a label is not in it."""


@dataclass(frozen=True)
class Role:
    """A canonical rhetorical role; ``label`` is how people are shown it (``"court's reasoning"``)."""

    name: str
    coarse: str
    description: str
    label: str


@dataclass(frozen=True)
class SourceLabel:
    """One label of a source dataset and the canonical roles it covers."""

    label: str
    covers: tuple[str, ...]
    primary: str
    note: str = ""


@dataclass(frozen=True)
class RoleSet:
    """Canonical roles, coarse groups, named role sets and per-source label mappings."""

    roles: tuple[Role, ...]
    coarse_groups: tuple[str, ...]
    sources: dict[str, dict[str, SourceLabel]]
    sets: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """Canonical role names in table order."""
        return tuple(role.name for role in self.roles)

    def role(self, name: str) -> Role:
        """Return the role called ``name``."""
        for role in self.roles:
            if role.name == name:
                return role
        raise RoleMappingError(f"unknown canonical role {name!r}; known: {', '.join(self.names)}")

    def coarse(self, name: str) -> str:
        """Return the coarse group of a canonical role."""
        return self.role(name).coarse

    def label(self, name: str) -> str:
        """The display label of a role; a name the table does not know (an index labelled with another
        table) is shown as it is rather than refused, since display must never fail."""
        return next((role.label for role in self.roles if role.name == name), name)

    def group(self, coarse: str) -> tuple[str, ...]:
        """The canonical roles of a coarse group, in table order."""
        if coarse not in self.coarse_groups:
            raise RoleMappingError(f"unknown coarse group {coarse!r}; known: {', '.join(self.coarse_groups)}")
        return tuple(role.name for role in self.roles if role.coarse == coarse)

    def named_set(self, name: str) -> tuple[str, ...]:
        """The roles of a named set of the table (``"issue_framing"``), in table order."""
        try:
            return self.sets[name]
        except KeyError:
            raise RoleMappingError(f"unknown role set {name!r}; known: {', '.join(self.sets)}") from None

    def source_labels(self, source: str) -> tuple[str, ...]:
        """Labels of a source dataset in table order."""
        return tuple(self._source(source))

    def covers(self, source: str, label: str) -> tuple[str, ...]:
        """Canonical roles a source label may stand for."""
        return self._label(source, label).covers

    def to_canonical(self, source: str, label: str) -> str:
        """The single canonical role chosen for a source label (its primary role)."""
        return self._label(source, label).primary

    def to_source(self, source: str, role: str) -> str | None:
        """The source label that covers a canonical role, or None where the source has no such label."""
        for entry in self._source(source).values():
            if role in entry.covers:
                return entry.label
        self.role(role)  # raise on an unknown role rather than answer None
        return None

    def _source(self, source: str) -> dict[str, SourceLabel]:
        try:
            return self.sources[source]
        except KeyError:
            raise RoleMappingError(f"unknown source {source!r}; known: {', '.join(self.sources)}") from None

    def _label(self, source: str, label: str) -> SourceLabel:
        labels = self._source(source)
        try:
            return labels[label]
        except KeyError:
            raise RoleMappingError(f"label {label!r} is not in source {source!r}; known: {', '.join(labels)}") from None


def parse_role_set(data: dict) -> RoleSet:
    """Build and check a RoleSet from the parsed JSON table.

    Checks that role names are unique, every role's coarse group exists, every covered role exists,
    each source label's roles share one coarse group and no canonical role is covered twice per source.
    """
    coarse_groups = tuple(group["name"] for group in data["coarse"])
    roles = tuple(Role(r["name"], r["coarse"], r.get("description", ""), r.get("label", r["name"]))
                  for r in data["roles"])
    names = [role.name for role in roles]
    if len(set(names)) != len(names):
        raise RoleMappingError("duplicate canonical role names")
    by_name = {role.name: role for role in roles}
    for role in roles:
        if role.coarse not in coarse_groups:
            raise RoleMappingError(f"role {role.name!r} has unknown coarse group {role.coarse!r}")
    sets: dict[str, tuple[str, ...]] = {}
    for set_name, spec in data.get("sets", {}).items():
        unknown = [name for name in spec["roles"] if name not in by_name]
        if unknown:
            raise RoleMappingError(f"role set {set_name!r} names unknown roles {unknown}")
        sets[set_name] = tuple(name for name in names if name in spec["roles"])
    sources: dict[str, dict[str, SourceLabel]] = {}
    for source, spec in data["sources"].items():
        labels: dict[str, SourceLabel] = {}
        claimed: set[str] = set()
        for label, entry in spec["labels"].items():
            covers = tuple(entry["covers"])
            if not covers:
                raise RoleMappingError(f"{source}:{label} covers no role")
            unknown = [name for name in covers if name not in by_name]
            if unknown:
                raise RoleMappingError(f"{source}:{label} covers unknown roles {unknown}")
            if len({by_name[name].coarse for name in covers}) != 1:
                raise RoleMappingError(f"{source}:{label} spans several coarse groups")
            if claimed & set(covers):
                raise RoleMappingError(f"{source}:{label} covers a role another label already covers")
            claimed |= set(covers)
            primary = entry.get("primary", covers[0])
            if primary not in covers:
                raise RoleMappingError(f"{source}:{label} primary {primary!r} is not among its roles")
            labels[label] = SourceLabel(label, covers, primary, entry.get("note", ""))
        sources[source] = labels
    return RoleSet(roles, coarse_groups, sources, sets)


def load_role_set(path: Path | None = None) -> RoleSet:
    """Read a role table; ``None`` reads the one shipped with the package (cached)."""
    if path is None:
        return _packaged_role_set()
    return parse_role_set(json.loads(Path(path).read_text(encoding="utf-8")))


@cache
def _packaged_role_set() -> RoleSet:
    text = resources.files(__package__).joinpath("roles.json").read_text(encoding="utf-8")
    return parse_role_set(json.loads(text))


def role_label(name: str) -> str:
    """The display label of a role in the packaged table (``"analysis"`` → ``"court's reasoning"``)."""
    return load_role_set().label(name)
