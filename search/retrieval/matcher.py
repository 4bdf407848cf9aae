"""Running :mod:`search.retrieval.matching` on the cluster: what a window's judgments matched, and the exact counts.

:mod:`search.retrieval.matching` builds the bodies and decides from the answers; this module sends them. The learned
ranker sends the same requests with its features (one round trip fewer: :meth:`Matcher.requests`) and has them
decided here from its answers (:meth:`Matcher.decide`); the fusion path and a sorted page call :meth:`Matcher.match`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from opensearchpy import OpenSearch

from search.query.rejection import EngineError
from search.query.request import SearchRequest
from search.retrieval.bodies import chunk_similarity_body
from search.retrieval.matching import (
    Matching,
    allowed_body,
    cosine,
    count_body,
    missing_words,
    returned_ids,
    words_body,
)

__all__ = ["Matcher"]


class Matcher:
    """Matching over ``aliases``; ``vector`` embeds a request (to measure meaning-only judgments), ``floor`` gives
    the least similarity of a meaning-only hit (read when first needed)."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], vector: Callable[[SearchRequest], list[float]],
                 floor: Callable[[], float]) -> None:
        self.client = client
        self.aliases = aliases
        self.vector = vector
        self.floor = floor

    def match(self, request: SearchRequest, ids: Sequence[str], similarity: dict[str, float] | None = None,
              check_constraints: bool = True) -> Matching:
        """What each of the window's judgments ``ids`` matched, and the exact count of judgments matching the
        words. ``similarity`` (cosines, when the caller has them) saves the request that measures the meaning-only
        judgments' closest passages; ``check_constraints`` False when every id is known to satisfy them."""
        lines: list[dict[str, Any]] = []
        for index, body in self.requests(request, ids, check_constraints):
            lines += [{"index": index}, body]
        return self.decide(request, ids, self.client.msearch(body=lines)["responses"], similarity)

    def requests(self, request: SearchRequest, ids: Sequence[str],
                 check_constraints: bool = True) -> list[tuple[str, dict[str, Any]]]:
        """The requests :meth:`match` sends, as ``(index, body)``."""
        bodies = [("judgments", count_body(request))]
        if request.query is not None and request.every_word:  # the any-word count beside the rule's
            bodies.append(("judgments", count_body(request, any_word=True)))
        if ids:
            bodies.append(("judgments", words_body(request, ids)))
            allowed = allowed_body(request, ids) if check_constraints else None
            if allowed is not None:
                bodies.append(("judgments", allowed))
        return [(self.aliases[kind], body) for kind, body in bodies]

    def decide(self, request: SearchRequest, ids: Sequence[str], answers: Sequence[Mapping[str, Any]],
               similarity: dict[str, float] | None = None, named: Collection[str] = ()) -> Matching:
        """:meth:`match`'s decision from the answers to :meth:`requests`; ``named``: judgments a citation typed
        alone names (kept though their text never writes it)."""
        responses = list(answers)
        any_word = request.query is not None and request.every_word
        for response in responses:
            if "error" in response:
                raise EngineError(f"the match count failed: {response['error']}", response)
        total = int(responses[0]["hits"]["total"]["value"])
        total_any = int(responses.pop(1)["hits"]["total"]["value"]) if any_word else None
        words = returned_ids(responses[1]) if ids else frozenset()
        missing = missing_words(request, responses[1]) if ids else {}
        allowed_ids = returned_ids(responses[2]) if len(responses) > 2 else None
        meaning = [d for d in ids if d not in words and (allowed_ids is None or d in allowed_ids)]
        if meaning and request.query is not None and similarity is None:
            body = {**chunk_similarity_body(self.vector(request), meaning), "size": len(meaning)}
            found = self.client.search(index=self.aliases["chunks"], body=body)["hits"]["hits"]
            similarity = {h["fields"]["judgment_id"][0]: cosine(h["_score"]) for h in found}
        return Matching.decide(request, ids, total=total, floor=self.floor(), words=words, allowed=allowed_ids,
                               similarity=similarity or {}, total_any=total_any, missing=missing, named=named)
