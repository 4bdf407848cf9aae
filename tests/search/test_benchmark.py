from search.benchmark import _percentile


def test_percentiles_interpolate_between_ranks() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    assert _percentile(values, 0.5) == 25.0
    assert _percentile(values, 0.95) == 38.5
    assert _percentile([7.0], 0.95) == 7.0
