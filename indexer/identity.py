"""Which source file owns a judgment id, so that one file never silently replaces another's judgment.

Ids come from file names or record ids (:mod:`indexer.document`), so two sources can claim one id:
``a/X1.txt`` and ``b/X1.txt``, a ``coll/C1.txt`` indexed next to the sample ``C1``, two records with one
``id``. The rules the writer applies:

* **Within a run**, the first item to claim an id is indexed and every later one fails, its reason naming
  the item that holds the id (:class:`RunIds`). Re-running gives the same result, since files are read in
  sorted order.
* **Across runs**, the judgment document stores the absolute path of its source file (``source_path``). A
  changed judgment replaces the stored one only when it comes from the same file (that is how an update
  works); from another file it fails with a reason naming the stored one, unless the run was asked to
  ``replace`` (``ratio index --replace``). A judgment identical to the stored one (same content hash) is
  unchanged whichever file it came from.

A path stored by an older Ratio as it was typed (relative to where that run started) counts as the same
source when the new file's absolute path ends with it.
"""

from __future__ import annotations

import os

__all__ = ["RunIds", "conflict_reason", "same_source", "source_key"]


def source_key(path: str | None) -> str | None:
    """The absolute, normalised form of a source path, as the judgment document stores it."""
    return os.path.abspath(path) if path else None


def same_source(stored: str | None, new: str | None) -> bool:
    """Whether a stored judgment's ``source_path`` and a new judgment's name the same file.

    A judgment stored without a path (written by a caller that gave none) can be replaced: there is no owner
    to protect. A new judgment without a path never matches one that has a path.
    """
    if not stored:
        return True
    if not new:
        return False
    key = source_key(new)
    assert key is not None
    if os.path.isabs(stored):
        return os.path.normpath(stored) == key
    relative = os.path.normpath(stored)
    return key == os.path.abspath(relative) or key.endswith(os.sep + relative)


def conflict_reason(judgment_id: str, stored: str) -> str:
    """The failure reason of a judgment whose id another file's judgment holds in the index."""
    return (f"id {judgment_id!r} is already indexed from another file, {stored}: rename one file, index this one "
            "under another --id-prefix, or pass --replace to replace the stored judgment")


class RunIds:
    """The ids claimed so far in one run, and by which item (a source path, else the id itself)."""

    def __init__(self) -> None:
        self._owners: dict[tuple[str, str], str] = {}

    def claim(self, kind: str, item_id: str, item: str) -> str | None:
        """Claim ``item_id`` (of ``kind``: judgment or provision) for ``item``; the failure reason when an
        earlier item of this run holds it, else None."""
        owner = self._owners.get((kind, item_id))
        if owner is None:
            self._owners[(kind, item_id)] = item
            return None
        where = "an earlier record of the same file" if owner == item else owner
        return (f"id {item_id!r} is also the id of {where}, read earlier in this run: rename one, or index them under "
                "different --id-prefix values")
