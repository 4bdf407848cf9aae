"""A judgment's citations: scanned once, then what it cites filled in for faceting and linking.

The extractor and its rules are :mod:`legal.citations` (search reads queries and briefs with the same one);
this module holds only what needs the indexer's :class:`~indexer.document.Judgment`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from indexer.document import Judgment
from legal.citations import Citation, CitationRules, extract_citations

__all__ = ["citations_in", "enrich"]


def citations_in(judgment: Judgment, rules: CitationRules | None = None) -> tuple[Citation, ...]:
    """Every citation in the judgment's text: the loader's scan when there was one (and ``rules`` is the
    packaged set it used), else a scan now (a judgment built by hand, or other rules)."""
    if judgment.text_citations is not None and rules is None:
        return judgment.text_citations
    return tuple(extract_citations(judgment.text, rules))


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def enrich(judgment: Judgment, rules: CitationRules | None = None, case_names: bool = True) -> Judgment:
    """Fill ``cited_judgments`` and ``cited_provisions`` from the judgment's citations.

    The judgment's own citations and its own title are left out: a header that says how the judgment is
    reported is not the judgment citing something.
    """
    kinds = {"judgment", "provision"} | ({"case_name"} if case_names else set())
    found = [c for c in citations_in(judgment, rules) if c.kind in kinds]
    own = set(judgment.citations)
    if judgment.title:  # the header names the judgment itself; that is not a citation of another case
        own.update(c.normalized for c in extract_citations(judgment.title, rules, {"case_name"}))
    cited = _unique(c.normalized for c in found if c.kind != "provision" and c.normalized not in own)
    provisions = _unique(c.normalized for c in found if c.kind == "provision")
    return dataclasses.replace(judgment, cited_judgments=cited, cited_provisions=provisions)
