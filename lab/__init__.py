"""The lab: offline code that measures or trains Ratio, rather than serving it (docs/architecture.md, "The lab").

- :mod:`lab.evaluate`: benchmark queries and qrels, the configurations ``ratio eval run`` scores, reports
- :mod:`lab.training`: the learned ranker's training set, cross-validation and selection, rerankers, encoders
- :mod:`lab.roles`: the role labeller's training data, training and evaluation
- :mod:`lab.bench`: search, k-NN, graph, scale and indexing benchmarks (``ratio bench ...``)
- :mod:`lab.hostile`, :mod:`lab.sentence_eval`: hostile inputs for the write path, the sentence splitter's scores

The lab may import the product (``indexer``, ``search`` and what they use: it measures and trains the real
thing) but not ``ratio``; nothing in the product imports it except the command modules in ``ratio/cli/``, so a
deployment can leave it out (tests/test_layers.py).
"""
