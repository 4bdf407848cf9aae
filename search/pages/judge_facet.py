"""The judges facet with each judge once, however the index writes the name.

An index built before the indexer wrote judges in one form (:mod:`legal.judges`) holds a judge under several values
(``dr. arijit pasayat`` 152, ``arijit pasayat`` 101, ``hon'ble justice arijit pasayat`` 6 on AILA), and one value
can name two judges (``g. n. ray, j. and g.t. nanavati``). :func:`group_judges` folds the ``judges`` buckets into
one group per judge (every value naming the judge, the sum of their counts); the sum can count twice a judgment
holding two of the values, so :func:`judge_buckets` counts every group of more than one value again, exactly: one
``filters`` aggregation (a ``terms`` filter over the group's values) under the facet's own query, for the groups
that can reach the list. A group of one value keeps its bucket's count, which is exact already.

The facet reads up to :data:`JUDGE_POOL` values (``sum_other_doc_count`` past it: a judge's rarer spellings beyond
the pool are missed). A bucket's key is the judge's name in its one form (``Arijit Pasayat``), and a
``judge:"Arijit Pasayat"`` filter matches every value it folds (:func:`legal.judges.judge_pattern`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch

from legal.judges import judge_key, judge_names

__all__ = ["JUDGE_POOL", "JudgeGroup", "group_judges", "judge_buckets"]

Body = dict[str, Any]
JUDGE_POOL = 1_000  # distinct values of ``judges`` read for the facet (AILA holds 446)


@dataclass(frozen=True)
class JudgeGroup:
    """One judge: the name shown, the stored values naming the judge, and the sum of their counts (at least the
    number of judgments; equal to it when one value)."""

    name: str
    values: tuple[str, ...]
    upper: int


def group_judges(buckets: Sequence[dict[str, Any]]) -> list[JudgeGroup]:
    """``[{"key", "judgments"}]`` of the ``judges`` terms aggregation folded into judges, the largest sum first
    (then by name). The name shown is the form of the value counted most."""
    names: dict[str, str] = {}
    values: dict[str, list[str]] = {}
    sums: dict[str, int] = {}
    for bucket in sorted(buckets, key=lambda b: -int(b["judgments"])):
        value, n = str(bucket["key"]), int(bucket["judgments"])
        for name in judge_names(value):
            key = judge_key(name) or name.lower()
            names.setdefault(key, name)
            values.setdefault(key, []).append(value)
            sums[key] = sums.get(key, 0) + n
    groups = [JudgeGroup(names[k], tuple(values[k]), sums[k]) for k in names]
    return sorted(groups, key=lambda g: (-g.upper, g.name))


def _recount(client: OpenSearch, index: str, query: Body, groups: Sequence[JudgeGroup]) -> dict[str, int]:
    """The judgments holding any of each group's values, under ``query`` (one request)."""
    several = [g for g in groups if len(g.values) > 1]
    if not several:
        return {}
    filters = {str(i): {"terms": {"judges": list(g.values)}} for i, g in enumerate(several)}
    body = {"size": 0, "query": query, "aggs": {"judges": {"filters": {"filters": filters}}}}
    found = client.search(index=index, body=body)["aggregations"]["judges"]["buckets"]
    return {g.name: int(found[str(i)]["doc_count"]) for i, g in enumerate(several)}


def judge_buckets(client: OpenSearch, index: str, query: Body, buckets: Sequence[dict[str, Any]],
                  size: int) -> list[dict[str, Any]]:
    """The ``size`` judges with the most judgments among ``buckets`` (the ``judges`` terms aggregation under
    ``query`` on the judgments ``index``), each ``{"key": name, "judgments": n, "values": [...]}``, counted exactly:
    the groups of several values that can reach the list are counted again (at most two requests, none when every
    judge has one value)."""
    groups = group_judges(buckets)
    exact = {g.name: g.upper for g in groups if len(g.values) == 1}
    head = groups[:size]
    exact.update(_recount(client, index, query, head))
    if len(head) == size:
        kth = min(exact[g.name] for g in head)
        exact.update(_recount(client, index, query, [g for g in groups[size:] if g.upper > kth]))
    ranked = sorted((g for g in groups if g.name in exact), key=lambda g: (-exact[g.name], g.name))[:size]
    return [{"key": g.name, "judgments": exact[g.name], "values": list(g.values)} for g in ranked]
