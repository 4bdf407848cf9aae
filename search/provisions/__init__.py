"""Statutes on the read side: provision retrieval for a fact pattern (:mod:`~search.provisions.retrieve`), the
provisions box (:mod:`~search.provisions.box`), the links from a judgment's provisions to the corpus, and the
provisions a query names (:mod:`~search.provisions.named`).

May import :mod:`search.query`, :mod:`search.retrieval` and :mod:`search.llm` (parametric provisions).
"""
