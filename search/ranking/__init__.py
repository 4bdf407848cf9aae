"""The learned ranker, the default final stage: a query's profile, candidates from several sources, their features
in one ``_msearch`` (the groups declared once in :mod:`~search.ranking.groups`), the LightGBM LambdaRank model and
its serving, the statutes stage and the evidence that explains a score. The shipped model lives in ``model/``.

May import :mod:`search.query`, :mod:`search.retrieval`, :mod:`search.graph` and :mod:`search.provisions`; it is
trained by the lab (:mod:`lab.training`), which it never imports.
"""
