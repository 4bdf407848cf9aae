"""Measures on small hand-made runs whose values are worked out by hand, and the paired tests on known differences."""

from __future__ import annotations

import math

import pytest

from lab.evaluate import DEFAULT_MEASURES, Comparison, Evaluation, compare, evaluate, ranked_run

QRELS = {
    "q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 0},  # 2 relevant, 2 judged non-relevant
    "q2": {"e1": 1},  # 1 relevant
    "q3": {"f1": 1, "f2": 1},  # judged, but the run below has nothing for it
    "q4": {"g1": 0},  # judged, none relevant: never counted
}
RUN = {
    "q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},  # relevant at ranks 1 and 3
    "q2": {"e2": 2.0, "e1": 1.0},  # an unjudged document, then the relevant one at rank 2
    "q4": {"g1": 1.0},
    "q5": {"x": 1.0},  # not in the qrels: ignored
}


def test_default_measures_have_stable_short_names() -> None:
    assert DEFAULT_MEASURES == ("MAP", "P@10", "Bpref", "MRR", "nDCG@10", "R@100", "R@1000")


def test_per_query_values_worked_out_by_hand() -> None:
    evaluation = evaluate(RUN, QRELS)
    q1, q2 = evaluation.per_query["q1"], evaluation.per_query["q2"]
    # q1: AP = (1/1 + 2/3) / 2; P@10 = 2/10; RR = 1/1; Bpref = (1 - 0/2 + 1 - 1/2) / 2 (d2 is above d3, min(R, N) = 2)
    # nDCG@10 = (1/log2(2) + 1/log2(4)) / (1/log2(2) + 1/log2(3)); both relevant found in the top 100 and 1000
    assert q1 == pytest.approx({"MAP": (1 + 2 / 3) / 2, "P@10": 0.2, "Bpref": 0.75, "MRR": 1.0,
                                "nDCG@10": 1.5 / (1 + 1 / math.log2(3)), "R@100": 1.0, "R@1000": 1.0})
    # q2: AP = 1/2; P@10 = 1/10; RR = 1/2; Bpref = 1 (unjudged e2 does not count); nDCG@10 = (1/log2(3)) / 1
    assert q2 == pytest.approx({"MAP": 0.5, "P@10": 0.1, "Bpref": 1.0, "MRR": 0.5,
                                "nDCG@10": 1 / math.log2(3), "R@100": 1.0, "R@1000": 1.0})


def test_a_judged_query_missing_from_the_run_counts_as_zero() -> None:
    evaluation = evaluate(RUN, QRELS)
    assert list(evaluation.per_query) == ["q1", "q2", "q3"]  # q4 has no relevant judgment, q5 no judgment
    assert evaluation.per_query["q3"] == dict.fromkeys(DEFAULT_MEASURES, 0.0)
    assert evaluation.missing == ("q3",)
    assert evaluation.queries == 3
    # MAP = (5/6 + 1/2 + 0) / 3, not (5/6 + 1/2) / 2 as it would be if q3 were dropped
    assert evaluation.mean["MAP"] == pytest.approx((5 / 6 + 0.5) / 3)
    assert evaluation.mean["MRR"] == pytest.approx(0.5)
    assert evaluation.mean["R@100"] == pytest.approx(2 / 3)


def test_an_empty_result_list_is_missing_too() -> None:
    evaluation = evaluate({**RUN, "q3": {}}, QRELS, ("MAP",))
    assert evaluation.missing == ("q3",)
    assert evaluation.mean == {"MAP": pytest.approx((5 / 6 + 0.5) / 3)}


def test_a_run_with_nothing_judged_scores_zero_everywhere() -> None:
    evaluation = evaluate({}, QRELS, ("MAP", "nDCG@10"))
    assert evaluation.mean == {"MAP": 0.0, "nDCG@10": 0.0}
    assert evaluation.missing == ("q1", "q2", "q3")


def test_other_ir_measures_names_are_accepted_as_spelt_there() -> None:
    evaluation = evaluate(RUN, QRELS, ("P@5", "MAP"))
    assert evaluation.measures == ("P@5", "MAP")
    assert evaluation.per_query["q1"]["P@5"] == pytest.approx(2 / 5)
    assert evaluation.values("P@5") == pytest.approx({"q1": 0.4, "q2": 0.2, "q3": 0.0})


def test_bad_measures_and_unscorable_qrels_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown measure 'MAPP'"):
        evaluate(RUN, QRELS, ("MAPP",))
    with pytest.raises(ValueError, match="repeat"):
        evaluate(RUN, QRELS, ("MAP", "MAP"))
    with pytest.raises(ValueError, match="no relevant judgment"):
        evaluate(RUN, {"q1": {"d1": 0}})
    with pytest.raises(ValueError, match="'MRR' was not evaluated"):
        evaluate(RUN, QRELS, ("MAP",)).values("MRR")


