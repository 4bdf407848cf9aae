"""What was typed, made into a request: the query's syntax, what kind of text it is, its role intent, the options and
the one frozen :class:`~search.query.request.SearchRequest`, with the typed errors that say what to fix.

The bottom of the read path: its modules import no other room of ``search`` (tests/test_layers.py, ``ROOMS``).
"""
