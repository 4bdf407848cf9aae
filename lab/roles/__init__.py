"""The rhetorical-role labeller's lab: its training data from the shared role corpora (:mod:`~lab.roles.data`),
training (:mod:`~lab.roles.train`, ``ratio train roles``) and evaluation (:mod:`~lab.roles.evaluate`). The labeller
itself, which the write path runs, is ``indexer.roles``.
"""