def test_ranked_run_keeps_the_given_order_where_equal_scores_would_not() -> None:
    # equal scores: trec_eval breaks ties by document id descending, d3 d2 d1 -> relevant at 1 and 3
    tied = evaluate({"q1": {"d1": 1.0, "d2": 1.0, "d3": 1.0}}, {"q1": QRELS["q1"]}, ("MAP",))
    assert tied.mean["MAP"] == pytest.approx((1 + 2 / 3) / 2)
    # the searcher's order d2 d1 d3 -> relevant at 2 and 3: AP = (1/2 + 2/3) / 2
    run = ranked_run({"q1": ["d2", "d1", "d3", "d1"]})
    assert run == {"q1": {"d2": 4.0, "d1": 3.0, "d3": 2.0}}
    assert evaluate(run, {"q1": QRELS["q1"]}, ("MAP",)).mean["MAP"] == pytest.approx((1 / 2 + 2 / 3) / 2)


# ---------------------------------------------------------------- compare


def scores(values: dict[str, float]) -> Evaluation:
    per_query = {qid: {"MAP": value} for qid, value in values.items()}
    return Evaluation(("MAP",), per_query, {"MAP": math.fsum(values.values()) / len(values)})


BASE = scores({"a": 0.1, "b": 0.2, "c": 0.3})


def test_compare_on_known_differences() -> None:
    result = compare(BASE, scores({"a": 0.2, "b": 0.4, "c": 0.6}))
    # differences 0.1, 0.2, 0.3: mean 0.2, sd 0.1, t = 0.2 / (0.1 / sqrt 3) = 2 sqrt 3 with 2 degrees of freedom,
    # where the two-sided p is 1 - t / sqrt(t^2 + 2)
    t = 2 * math.sqrt(3)
    assert result == Comparison("MAP", 3, pytest.approx(0.2), pytest.approx(0.4), pytest.approx(0.2),
                                pytest.approx(1 - t / math.sqrt(t * t + 2)), pytest.approx(0.25))
    # randomisation, exact with 3 queries: of the 2^3 sign flips only the observed one reaches a mean of 0.2,
    # so one side is 1/8 and two-sided 2/8
    assert not result.significant()
    assert result.significant(alpha=0.1)


def test_compare_is_symmetric_in_p_and_antisymmetric_in_difference() -> None:
    better = scores({"a": 0.2, "b": 0.4, "c": 0.6})
    forward, backward = compare(BASE, better), compare(better, BASE)
    assert backward.difference == pytest.approx(-forward.difference)
    assert (backward.t_test_p, backward.permutation_p) == pytest.approx((forward.t_test_p, forward.permutation_p))


def test_identical_scores_give_p_one_not_nan() -> None:
    result = compare(BASE, BASE)
    assert (result.difference, result.t_test_p, result.permutation_p) == (0.0, 1.0, 1.0)


def test_all_equal_nonzero_differences_give_a_defined_t_test_p() -> None:
    base = scores({"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4})
    result = compare(base, scores({"a": 0.2, "b": 0.3, "c": 0.4, "d": 0.5}))  # +0.1 everywhere, up to float noise
    assert result.difference == pytest.approx(0.1)
    assert result.t_test_p == 1.0  # zero variance: the t-test says nothing
    assert result.permutation_p == pytest.approx(2 / 16)  # exact: only all-plus and all-minus are as extreme


def test_compare_uses_only_the_queries_both_have() -> None:
    result = compare(BASE, scores({"a": 0.5, "b": 0.6, "z": 1.0}))
    assert result.queries == 2
    assert (result.baseline_mean, result.other_mean) == pytest.approx((0.15, 0.55))
    with pytest.raises(ValueError, match="share no query"):
        compare(BASE, scores({"x": 0.5}))
    with pytest.raises(ValueError, match="'nDCG@10' was not evaluated"):
        compare(BASE, BASE, "nDCG@10")


def test_one_shared_query_claims_nothing() -> None:
    result = compare(BASE, scores({"a": 0.9}))
    assert (result.queries, result.t_test_p, result.permutation_p) == (1, 1.0, 1.0)


def test_randomised_test_on_many_queries_is_repeatable_and_agrees_with_the_t_test() -> None:
    base = scores({f"q{i}": i / 40 for i in range(30)})
    better = scores({f"q{i}": i / 40 + (0.05 if i % 3 else 0.02) for i in range(30)})  # better on every query
    noisy = scores({f"q{i}": i / 40 + (0.05 if i % 2 else -0.05) for i in range(30)})  # +-0.05, mean 0
    first, second = compare(base, better), compare(base, better)
    assert first == second  # seeded: the same p every time
    assert first.t_test_p < 1e-6
    assert 1 / 10_001 <= first.permutation_p < 0.001  # 10,000 resamples: never below 1/10,001
    same = compare(base, noisy)
    assert same.difference == pytest.approx(0.0)
    assert same.t_test_p > 0.5 and same.permutation_p > 0.5
