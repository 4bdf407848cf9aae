"""Benchmarks behind ``ratio bench``: search and API latency (:mod:`~lab.bench.searches`), k-NN and hybrid at 10k to
1M vectors (:mod:`~lab.bench.knn`), the default search at scale over a corpus copied larger
(:mod:`~lab.bench.scale`, :mod:`~lab.bench.corpus_scale`), the citation graph (:mod:`~lab.bench.graph`) and the
write path (:mod:`~lab.bench.indexing`). Their figures are in docs/benchmarks.md and docs/capacity.md.
"""
