"""Why a hit matched: one extractive line from text that is in the hit (:mod:`~search.explain.extractive`), or one
written by an LLM and checked against the hit before it is shown (:mod:`~search.explain.llm`).

May import :mod:`search.query` and :mod:`search.retrieval` (tests/test_layers.py, ``ROOMS``).
"""
