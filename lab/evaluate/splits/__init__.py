"""Fixed tuning/reported splits of the benchmarks' judged queries, one JSON file per benchmark.

Choices (features, parameters, models) are made on the ``tuning`` queries only; the ``reported`` ones are scored
once per final configuration (docs/evaluation.md). A benchmark without a file is split by position (odd/even).
"""

from __future__ import annotations

import json
from importlib import resources

__all__ = ["SPLIT_FILES", "split_queries"]

# benchmark name (as `ratio eval run` spells it) -> split file in this package
SPLIT_FILES = {"aila-precedents": "aila-2019.json", "irled": "irled.json"}


def split_queries(benchmark: str, part: str) -> frozenset[str] | None:
    """The query ids of ``part`` (``tuning`` or ``reported``) of ``benchmark``; None when it has no split file."""
    if part not in ("tuning", "reported"):
        raise ValueError(f"a split part is 'tuning' or 'reported', not {part!r}")
    name = SPLIT_FILES.get(benchmark)
    if name is None:
        return None
    data = json.loads(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))
    return frozenset(data[part])
