"""The write path: files become judgment, chunk and provision documents (docs/architecture.md, "Write path").

Loaders read every format (:mod:`indexer.loaders`), :mod:`indexer.pipeline` runs a judgment through metadata,
citations, sentences, roles (:mod:`indexer.roles`), chunks, summaries and vectors, and :mod:`indexer.writer` bulk
loads the documents (in this process, or as a Ray Data job: :mod:`indexer.ray_ingest`). ``indexer`` may import
``legal``, ``backends``, ``mappings`` and ``analyzers``; never ``search``, ``lab`` or ``ratio``
(tests/test_layers.py).
"""
