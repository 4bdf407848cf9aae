"""Ratio: search over court judgments, backed by OpenSearch."""

__version__ = "0.1.0"
