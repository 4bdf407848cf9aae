"""Finding candidates: OpenSearch query bodies (:mod:`~search.retrieval.builders`), the fusion path's chunk search,
fusion and rerank, the records read back, what each hit matched and the counts (:mod:`~search.retrieval.matching`,
the counting rule's one home), and sorted search.

May import :mod:`search.query` and :mod:`search.graph` (the cited-by sort); nothing above (the searcher, the pages).
"""
