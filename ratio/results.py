"""The public result types: one per operation, the REST API's shapes (the OpenAPI spec is the contract).

``ratio.Client`` and ``ratio.RemoteClient`` return these same classes, so code reads a result the same way
whichever client made it, and ``ratio ... --json`` prints them as the API does. Dates are ``datetime.date``
in Python and ISO strings (``YYYY-MM-DD``) in JSON.

======================  ====================================  =========================================
operation               type                                   route
======================  ====================================  =========================================
``search``              :class:`SearchPage` of                 ``GET``/``POST /api/v1/search``
                        :class:`JudgmentHit` (with
                        :class:`Passage`)
``facets``              ``dict[str, list[dict]]``              ``GET /api/v1/facets``
``explore``             :class:`ExploreView`                   ``GET /api/v1/explore``
``judgment``            :class:`JudgmentView`                  ``GET /api/v1/judgments/{id}``
``explain``             :class:`Explanation`                   ``GET /api/v1/explain``
``provisions``          ``list[``:class:`ProvisionHit```]``    ``GET /api/v1/provisions``
``health``              :class:`Health`                        ``GET /api/v1/health``
======================  ====================================  =========================================
"""

from __future__ import annotations

from ratio.web.schemas import Health, SearchPage
from search.browse import ExploreView, JudgmentView
from search.execute import JudgmentHit, Passage
from search.explain import Explanation
from search.provisions import ProvisionHit

__all__ = ["Explanation", "ExploreView", "Health", "JudgmentHit", "JudgmentView", "Passage", "ProvisionHit",
           "SearchPage"]
