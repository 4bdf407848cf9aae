"""The citation graph of the corpus: who cites whom (:mod:`~search.graph.citation_graph`), held as arrays, cached
per index generation, snapshotted to disk, the cited-by counts stored for sorting, the most-cited lists, and
citation checking of a brief against the corpus (:mod:`~search.graph.citecheck`).

May import :mod:`search.query` (party names, errors); no other room (tests/test_layers.py, ``ROOMS``).
"""
