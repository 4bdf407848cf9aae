"""The role cues run by RE2 against the same cues run by ``re``: every cue column of every sentence compared, and
the milliseconds a judgment each way (``ratio bench cues``; docs/benchmarks.md, "The role cues by RE2").

RE2 runs a cue only where it means what ``re`` means (see :mod:`indexer.roles.features`); this is the check, on a
whole corpus, that it does, and the measure of what it saves.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CueComparison", "compare_cues"]


@dataclass
class CueComparison:
    """One corpus's comparison: judgments read, of them ASCII (RE2's), the ids whose columns differ."""

    judgments: int = 0
    ascii: int = 0
    differing: list[str] = field(default_factory=list)
    load_errors: int = 0
    re_ms: float = 0.0  # cue time a judgment, every cue by re
    re2_ms: float = 0.0  # the same, RE2 where it may run

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def compare_cues(paths: Iterable[Path], limit: int | None = None) -> CueComparison:
    """Load, split and compute the shipped cue table both ways for each judgment under ``paths``."""
    from indexer.document import LoadError
    from indexer.loaders import load
    from indexer.roles.features import load_feature_set
    from legal.sentences import split

    features = load_feature_set()
    out = CueComparison()
    slow = fast = 0.0
    for item in load([str(p) for p in paths]):
        if isinstance(item, LoadError):  # a judgment or a provision: its text is compared
            out.load_errors += 1
            continue
        sentences = [s.text for s in split(item.text)]
        out.ascii += "\x00".join(sentences).isascii()
        started = time.perf_counter()
        with_re2 = features.compute(sentences)
        fast += time.perf_counter() - started
        started = time.perf_counter()
        with_re = features.compute(sentences, use_re2=False)
        slow += time.perf_counter() - started
        out.judgments += 1
        if not (with_re2 == with_re).all():
            out.differing.append(item.judgment_id)
        if limit is not None and out.judgments >= limit:
            break
    if out.judgments:
        out.re_ms, out.re2_ms = round(slow / out.judgments * 1000, 2), round(fast / out.judgments * 1000, 2)
    return out
