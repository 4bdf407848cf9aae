"""Finding candidates: OpenSearch query bodies (:mod:`~search.retrieval.builders`), the fusion path's chunk search,
fusion and rerank, the records read back, what each hit matched and the counts (:mod:`~search.retrieval.matching`,
the counting rule's one home), and sorted search.

May import :mod:`search.query` and :mod:`search.graph` (the cited-by sort); nothing above (tests/test_layers.py,
``ROOMS``). The bodies the ranker's candidate sources and features send live here too (:mod:`~search.retrieval.bodies`),
beside the fusion path's (:mod:`~search.retrieval.builders`), since matching and counting send them as well.
"""
