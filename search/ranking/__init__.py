"""The learned ranker, the default final stage: a query's profile, candidates from several sources, their features
in one ``_msearch`` (the groups declared once in :mod:`~search.ranking.groups`), the LightGBM LambdaRank model and
its serving and the evidence that explains a score. The shipped model lives in ``model/``.

May import :mod:`search.query`, :mod:`search.retrieval` and :mod:`search.graph` (tests/test_layers.py, ``ROOMS``);
it is trained by the lab (:mod:`lab.training`), which it never imports.
"""
