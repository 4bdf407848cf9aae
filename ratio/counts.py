"""How a page of results says what it counted: one wording for the search page and ``ratio search``.

A search's ``total`` counts by its ``count_rule`` (:mod:`search.retrieval.matching`): every word of a typed query ("62
judgments have every word · 1,296 have any"), any word of a pasted text, or the filters alone. A ranked page says
which of the ranked window it shows; a sorted page which of every match, in what order, and, for a search of
filters alone sorted because it has no words to rank by, that reason. The page (HTML) and the CLI (text) call
:func:`counted`; the API and ``--json`` carry the numbers themselves (``total``, ``total_any``, ``count_rule``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SORT_SAID", "counted"]

SORT_SAID = {"newest": "newest first", "oldest": "oldest first", "cited_by": "most cited first"}


def _judgments(count: int, plural: str, singular: str) -> str:
    """``"62 judgments have"`` / ``"1 judgment has"``."""
    return f"{count:,} judgment{'' if count == 1 else 's'} {singular if count == 1 else plural}"


def _have(count: int, what: str) -> str:
    return f"{count:,} {'has' if count == 1 else 'have'} {what}"


def counted(result: Any, first: int = 1, *, dash: str = "–", ranged: bool = True) -> str:
    """What ``result`` (a :class:`search.hits.SearchResult` or the API's :class:`ratio.results.SearchPage`)
    counted and which of it this page shows; ``first`` is the page's first rank. ``ranged``: a ranked page names
    its ranks ("showing 1–10 of the best 100"; else "showing the best 100")."""
    rule, found, hits = str(result.count_rule), result.judgments_found, len(result.hits)
    shown = f"{first}{dash}{first + hits - 1}"
    if str(result.sort) != "relevance":
        noun = _judgments(found, "match", "matches") + (" the filters" if rule == "filters" else "")
        if not hits:
            return noun
        order = SORT_SAID.get(str(result.sort), str(result.sort))
        text = f"{noun}; showing {shown}, {order}"
        if rule == "filters" and result.ranking_note:
            text += " (no words to rank by)"
        if result.total_any is not None and result.total is not None:
            text += f" · {_have(result.total, 'every word')} · {_have(result.total_any, 'any')}"
        return text
    if result.total is None:
        return f"{found:,} judgment{'' if found == 1 else 's'} in the ranked window"
    if rule == "every_word":
        text = _judgments(result.total, "have", "has") + " every word"
        if result.total_any is not None:
            text += f" · {_have(result.total_any, 'any')}"
    elif rule == "any_word":
        text = _judgments(result.total, "have", "has") + " any of the pasted text's words"
    else:
        text = _judgments(result.total, "match", "matches") + " the filters"
    if hits:
        text += f"; showing {shown} of the best {found:,}" if ranged else f"; showing the best {found:,}"
    return text
