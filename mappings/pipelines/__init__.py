"""The hybrid search pipelines as JSON bodies, one file per fusion method (installed by
:mod:`backends.opensearch.indices`, named in requests by :mod:`search.execute`)."""
