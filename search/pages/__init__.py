"""What the judgment pages, the API's read routes and Explore read: one judgment as a page and the corpus as charts
(:mod:`~search.pages.browse`), the facet counts the search page shares (:mod:`~search.pages.facets`), the judges
facet, and a judgment's text with its citations linked.

May import :mod:`search.query`, :mod:`search.retrieval`, :mod:`search.graph` and :mod:`search.provisions`
(tests/test_layers.py, ``ROOMS``).
"""
