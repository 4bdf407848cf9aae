"""The read path's optional LLM steps: query expansion (legal issues, parametric provisions:
:mod:`~search.llm.expand`) and the LLM rerank of the ranker's top k (:mod:`~search.llm.rerank`, its grades in
:mod:`~search.llm.grades`). Prompts are files in ``search/prompts/``; the models are ``backends.llm``'s.

May import :mod:`search.query` and :mod:`search.explain` (tests/test_layers.py, ``ROOMS``).
"""
