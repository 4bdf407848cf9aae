"""The read path: a query becomes ranked judgments (docs/architecture.md, "Read path").

At the top, the steps a search passes through in order: :mod:`search.execute` (the searcher: which steps run and
which final stage gives the page), :mod:`search.page` (the page read back in one ``_msearch``), :mod:`search.hits`
(what a search returns), and the other doors of the read side: :mod:`search.brief` and :mod:`search.document_query`
(a whole document as the query), :mod:`search.alerts` (saved searches). The rooms below hold one concept each:

- :mod:`search.query`: what was typed (syntax, understanding, intent, options, the request, the errors)
- :mod:`search.retrieval`: candidates and fusion (query bodies, chunk search, rerank, records, matching, sorting)
- :mod:`search.ranking`: the learned ranker (features, groups, the model and its serving)
- :mod:`search.graph`: the citation graph (arrays, cache, snapshot, cited-by store, citation checking)
- :mod:`search.provisions`: statutes (provision retrieval, the provisions box, links, named provisions)
- :mod:`search.explain`: why a hit matched (extractive lines, LLM lines checked against the hit)
- :mod:`search.llm`: the optional LLM steps (expansion, the LLM rerank and its grades)
- :mod:`search.pages`: what the judgment pages and Explore read (browse, facets, judgment text)
- :mod:`search.answer`: grounded answers

``search`` may import ``legal``, ``backends``, ``mappings`` and ``analyzers``; never ``indexer``, ``lab`` or
``ratio`` (tests/test_layers.py).
"""
