"""The provisions box: the statute provisions a search lists beside its judgments.

Two ways in. :meth:`ProvisionBox.by_meaning` searches the provisions index with the query (or, after an LLM
expansion, with the provisions the LLM named): what the fusion path and a sorted search list. :meth:`ProvisionBox.best`
ranks provisions by the query's own words and, for a pasted text, by what its top-ranked precedents cite and quote
(:mod:`search.provisions.precedents`), the provisions the query names first (:mod:`search.provisions.named`): what the
learned ranker's path, ``ratio provisions`` and the API list. The searcher decides which (:mod:`search.execute`).
"""

from __future__ import annotations

from collections.abc import Sequence

from opensearchpy import OpenSearch

from backends.encoders import Encoder
from backends.opensearch.indices import index_encoder
from search.llm.expand import Expansion
from search.provisions.named import find_named, named_first
from search.provisions.precedents import rank_provisions
from search.provisions.retrieve import ProvisionHit, find_provisions
from search.query.request import SearchRequest
from search.retrieval.matching import meaning_floor

__all__ = ["ProvisionBox"]


class ProvisionBox:
    """Provisions for a request, over the ``provisions`` alias of ``aliases``."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], encoder: Encoder) -> None:
        self.client = client
        self.aliases = aliases
        self.encoder = encoder
        self._floor: float | None = None

    @property
    def floor(self) -> float:
        """The least cosine similarity for a provision found by meaning alone (none of the query's words): the
        floor of the encoder the provisions index was built with, read once."""
        if self._floor is None:
            self._floor = meaning_floor(index_encoder(self.client, self.aliases["provisions"]))
        return self._floor

    def by_meaning(self, request: SearchRequest, expansion: Expansion | None) -> tuple[ProvisionHit, ...]:
        """``request.provisions`` provisions found by the query's meaning and words, or by the LLM's parametric
        provisions when the expansion produced some; none for a request that asks for none or has no words."""
        if not request.provisions or request.query is None:
            return ()
        texts = [p.query for p in expansion.provisions] if expansion and expansion.provisions else []
        return find_provisions(self.client, self.aliases["provisions"], self.encoder,
                               texts or [request.semantic_text], size=request.provisions, floor=self.floor)

    def best(self, request: SearchRequest, judgments: Sequence[str], size: int) -> tuple[ProvisionHit, ...]:
        """The ``size`` best provisions for ``request`` given its judgments ranked best first (none: the query's own
        words alone); those the query names (``section 304B IPC``, ``s.304-B``: :mod:`search.provisions.named`)
        first."""
        index = self.aliases["provisions"]
        named = find_named(self.client, index, [request.semantic_text], ("provision_id",))
        weights = None if judgments else {"direct": 1.0, "passages": 0.0, "citations": 0.0}
        order = named_first(rank_provisions(self.client, self.aliases, self.encoder, request.semantic_text,
                                            judgments, depth=size, weights=weights, floor=self.floor),
                            named)[:size]
        if not order:
            return ()
        docs = self.client.mget(index=index, body={"ids": [p for p, _ in order]},
                                params={"_source_excludes": "vector"})["docs"]
        found = {d["_id"]: d["_source"] for d in docs if d.get("found")}
        return tuple(ProvisionHit(pid, round(score, 6), found[pid].get("act"), found[pid].get("section"),
                                  found[pid].get("citation"), found[pid].get("title"), found[pid].get("text") or "",
                                  (0,), pid in named.by) for pid, score in order if pid in found)
