"""Statutes on the read side: provision retrieval for a fact pattern (:mod:`~search.provisions.retrieve`), the
provisions a pasted text's precedents cite and quote (:mod:`~search.provisions.precedents`), the provisions box
that mixes them (:mod:`~search.provisions.box`), the links from a judgment's provisions to the corpus, and the
provisions a query names (:mod:`~search.provisions.named`).

May import :mod:`search.query`, :mod:`search.retrieval` and :mod:`search.llm` (parametric provisions), given the
precedents' ids by its caller (tests/test_layers.py, ``ROOMS``).
"""
