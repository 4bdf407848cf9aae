"""Legal-text knowledge that the write path (indexer) and the read path (search) share.

* :mod:`legal.citations`: citation rules (``citation_rules.json``), extraction, canonical forms;
* :mod:`legal.sentences`: sentence splitting with character offsets (``sentence_abbreviations.json``);
* :mod:`legal.roles`: the role table (``roles.json``): canonical roles, display labels, coarse groups,
  named role sets and the source datasets' label mappings.

Both paths read a judgment the same way because both use these modules; they hold data and pure functions
only (no OpenSearch, no models) and import nothing of Ratio but ``mappings`` and ``analyzers``. Rules and
tables are read on first use, never at import.
"""

from __future__ import annotations

from legal.citations import Citation, canonical_act, extract_citations
from legal.roles import RoleSet, load_role_set, role_label
from legal.sentences import Sentence, split

__all__ = [
    "Citation",
    "RoleSet",
    "Sentence",
    "canonical_act",
    "extract_citations",
    "load_role_set",
    "role_label",
    "split",
]
