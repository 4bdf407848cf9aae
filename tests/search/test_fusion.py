"""Client-side fusion against hand-computed values, with the server's min-max special cases."""

from __future__ import annotations

import pytest

from search.retrieval.fusion import FusedHit, FusionMethod, fuse, min_max

BM25 = [("a", 10.0), ("b", 5.0), ("c", 0.0)]
KNN = [("b", 0.9), ("d", 0.5)]


def test_min_max_special_cases() -> None:
    assert min_max([10.0, 5.0, 0.0]) == [1.0, 0.5, 0.001]  # the minimum is 0.001, not 0, as on the server
    assert min_max([3.0]) == [1.0]  # a single result
    assert min_max([2.0, 2.0]) == [1.0, 1.0]  # all equal
    assert min_max([]) == []


def test_minmax_weighted_mean_absent_document_scores_zero_with_its_weight() -> None:
    fused = fuse([BM25, KNN])
    # a: 0.9*1.0 + 0.1*0 ; b: 0.9*0.5 + 0.1*1.0 ; c: 0.9*0.001 ; d: 0.1*0.001 (cut: longest list has 3)
    assert [hit.id for hit in fused] == ["a", "b", "c"]
    assert [hit.score for hit in fused] == pytest.approx([0.9, 0.55, 0.0009])
    assert fused[0] == FusedHit("a", pytest.approx(0.9), (1.0, None))
    assert fused[1].parts == (0.5, 1.0)


def test_minmax_weights_change_the_order() -> None:
    fused = fuse([BM25, KNN], weights=(0.3, 0.7))
    # a: 0.3 ; b: 0.15 + 0.7 = 0.85 ; d: 0.0007 ; c: 0.0003
    assert [(h.id, round(h.score, 6)) for h in fused] == [("b", 0.85), ("a", 0.3), ("d", 0.0007)]


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = fuse([BM25, KNN], FusionMethod.RRF, limit=4)
    assert [hit.id for hit in fused] == ["b", "a", "d", "c"]
    assert [hit.score for hit in fused] == pytest.approx([1 / 62 + 1 / 61, 1 / 61, 1 / 62, 1 / 63])


def test_rrf_rank_constant() -> None:
    fused = fuse([[("x", 9.0)], [("x", 1.0)]], FusionMethod.RRF, rank_constant=1)
    assert fused[0].score == pytest.approx(1.0)  # 1/(1+1) twice


def test_ties_break_by_id() -> None:
    fused = fuse([[("b", 1.0), ("a", 1.0)], [("c", 4.0), ("a", 4.0)]], weights=(0.5, 0.5))
    assert [hit.id for hit in fused] == ["a", "b"]  # a 1.0; b and c 0.5 each, b first by id
    assert fuse([[("y", 2.0), ("x", 2.0)]], weights=(1.0,))[0].id == "x"


def test_empty_lists() -> None:
    assert fuse([[], []]) == []
    assert [h.id for h in fuse([[], KNN])] == ["b", "d"]


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"weights": (0.5, 0.6)}, "sum to 1"),
    ({"weights": (1.0,)}, "need 2 weights"),
    ({"rank_constant": 0}, "at least 1"),
])
def test_bad_parameters(kwargs, says) -> None:
    with pytest.raises(ValueError, match=says):
        fuse([BM25, KNN], **kwargs)


def test_repeated_id_is_refused() -> None:
    with pytest.raises(ValueError, match="repeats"):
        fuse([[("a", 1.0), ("a", 0.5)], KNN])


def test_method_values_are_what_users_type() -> None:
    assert FusionMethod("minmax") is FusionMethod.MINMAX and FusionMethod("rrf") is FusionMethod.RRF
