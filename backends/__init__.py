"""The outside world: OpenSearch connection and the local node, encoders and other models."""
